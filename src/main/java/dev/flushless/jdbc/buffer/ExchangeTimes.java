package dev.flushless.jdbc.buffer;

/**
 * How long one connection's reads take as sent, for the rule that buffering must pay
 * ({@link dev.flushless.jdbc.FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}): the least of the last {@link #WINDOW} reads' times
 * bounds the round trip from above (a read is a round trip plus the server's work, and the least one has the least of
 * both and of any wait for a CPU), and the window follows a change of route. Once the connection timed
 * {@link #MIN_SAMPLES} reads, the recent reads of the driver's other connections to the same server bound it too
 * ({@link ServerReadTimes}). Not thread-safe: one connection's.
 */
final class ExchangeTimes {

    /** Reads timed before the rule trusts the estimate; until then, buffering is taken to pay (the default). */
    static final int MIN_SAMPLES = 4;

    /**
     * Reads the estimate is the least of: enough that on a host whose CPUs are saturated (where each read also waits
     * for the server's process to run) one of them met no wait.
     */
    static final int WINDOW = 64;

    private final long[] samples = new long[WINDOW];
    private int count;
    /** The shared times of this connection's server ({@link ServerReadTimes}), asked at the first read. */
    private final java.util.function.Supplier<ServerReadTimes> shared;
    /** Found at the first read; {@code null} when the server is not known (then this connection's reads only). */
    private ServerReadTimes server;

    private boolean serverLooked;

    /** A connection's reads alone. */
    ExchangeTimes() {
        this(null);
    }

    /** A connection's reads, which also join those of the driver's other connections to its server. */
    ExchangeTimes(java.util.function.Supplier<ServerReadTimes> shared) {
        this.shared = shared;
    }

    void add(long nanos) {
        samples[count % samples.length] = nanos;
        count++;
        ServerReadTimes times = server();
        if (times != null) {
            times.add(nanos);
        }
    }

    private ServerReadTimes server() {
        if (!serverLooked && shared != null) {
            serverLooked = true;
            server = shared.get();
        }
        return server;
    }

    /**
     * The estimate in nanoseconds, or -1 before {@link #MIN_SAMPLES} reads: the least of this connection's last
     * {@link #WINDOW} reads and of the recent reads of the driver's connections to the same server.
     */
    long leastNanos() {
        if (count < MIN_SAMPLES) {
            return -1;
        }
        long least = Long.MAX_VALUE;
        for (int i = 0, n = Math.min(count, samples.length); i < n; i++) {
            least = Math.min(least, samples[i]);
        }
        ServerReadTimes times = server();
        long others = times == null ? -1 : times.leastNanos();
        return others < 0 ? least : Math.min(least, others);
    }

    /**
     * Whether buffering pays: the threshold is 0, too few reads were timed, or the least read took at least
     * {@code minMicros}.
     */
    boolean pays(int minMicros) {
        if (minMicros == 0) {
            return true;
        }
        long least = leastNanos();
        return least < 0 || least >= minMicros * 1000L;
    }
}
