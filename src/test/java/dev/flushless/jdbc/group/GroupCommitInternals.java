package dev.flushless.jdbc.group;

/** Test access to group commit's package-private counters and test hook. */
public final class GroupCommitInternals {

    private GroupCommitInternals() {}

    /** Leaders that waited for company so far, driver-wide. */
    public static long companyWaits() {
        return GroupCommit.COMPANY_WAITS.sum();
    }

    /** The most groups one lane had running at once so far, driver-wide. */
    public static int mostRunning() {
        return GroupCommit.MOST_RUNNING.get();
    }

    /** Lanes (session fingerprint and SQL text) kept driver-wide now, and their bound. */
    public static int[] lanes() {
        return new int[] {GroupCommit.laneCount(), GroupCommit.MAX_LANES};
    }

    /** Makes every leader wait (up to maxDelayMicros) for a group of {@code size}; 0 turns it off. */
    public static void testGroupSize(int size) {
        GroupCommit.testGroupSize = size;
    }
}
