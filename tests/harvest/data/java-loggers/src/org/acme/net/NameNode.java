package org.acme.net;

import org.acme.LogFactory;
import org.acme.util.Log;

public class NameNode {
    public static final Log LOG = LogFactory.getLog("org.acme.net.NameNode");
    public static final Log stateChangeLog = LogFactory.getLog("org.acme.StateChange");
    static final String VERSION = "0.20.1";

    public static void main(String[] args) throws Exception {
        LOG.info(VERSION);
        LOG.info("1");
        stateChangeLog.info("BLOCK* NameSystem.allocateBlock: " + args.length);
        DataNode node = new DataNode("/10.250.19.102:50010");
        node.receive("blk_-1608999687919862906", "/10.250.19.102:54106");
        new DataNode.PacketResponder(1).run();
        node.serve();
        new Backup().start("C:\\data\\edits");
        try {
            throw new IllegalStateException("disk full");
        } catch (IllegalStateException e) {
            LOG.error("Exception in receiveBlock:\n", e);
        }
    }
}
