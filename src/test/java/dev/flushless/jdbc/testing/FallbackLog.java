package dev.flushless.jdbc.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * Captures the DEBUG log of fallback texts ({@code System.Logger} "dev.flushless.jdbc.fallback", which the JDK maps
 * to java.util.logging at FINE): the report counts codes only, and a test that checks why rows ran as sent reads the
 * text here. Close it to stop capturing.
 */
public final class FallbackLog implements AutoCloseable {

    private final Logger logger = Logger.getLogger("dev.flushless.jdbc.fallback");
    private final Level previous = logger.getLevel();
    private final List<String> texts = new ArrayList<>();
    private final Handler handler = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (texts) {
                Object[] p = record.getParameters();
                texts.add(p != null && p.length == 3 ? p[1] + ": " + p[2] : record.getMessage());
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    public FallbackLog() {
        handler.setLevel(Level.ALL);
        logger.setLevel(Level.FINE);
        logger.addHandler(handler);
    }

    /** Every captured "code: text", in order. */
    public List<String> texts() {
        synchronized (texts) {
            return List.copyOf(texts);
        }
    }

    @Override
    public void close() {
        logger.removeHandler(handler);
        logger.setLevel(previous);
    }
}
