package dev.flushless.jdbc.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The lane's queueing rule ({@link GroupCommit#QUEUEING_FACTOR}), without a server: a leader waits for company only
 * while the lane's statements take at least twice as long as its quickest recent one; and a lone writer's path.
 */
class GroupCommitLaneTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /** Runs one statement of {@code nanos} on {@code lane}, ending at {@code end}. */
    private static void statement(GroupCommit.Lane lane, long end, long nanos) {
        lane.started(end - nanos);
        lane.finished(end - nanos, end, true);
    }

    /** Ten 0.1 ms statements on {@code lane}, one per ms from 0; returns when the last ended. */
    private static long tenQuickStatements(GroupCommit.Lane lane) {
        long now = 0;
        for (int i = 0; i < 10; i++) {
            now += MS;
            statement(lane, now, MS / 10);
        }
        return now;
    }

    @Test
    void aFreshLaneMayWait() {
        assertTrue(new GroupCommit.Lane().queueing(0), "no statement timed yet: the earlier rules decide alone");
    }

    /** Statements as quick as the quickest: their time is the round trip, and waiting would only add to it. */
    @Test
    void statementsAtTheRoundTripDoNotQueue() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = 0;
        for (int i = 0; i < 100; i++) {
            now += 3 * MS;
            statement(lane, now, 2 * MS + (i % 3) * MS / 10); // 2.0-2.2 ms: 1 ms each way and a quick INSERT
        }
        assertFalse(lane.queueing(now));
    }

    /** Statements that take twice the quickest or more wait for CPU (or a lock); a group relieves that. */
    @Test
    void slowerStatementsQueue() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = tenQuickStatements(lane);
        assertFalse(lane.queueing(now));
        for (int i = 0; i < 40; i++) {
            now += MS;
            statement(lane, now, MS / 2); // five times the quickest: the running mean follows within tens
        }
        assertTrue(lane.queueing(now));
    }

    /** Statements still running count with their age so far: held by a lock, they queue before any ends. */
    @Test
    void longRunningStatementsQueueBeforeTheyEnd() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = tenQuickStatements(lane);
        lane.started(now);
        lane.started(now);
        assertFalse(lane.queueing(now + MS / 10), "running for as long as the quickest took");
        assertTrue(lane.queueing(now + MS), "running ten times as long as the quickest took");
        lane.finished(now, now + MS, false); // a failed statement's time does not count
        lane.finished(now, now + MS, false);
        assertFalse(lane.queueing(now + MS));
    }

    /** The quickest is forgotten after two windows, so a lane follows a network that became slower. */
    @Test
    void theFloorFollowsASlowerNetwork() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = tenQuickStatements(lane);
        for (int i = 0; i < 2 * GroupCommit.TIMING_WINDOW; i++) {
            now += 3 * MS;
            statement(lane, now, 2 * MS);
        }
        assertFalse(lane.queueing(now), "2 ms statements on what is now a 2 ms network");
    }

    /** A caller whose own INSERT answers {@code count} (or throws {@code error}) and that must never be grouped. */
    private static GroupCommit.Caller lone(long count, SQLException error) {
        return new GroupCommit.Caller() {
            @Override
            public long runOwn() throws SQLException {
                if (error != null) {
                    throw error;
                }
                return count;
            }

            @Override
            public GroupCommit.Member member() {
                throw new AssertionError("a lone writer's row was taken for a group");
            }
        };
    }

    /** With nothing else running, a writer runs its own INSERT without forming a group (its row is never copied). */
    @Test
    void aLoneWriterFormsNoGroup() throws SQLException {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        for (int i = 0; i < 3; i++) {
            assertEquals(1, GroupCommit.run(lane, lone(1, null), 100, GroupCommit.nanos(200)));
        }
        assertEquals(0, lane.running(), "none still counted running");
    }

    /** A lone writer's error is its own, as with bare pgjdbc, and the lane does not count its statement running. */
    @Test
    void aLoneWritersErrorIsItsOwn() throws SQLException {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        SQLException own = new SQLException("duplicate key", "23505");
        assertSame(own, assertThrows(SQLException.class, () -> GroupCommit.run(lane, lone(1, own), 100, 1)));
        assertEquals(0, lane.running(), "the failed statement is not counted running");
        assertEquals(1, GroupCommit.run(lane, lone(1, null), 100, GroupCommit.nanos(200)));
    }
}
