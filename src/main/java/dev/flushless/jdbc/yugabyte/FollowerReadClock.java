package dev.flushless.jdbc.yugabyte;

import dev.flushless.jdbc.replica.FollowerReadCausality;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * This application's writes to one YugabyteDB database, for follower reads' read-your-writes: when the newest write
 * of this driver ended ({@link System#nanoTime()}) and how many are running now. Shared JVM-wide (per class loader)
 * by every connection to a database of that name, whatever the URL's hosts, the user or the data source: a read pool
 * that names the nearest nodes and a write pool that names others reach the same universe, and a wider key only sends
 * more reads to the leaders, never fewer. Each connection notes its own writes through a {@link Writer}; a read-only
 * period asks {@link #readFromLeaders} ({@link FollowerReadCausality}).
 */
public final class FollowerReadClock {

    private static final Map<String, FollowerReadClock> CLOCKS = new ConcurrentHashMap<>();

    /** When the newest write ended, or {@code Long.MIN_VALUE} before the first. */
    private final AtomicLong lastWriteEnd = new AtomicLong(Long.MIN_VALUE);

    private final AtomicInteger running = new AtomicInteger();

    /** A clock of its own (tests); the driver shares them through {@link #of}. */
    FollowerReadClock() {}

    /**
     * The clock of the database {@code connection} is connected to (its name as pgjdbc knows it: nothing is sent);
     * one JVM-wide clock for every database when the name cannot be read.
     */
    public static FollowerReadClock of(Connection connection) {
        String database;
        try {
            database = connection.getCatalog();
        } catch (SQLException | RuntimeException e) {
            database = null;
        }
        return forKey(database == null ? "" : database);
    }

    /** The clock shared under {@code key} (a database name). */
    static FollowerReadClock forKey(String key) {
        return CLOCKS.computeIfAbsent(key, k -> new FollowerReadClock());
    }

    /** A write of this driver starts (its end is noted by {@link #writeEnded}). */
    void writeStarted() {
        running.incrementAndGet();
    }

    /** A write that started has ended (returned to the application) by {@code nowNanos}. */
    void writeEnded(long nowNanos) {
        // the end time first: a reader that sees no write running then sees its end
        lastWriteEnd.accumulateAndGet(
                nowNanos, (before, now) -> before == Long.MIN_VALUE || now - before > 0 ? now : before);
        running.decrementAndGet();
    }

    /** Writes running now. */
    int writesRunning() {
        return running.get();
    }

    /** When the newest write ended, or {@code Long.MIN_VALUE}. */
    long lastWriteEnd() {
        return lastWriteEnd.get();
    }

    /**
     * Whether a read-only period starting at {@code nowNanos}, reading {@code stalenessMs} stale, could miss a write of
     * this driver that ended before it (or is running), with YugabyteDB's default clock skew.
     */
    public boolean readFromLeaders(long nowNanos, int stalenessMs) {
        int writes = running.get(); // before the end time: see writeEnded
        return FollowerReadCausality.readFromLeaders(
                nowNanos, lastWriteEnd.get(), writes, stalenessMs, FollowerReadCausality.DEFAULT_CLOCK_SKEW_MS);
    }

    /** A writer for one connection of this driver. */
    public Writer writer() {
        return new Writer(this);
    }

    /**
     * One connection's writes on a {@link FollowerReadClock}: a write runs from its start until the connection's next
     * call the engine sees (the next statement, commit, rollback, {@code clearWarnings}, close), since a statement's
     * return is not seen; its end is noted then, later than it really was, which only widens the window.
     */
    public static final class Writer {
        private final FollowerReadClock clock;
        private boolean running;

        Writer(FollowerReadClock clock) {
            this.clock = clock;
        }

        /** The clock this writer notes its writes on. */
        public FollowerReadClock clock() {
            return clock;
        }

        /** A statement or a commit starts on the connection; {@code write}: it counts as a write. */
        public void starting(boolean write) {
            ended();
            if (write) {
                running = true;
                clock.writeStarted();
            }
        }

        /** The connection's call after its write: the write has ended. */
        public void ended() {
            if (running) {
                running = false;
                clock.writeEnded(System.nanoTime());
            }
        }
    }
}
