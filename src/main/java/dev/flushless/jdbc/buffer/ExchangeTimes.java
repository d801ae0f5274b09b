package dev.flushless.jdbc.buffer;

/**
 * How long one connection's reads take as sent, for the rule that buffering must pay
 * ({@link dev.flushless.jdbc.FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}): the least of the last {@link #WINDOW} reads' times
 * bounds the round trip from above (a read is a round trip plus the server's work, and the least one has the least of
 * both and of any wait for a CPU), and the window follows a change of route. Not thread-safe: one connection's.
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

    void add(long nanos) {
        samples[count % samples.length] = nanos;
        count++;
    }

    /** The estimate in nanoseconds, or -1 before {@link #MIN_SAMPLES} reads. */
    long leastNanos() {
        if (count < MIN_SAMPLES) {
            return -1;
        }
        long least = Long.MAX_VALUE;
        for (int i = 0, n = Math.min(count, samples.length); i < n; i++) {
            least = Math.min(least, samples[i]);
        }
        return least;
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
