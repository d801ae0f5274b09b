package dev.flushless.jdbc.replica;

/**
 * YugabyteDB follower reads with read-your-writes ({@code flushless.followerReads} and {@code flushless.readYourWrites}):
 * a follower read reads the data as of about {@code now - staleness} (YugabyteDB picks a read time that old), so a
 * read-only transaction that starts within {@code staleness} (plus the clock skew YugabyteDB allows between nodes,
 * {@code max_clock_skew_usec}, 500 ms by default) after this driver's last commit ended could miss it, and must read
 * from the leaders instead; so must one that starts while a write of this driver is still running. Pure: the driver
 * feeds it the times it keeps, tests feed it facts.
 */
public final class FollowerReadCausality {

    /** YugabyteDB's default {@code max_clock_skew_usec}, in milliseconds. */
    public static final int DEFAULT_CLOCK_SKEW_MS = 500;

    private FollowerReadCausality() {}

    /**
     * Whether a read-only transaction starting at {@code nowNanos} must read from the leaders.
     *
     * @param lastCommitEndNanos when this driver's newest commit returned ({@link System#nanoTime()}), or
     *     {@code Long.MIN_VALUE} when it committed nothing
     * @param writesRunning writes of this driver running now (their commit time is not known)
     * @param stalenessMs {@code flushless.followerReads}
     * @param clockSkewMs the skew YugabyteDB allows between its nodes' clocks
     */
    public static boolean readFromLeaders(
            long nowNanos, long lastCommitEndNanos, int writesRunning, int stalenessMs, int clockSkewMs) {
        if (writesRunning > 0) {
            return true;
        }
        if (lastCommitEndNanos == Long.MIN_VALUE) {
            return false;
        }
        long windowNanos = (stalenessMs + (long) clockSkewMs) * 1_000_000L;
        return nowNanos - lastCommitEndNanos < windowNanos;
    }
}
