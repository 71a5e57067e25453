package org.acme.net;

import org.acme.LogFactory;
import org.acme.util.Log;

class DataNode {
    public static final Log LOG = LogFactory.getLog("org.acme.net.DataNode");
    private final String myAddr;

    DataNode(String myAddr) {
        this.myAddr = myAddr;
    }

    void receive(String block, String inAddr) {
        LOG.info("Receiving block " + block + " src: " + inAddr + " dest: " + myAddr);
        NameNode.stateChangeLog.info("BLOCK* NameSystem.addStoredBlock: blockMap updated: " + myAddr
                + " is added to " + block);
    }

    void serve() {
        Runnable task = new Runnable() {
            public void run() {
                LOG.warn(myAddr + ":Got exception while serving to " + myAddr);
            }
        };
        task.run();
        try {
            throw new java.io.IOException("Connection reset by peer");
        } catch (java.io.IOException ioe) {
            LOG.warn(myAddr + ":Got exception while serving blk_1 to " + myAddr + ":\n" + ioe);
            connected("[fe80::1%eth0]:2181", 7);
            connected(myAddr, 8);
        }
    }

    void connected(String server, long session) {
        LOG.info("Connected to " + server + ": session " + session + " of " + myAddr);
    }

    static class PacketResponder {
        private final int number;

        PacketResponder(int number) {
            this.number = number;
        }

        void run() {
            DataNode.LOG.info("PacketResponder " + number + " for block terminating");
            org.acme.net.NameNode.LOG.info("Responder " + number + " closed");
        }
    }
}
