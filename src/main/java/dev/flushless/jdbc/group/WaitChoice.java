package dev.flushless.jdbc.group;

import static dev.flushless.jdbc.group.GroupCommit.EPOCH_ROWS;
import static dev.flushless.jdbc.group.GroupCommit.EXPLORE_EVERY;
import static dev.flushless.jdbc.group.GroupCommit.SETTLE_ROWS;

/**
 * A {@link GroupCommit.Lane}'s measured choice whether its leaders wait for company: epochs of rows in the mode it
 * keeps, now and then one in the other, and the mode whose rows took less time each, arrival to commit, is kept (see
 * {@link #observe}). Not thread-safe: the lane calls it under its lock.
 */
final class WaitChoice {

    /**
     * Whether leaders of this lane may wait for company now (the rules of {@link GroupCommit#waitForCompany}); when false
     * none waits, and every writer runs its own INSERT at once. Chosen by measurement, see {@link #observe}.
     */
    private boolean waiting = true;
    /** This epoch tries the mode not in force (see {@link #observe}). */
    private boolean exploring;
    /** The current epoch's number: rows count towards the epoch in which their statement was decided. */
    private int epoch;

    /** Rows the current epoch still lets pass before it measures. */
    private int settling = SETTLE_ROWS;

    /** When the current epoch's measuring began (set when its settling rows have passed). */
    private long epochStart;

    private int epochRows;
    /** Sum over the epoch's committed rows of their time from arrival to commit (ns). */
    private long epochNanos;
    /** The last full epoch of the mode in force: its mean time per row and how long it took (ns). */
    private long keptMean;

    private long keptDuration;
    /** Full epochs of the mode in force since the last exploring one (starts due, so the first one explores). */
    private int keptEpochs = EXPLORE_EVERY - 1;

    /** Whether leaders may wait for company now. */
    boolean waiting() {
        return waiting;
    }

    /** The current epoch: rows count towards the epoch in which their statement was decided. */
    int epoch() {
        return epoch;
    }

    /**
     * {@code rows} rows of a statement decided in epoch {@code decidedIn} committed at {@code now}, having taken
     * {@code rowNanos} in all from their callers' arrival: the time the application observed, waits included.
     * The lane calls it under its lock.
     *
     * <p>The lane runs in epochs. For {@link GroupCommit#EXPLORE_EVERY} epochs it keeps its mode (leaders may wait, or none
     * waits); then one epoch tries the other mode, and the mode whose rows took less time each, arrival to commit,
     * is kept. An epoch's first {@link GroupCommit#SETTLE_ROWS} rows are not measured: grouping takes a few round trips to
     * build up (writers released together come back together) and to relieve a queue, and a statement decided in
     * an earlier epoch is not counted at all. Then {@link GroupCommit#EPOCH_ROWS} rows are measured. A tried mode whose
     * measured rows take longer than the kept mode's took (with a quarter's grace) ends there and loses, so trying
     * a much worse mode costs little.
     *
     * <p>This is the only measure that tells the two regimes apart: where statements queue for CPU (the client's
     * or the server's), a group's saved work shortens every row's time by more than the leader's wait; where their
     * time is the network's, bare pgjdbc is already at writers per round trip, and a wait only adds to each row's
     * time. A statement's own duration cannot tell: on a saturated client it is as close to the quickest as on a
     * slow network (measured: 16 writers at 1 ms each way gained 1.21x from waiting with a CPU-bound client and
     * lost 0.93x without one; in both, statements took less than twice the quickest, so the rule this one replaced
     * turned grouping off in both).
     */
    void observe(int decidedIn, long rowNanos, int rows, long now) {
        if (decidedIn != epoch) {
            return;
        }
        if (settling > 0) {
            settling -= rows;
            if (settling <= 0) {
                epochStart = now; // measured from here
            }
            return;
        }
        epochRows += rows;
        epochNanos += rowNanos;
        long elapsed = now - epochStart;
        if (exploring) {
            boolean overBudget = elapsed > keptDuration * 5 / 4;
            if (epochRows < EPOCH_ROWS && !overBudget) {
                return;
            }
            if (overBudget || epochNanos / epochRows >= keptMean) {
                waiting = !waiting; // back to the kept mode
            }
            exploring = false;
            keptEpochs = 0;
        } else {
            if (epochRows < EPOCH_ROWS) {
                return;
            }
            keptMean = epochNanos / epochRows;
            keptDuration = elapsed;
            if (++keptEpochs >= EXPLORE_EVERY) {
                exploring = true;
                waiting = !waiting;
            }
        }
        epoch++;
        settling = SETTLE_ROWS;
        epochRows = 0;
        epochNanos = 0;
    }
}
