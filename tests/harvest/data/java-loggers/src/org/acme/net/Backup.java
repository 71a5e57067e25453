package org.acme.net;

import org.acme.util.Log;

class Storage {
    protected static final Log journalLog = org.acme.LogFactory.getLog("journal");

    protected Log getJournal() {
        return journalLog;
    }

    static Log LOG() {
        return journalLog;
    }
}

class Backup extends Storage {
    void start(String dir) {
        LOG().info("Backup storage directory " + dir + " is not formatted");
        getJournal().warn("Journal of " + dir + " rolled");
        new Checkpoint().save(dir);
    }

    class Checkpoint {
        void save(String dir) {
            journalLog.info("Checkpoint saved to " + dir);
        }
    }
}
