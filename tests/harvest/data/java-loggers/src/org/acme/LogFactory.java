package org.acme;

import org.acme.util.Log;

public final class LogFactory {
    private LogFactory() {
    }

    public static Log getLog(String name) {
        return Log.getLog(name);
    }
}
