package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.batch.SessionFacts;
import dev.flushless.jdbc.batch.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code flushless.groupCommit=true}: concurrent single-row autocommit INSERTs of one SQL text, from connections
 * with the same database, user and session settings, run as one multi-row statement in one implicit
 * transaction, on the connection of the first of them (the MonetDB group-commit idea, in the driver).
 *
 * <p>One "lane" per session fingerprint and SQL text. The first INSERT to arrive at an idle lane leads: it runs
 * at once (a lone writer never waits) or, when the lane's previous group had several members, waits at most
 * {@code flushless.groupCommit.maxDelayMicros} for more. INSERTs arriving while a group runs queue up; when the
 * group is done, the first of them leads the next group with up to {@code maxRows} queued rows. Every caller
 * returns only after the statement holding its row committed.
 *
 * <p>Correctness rules: the grouped statement is count-checked in-statement and runs in one implicit
 * transaction, so it commits all rows or none. If it fails, every member runs its own INSERT alone on its own
 * connection and gets exactly its own outcome (its row, or its own error with the server's SQLState). If the
 * leading connection is lost mid-statement, nobody can know whether the group committed: every member gets
 * an SQLState 08 error, as a caller of bare pgjdbc would for its own lost connection, and nothing is re-run
 * (which could insert a row twice).
 */
final class GroupCommit {

    /** The caller's own INSERT, run on its own connection as the application sent it. */
    @FunctionalInterface
    interface OwnInsert {
        long run() throws SQLException;
    }

    /** Rewrite kind under which grouped rows are counted. */
    static final String REWRITE_KIND = "group-commit";

    /** Fallback reason counted when a member re-runs alone after its group failed. */
    static final String RETRY_REASON = "group commit failed, re-run alone";

    private static final ConcurrentHashMap<String, Lane> LANES = new ConcurrentHashMap<>();

    private GroupCommit() {
    }

    /** One caller's INSERT. Fields after the constructor's are guarded by its lane's lock. */
    static final class Member {
        final WrappedConnection connection;
        final StatementDescription statement;
        final TableInfo table;
        final Bind[] row;
        final int queryTimeoutSeconds;
        boolean done;
        boolean alone;
        SQLException failure;
        List<Member> group;

        Member(WrappedConnection connection, StatementDescription statement, TableInfo table, Bind[] row,
                int queryTimeoutSeconds) {
            this.connection = connection;
            this.statement = statement;
            this.table = table;
            this.row = row;
            this.queryTimeoutSeconds = queryTimeoutSeconds;
        }
    }

    private static final class Lane {
        final ReentrantLock lock = new ReentrantLock();
        final Condition changed = lock.newCondition();
        final ArrayDeque<Member> waiting = new ArrayDeque<>();
        boolean running;
        int lastGroupSize;
    }

    /**
     * Runs {@code me}'s INSERT, grouped with concurrent ones when there are any, and returns its update count.
     * A group of one runs {@code own} while holding the lane (so that arrivals meanwhile form the next group);
     * after a failed group every member runs {@code own}.
     *
     * @throws SQLException the caller's own error, or (SQLState 08) the loss of the connection that ran its group
     */
    static long run(String laneKey, Member me, int maxRows, long maxDelayNanos, OwnInsert own) throws SQLException {
        long count = join(laneKey, me, maxRows, maxDelayNanos, own);
        if (count != RUN_ALONE) {
            return count;
        }
        me.connection.stats.retried(RETRY_REASON);
        return own.run();
    }

    /** {@link #join}'s answer when the caller's group failed and it must run its INSERT alone. */
    private static final long RUN_ALONE = Long.MIN_VALUE;

    private static long join(String laneKey, Member me, int maxRows, long maxDelayNanos, OwnInsert own)
            throws SQLException {
        Lane lane = LANES.computeIfAbsent(laneKey, k -> new Lane());
        List<Member> group;
        lane.lock.lock();
        try {
            if (lane.running) {
                lane.waiting.add(me);
                lane.changed.signalAll(); // a leader waiting for company
                while (!me.done && me.group == null) {
                    lane.changed.awaitUninterruptibly();
                }
                if (me.done) {
                    return outcome(me);
                }
                group = me.group;
            } else {
                lane.running = true;
                group = new ArrayList<>();
                group.add(me);
                if (maxDelayNanos > 0 && lane.lastGroupSize > 1) {
                    waitForCompany(lane, maxRows, maxDelayNanos);
                }
                drain(lane, group, maxRows);
            }
        } finally {
            lane.lock.unlock();
        }
        return lead(lane, me, group, maxRows, own);
    }

    /**
     * Waits at most {@code maxDelayNanos} for the group to reach the previous group's size (the lane's recent
     * concurrency): waiting longer would only delay the writers already in the group.
     */
    private static void waitForCompany(Lane lane, int maxRows, long maxDelayNanos) {
        long remaining = maxDelayNanos;
        int enough = Math.min(maxRows, lane.lastGroupSize);
        try {
            while (remaining > 0 && lane.waiting.size() + 1 < enough) {
                remaining = lane.changed.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop waiting; the INSERT itself still runs
        }
    }

    private static void drain(Lane lane, List<Member> group, int maxRows) {
        while (group.size() < maxRows && !lane.waiting.isEmpty()) {
            group.add(lane.waiting.poll());
        }
    }

    private static long outcome(Member member) throws SQLException {
        if (member.failure != null) {
            throw new SQLException(member.failure.getMessage(), member.failure.getSQLState(), member.failure);
        }
        return member.alone ? RUN_ALONE : 1;
    }

    /** Runs {@code group} on {@code me}'s connection, tells every member its outcome, hands the lane on. */
    private static long lead(Lane lane, Member me, List<Member> group, int maxRows, OwnInsert own)
            throws SQLException {
        boolean alone = true;
        SQLException lost = null;
        long ownCount = RUN_ALONE;
        try {
            if (group.size() == 1) {
                ownCount = own.run(); // its own error, if any, is the caller's, as without group commit
                alone = false;
            } else {
                alone = !runGroup(me, group);
            }
        } catch (SQLException e) {
            if (group.size() == 1) {
                throw e;
            }
            lost = new SQLException("Flushless group commit: the connection running a grouped INSERT was lost, so"
                    + " whether the row committed is unknown (as with bare pgjdbc when a connection drops during a"
                    + " statement): " + e.getMessage(), e.getSQLState() != null ? e.getSQLState() : "08006", e);
        } finally {
            lane.lock.lock();
            try {
                for (Member member : group) {
                    member.alone = alone;
                    member.failure = lost;
                    member.done = true;
                }
                lane.lastGroupSize = group.size();
                Member next = lane.waiting.poll();
                if (next == null) {
                    lane.running = false;
                } else {
                    List<Member> nextGroup = new ArrayList<>();
                    nextGroup.add(next);
                    drain(lane, nextGroup, maxRows);
                    next.group = nextGroup;
                }
                lane.changed.signalAll();
            } finally {
                lane.lock.unlock();
            }
        }
        return group.size() == 1 ? ownCount : outcome(me);
    }

    /**
     * One multi-row INSERT of every member's row, in one implicit transaction (autocommit, one execution):
     * true when it committed; false when it was rolled back (or could not be planned) and everyone runs alone.
     *
     * @throws SQLException when the connection failed so that the outcome is unknown
     */
    private static boolean runGroup(Member leader, List<Member> group) throws SQLException {
        WrappedConnection connection = leader.connection;
        List<Bind[]> rows = new ArrayList<>(group.size());
        for (Member member : group) {
            rows.add(member.row);
        }
        BatchPlan plan = BatchPlanner.plan(leader.statement, rows, leader.table, null, new BatchPlanner.Settings(
                Math.max(group.size(), connection.flushlessConfig().maxRowsPerStatement()),
                connection.flushlessConfig().trustTriggers(), SessionFacts.of(connection.delegate)));
        if (plan.isFallback() || plan.statements().size() != 1) {
            return false; // only one statement is one implicit transaction
        }
        long start = System.nanoTime();
        try {
            BatchExecutor.Outcome outcome = BatchExecutor.run(connection.delegate, plan, rows,
                    leader.statement.parameterCount(), leader.queryTimeoutSeconds);
            connection.stats.rewrite(REWRITE_KIND, rows.size(), 1, outcome.statementsSent(), outcome.roundTrips(),
                    System.nanoTime() - start);
            return true;
        } catch (BatchExecutor.Undone undone) {
            connection.catalog.clear();
            return false;
        }
    }

    /** Waits no longer than this for company (for tests and the property's unit). */
    static long nanos(int micros) {
        return TimeUnit.MICROSECONDS.toNanos(micros);
    }
}
