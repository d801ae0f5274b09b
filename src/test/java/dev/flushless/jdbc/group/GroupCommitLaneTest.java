package dev.flushless.jdbc.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The lane's measured choice whether leaders wait for company ({@link GroupCommit.Lane#observe}), without a server:
 * epochs of one mode, then one of the other, and the mode whose rows took less time from arrival to commit is kept;
 * and a lone writer's path.
 */
class GroupCommitLaneTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    /**
     * {@code rows} single-row statements of the current epoch on {@code lane}, each taking {@code nanosPerRow} from
     * arrival to commit, one every {@code every} ns after {@code now}; returns when the last committed.
     */
    private static long rows(GroupCommit.Lane lane, int rows, long nanosPerRow, long every, long now) {
        for (int i = 0; i < rows; i++) {
            now += every;
            lane.observe(lane.epoch(), nanosPerRow, 1, now);
        }
        return now;
    }

    /**
     * One whole epoch: its settling rows, which take 100 ms each and must not count, then its measured rows of
     * {@code nanosPerRow} each, one every {@code every} ns.
     */
    private static long epoch(GroupCommit.Lane lane, long nanosPerRow, long every, long now) {
        now = rows(lane, GroupCommit.SETTLE_ROWS, 100 * MS, every, now);
        return rows(lane, GroupCommit.EPOCH_ROWS, nanosPerRow, every, now);
    }

    @Test
    void aFreshLaneMayWait() {
        assertTrue(new GroupCommit.Lane().waiting(), "nothing measured yet: the company rules decide alone");
    }

    /** After its first epoch a lane tries the other mode: nothing else tells whether waiting pays. */
    @Test
    void theFirstEpochIsFollowedByTheOtherMode() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = rows(lane, GroupCommit.SETTLE_ROWS + GroupCommit.EPOCH_ROWS - 1, 2 * MS, MS / 8, 0);
        assertTrue(lane.waiting());
        rows(lane, 1, 2 * MS, MS / 8, now);
        assertFalse(lane.waiting(), "trying: leaders never wait");
    }

    /** The tried mode's rows took less time each (its slow settling rows do not count): it is kept. */
    @Test
    void aQuickerModeIsKept() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = epoch(lane, 3 * MS, MS / 8, 0); // waiting: 3 ms per row
        now = epoch(lane, 2 * MS, MS / 8, now); // not waiting: 2 ms
        assertFalse(lane.waiting(), "not waiting was quicker");
        for (int i = 1; i < GroupCommit.EXPLORE_EVERY; i++) {
            now = epoch(lane, 2 * MS, MS / 8, now);
        }
        assertFalse(lane.waiting(), "kept until the next trying epoch");
        epoch(lane, 2 * MS, MS / 8, now);
        assertTrue(lane.waiting(), "then waiting is tried again");
    }

    /** The tried mode's rows took longer each: the lane goes back to the mode it had. */
    @Test
    void aSlowerModeIsLeft() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long now = epoch(lane, 2 * MS, MS / 8, 0); // waiting: 2 ms per row
        assertFalse(lane.waiting());
        epoch(lane, 3 * MS, MS / 8, now); // not waiting: 3 ms
        assertTrue(lane.waiting(), "waiting was quicker");
    }

    /**
     * A tried mode whose measured rows take longer than the kept mode's took (with a quarter's grace) ends there and
     * loses, whatever its few rows took: a much worse mode is tried only briefly.
     */
    @Test
    void aTriedModeThatRunsOverItsTimeLoses() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        long every = MS / 8;
        long now = epoch(lane, 2 * MS, every, 0); // 64 ms for the 512 measured rows
        assertFalse(lane.waiting());
        now = rows(lane, GroupCommit.SETTLE_ROWS, MS, every, now);
        now = rows(lane, 10, MS, 4 * every, now); // quick rows, but one every 0.5 ms: 5 ms for 10 rows
        assertFalse(lane.waiting(), "within the budget (80 ms)");
        lane.observe(lane.epoch(), MS, 1, now + 80 * MS);
        assertTrue(lane.waiting(), "over the budget: back to waiting");
    }

    /** Rows of a statement decided in an earlier epoch (the switch's transient) do not count. */
    @Test
    void rowsOfAnEarlierEpochDoNotCount() {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        int first = lane.epoch();
        long now = epoch(lane, 2 * MS, MS / 8, 0);
        for (int i = 0; i < 10 * GroupCommit.EPOCH_ROWS; i++) {
            lane.observe(first, 100 * MS, 1, now); // slow rows decided while waiting, committing now
        }
        assertFalse(lane.waiting(), "still trying not to wait");
        epoch(lane, MS, MS / 8, now);
        assertFalse(lane.waiting(), "not waiting was quicker");
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

            @Override
            public void waitUnpaid() {
                throw new AssertionError("nothing could have joined a lone writer");
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

    /**
     * In a lane that measured waiting slower, a writer that could have led a group (four statements of its lane
     * running) runs its own INSERT at once, and says so for the report ({@code group-wait-unpaid}).
     */
    @Test
    void aWriterRunsAtOnceWhereWaitingDoesNotPay() throws Exception {
        GroupCommit.Lane lane = new GroupCommit.Lane();
        epoch(lane, 2 * MS, MS / 8, 0); // first epoch over: now trying not to wait
        assertFalse(lane.waiting());
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(GroupCommit.MIN_COMPANY);
        ExecutorService pool = Executors.newFixedThreadPool(GroupCommit.MIN_COMPANY);
        try {
            List<Future<Long>> running = new ArrayList<>();
            for (int i = 0; i < GroupCommit.MIN_COMPANY; i++) {
                running.add(pool.submit(() -> GroupCommit.run(lane, blocking(started, release), 100, MS)));
            }
            started.await();
            assertEquals(GroupCommit.MIN_COMPANY, lane.running());
            AtomicInteger unpaid = new AtomicInteger();
            GroupCommit.Caller caller = new GroupCommit.Caller() {
                @Override
                public long runOwn() {
                    return 1;
                }

                @Override
                public GroupCommit.Member member() {
                    throw new AssertionError("grouped where waiting was measured slower");
                }

                @Override
                public void waitUnpaid() {
                    unpaid.incrementAndGet();
                }
            };
            assertEquals(1, GroupCommit.run(lane, caller, 100, MS));
            assertEquals(1, unpaid.get(), "counted as group-wait-unpaid");
            release.countDown();
            for (Future<Long> f : running) {
                assertEquals(1, f.get());
            }
        } finally {
            release.countDown();
            pool.shutdown();
        }
        assertEquals(0, lane.running());
    }

    /** A lone caller whose INSERT runs until {@code release}, after counting down {@code started}. */
    private static GroupCommit.Caller blocking(CountDownLatch started, CountDownLatch release) {
        return new GroupCommit.Caller() {
            @Override
            public long runOwn() throws SQLException {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    throw new SQLException(e);
                }
                return 1;
            }

            @Override
            public GroupCommit.Member member() {
                throw new AssertionError("the first writers run alone: nothing ran before them");
            }

            @Override
            public void waitUnpaid() {}
        };
    }
}
