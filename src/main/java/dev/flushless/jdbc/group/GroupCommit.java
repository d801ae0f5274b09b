package dev.flushless.jdbc.group;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * {@code flushless.groupCommit=true}: concurrent single-row autocommit INSERTs of one SQL text, from connections
 * with the same database, user and session settings, run as one multi-row statement in one implicit
 * transaction, on the connection of the first of them (the MonetDB group-commit idea, in the driver).
 *
 * <p>One {@link Lane} per session fingerprint and SQL text. A lane has at most one <em>forming</em> group and
 * any number of <em>running</em> ones (at most one per writer, since each runs on its own leader's connection).
 * An INSERT arriving while a group forms joins it; otherwise it leads a new group, so a writer never waits for
 * a running group to finish. A leader waits for company only while it can come soon, the wait leaves nothing
 * idle (see {@link #waitForCompany}) and its lane measured that waiting shortens its rows' time (see
 * {@link WaitChoice#observe}); a lone writer never waits. Every caller returns only after the
 * statement holding its row committed.
 *
 * <p>Correctness rules: the grouped statement is count-checked in-statement and runs in one implicit
 * transaction, so it commits all rows or none. If it fails, every member runs its own INSERT alone on its own
 * connection and gets exactly its own outcome (its row, or its own error with the server's SQLState). If the
 * leading connection is lost mid-statement, nobody can know whether the group committed: every member gets
 * an SQLState 08 error, as a caller of bare pgjdbc would for its own lost connection, and nothing is re-run
 * (which could insert a row twice).
 */
public final class GroupCommit {

    /**
     * One caller's INSERT, as group commit needs it: the statement itself, and its row for a group, which is made only
     * when the caller joins a group or leads one that waits for company (a lone writer allocates nothing for grouping).
     */
    public interface Caller {
        /** The caller's own INSERT, run on its own connection as the application sent it. */
        long runOwn() throws SQLException;

        /** The caller's row for a group (called under the lane's lock, on the caller's thread: no I/O, no parsing). */
        Member member();

        /**
         * Called before {@link #runOwn()} when the caller could have led a group that waits for company, but its lane
         * measured that waiting does not pay (for the report's {@code group-wait-unpaid}).
         */
        void waitUnpaid();
    }

    /** Rewrite kind under which grouped rows are counted. */
    public static final String REWRITE_KIND = "group-commit";

    private static final ConcurrentHashMap<String, Lane> LANES = new ConcurrentHashMap<>();

    /**
     * A leader waits for company only when at least this many released writers are away, or this many statements of
     * its lane are running: a smaller group saves less client and server work than the wait costs (measured: at 4
     * writers, waiting made group commit slower than bare pgjdbc; at 16 it is where the gain comes from).
     */
    static final int MIN_COMPANY = 4;

    /**
     * Tests only (0: off): a leader waits, up to {@code maxDelayMicros}, until its group has this many members,
     * whatever the rules below say, so that a test can form a group of a known size.
     */
    static volatile int testGroupSize;

    /** Leaders that waited for company, driver-wide (for tests: a lone writer must never add to it). */
    static final LongAdder COMPANY_WAITS = new LongAdder();

    /** The most groups one lane had running at once, driver-wide (for tests). */
    static final AtomicInteger MOST_RUNNING = new AtomicInteger();

    private GroupCommit() {}

    /**
     * Most lanes kept driver-wide. Beyond it the map starts afresh: a lane is self-contained, so a connection that
     * still holds a dropped lane only groups with the connections that hold it too (correct, less grouped), and the
     * memory stays bounded when an application sends many distinct INSERT texts.
     */
    static final int MAX_LANES = 4096;

    /** The lane of {@code key} (session fingerprint and SQL text); look it up once and keep it. */
    public static Lane lane(String key) {
        if (LANES.size() >= MAX_LANES) {
            LANES.clear();
        }
        return LANES.computeIfAbsent(key, k -> new Lane());
    }

    /** Lanes kept driver-wide now (for tests). */
    static int laneCount() {
        return LANES.size();
    }

    /** One caller's INSERT. */
    public static final class Member {
        final Session session;
        final StatementDescription statement;
        final TableInfo table;
        final Bind[] row;
        final int queryTimeoutSeconds;
        final Thread thread = Thread.currentThread();
        /** When the caller's INSERT reached group commit ({@code System.nanoTime()}; set under the lane's lock). */
        long arrived;

        public Member(
                Session session, StatementDescription statement, TableInfo table, Bind[] row, int queryTimeoutSeconds) {
            this.session = session;
            this.statement = statement;
            this.table = table;
            this.row = row;
            this.queryTimeoutSeconds = queryTimeoutSeconds;
        }
    }

    /** How a group ended, for its members. */
    private enum Outcome {
        COMMITTED,
        RUN_ALONE,
        LOST
    }

    /** One group: members join while it forms, then its leader (the first member) runs it on its connection. */
    private static final class Group {
        /** Guarded by the lane's lock; the leader adds no one after it stopped forming. */
        final List<Member> members = new ArrayList<>();
        /** The leader waits on it for company; signalled only when the wait should end. */
        final Condition company;
        /**
         * Guarded by the lane's lock: the leader waits for the arrivals of a crowded lane (see {@link
         * #waitForCompany}), not only for the writers released earlier, so their return does not end the wait.
         */
        boolean crowded;
        /** The lane's epoch when its leader formed it: its rows' times count towards that epoch only. */
        int epoch;
        /** Written once by the leader after the statement, then every member is unparked. */
        volatile Outcome outcome;

        SQLException lost;

        Group(Condition company, Member leader) {
            this.company = company;
            members.add(leader);
        }
    }

    /** The groups of one session fingerprint and SQL text. Fields are guarded by {@link #lock}. */
    public static final class Lane {
        private final ReentrantLock lock = new ReentrantLock();
        /** The group taking members, or null: the next arrival leads a new one. */
        private Group forming;
        /** Groups running (their statement sent, members not yet told). */
        private int running;
        /**
         * Writers this lane's groups released that have not come back yet: the company a leader can expect
         * soon. Anonymous (any arrival takes one off), so it errs towards waiting less.
         */
        private int away;
        /** Whether leaders of this lane may wait for company now, chosen by measurement. */
        private final WaitChoice choice = new WaitChoice();

        /** Statements of this lane running now (for tests). */
        int running() {
            lock.lock();
            try {
                return running;
            } finally {
                lock.unlock();
            }
        }

        /** The current epoch (for tests, which call {@link #observe} on one thread). */
        int epoch() {
            return choice.epoch();
        }

        /** Whether leaders may wait for company now (for tests). */
        boolean waiting() {
            lock.lock();
            try {
                return choice.waiting();
            } finally {
                lock.unlock();
            }
        }

        /**
         * {@code rows} rows of a statement decided in epoch {@code decidedIn} committed at {@code now}, having taken
         * {@code rowNanos} in all from their callers' arrival (see {@link WaitChoice#observe}). Under {@link #lock}.
         */
        void observe(int decidedIn, long rowNanos, int rows, long now) {
            choice.observe(decidedIn, rowNanos, rows, now);
        }
    }

    /** Rows an epoch lets pass before it measures (see {@link WaitChoice#observe}). */
    static final int SETTLE_ROWS = 128;

    /** Rows an epoch measures (see {@link WaitChoice#observe}). */
    static final int EPOCH_ROWS = 512;

    /** Kept epochs between two exploring ones: about one row in 17 runs in the mode not kept. */
    static final int EXPLORE_EVERY = 16;

    /**
     * Runs {@code caller}'s INSERT, grouped with concurrent ones when there are any, and returns its update count.
     * A group of one runs the caller's own statement; after a failed group every member runs its own.
     *
     * @throws SQLException the caller's own error, or (SQLState 08) the loss of the connection that ran its group
     */
    public static long run(Lane lane, Caller caller, int maxRows, long maxDelayNanos) throws SQLException {
        long arrived = System.nanoTime();
        Group group;
        Member me = null;
        int loneEpoch = 0;
        boolean waitUnpaid = false;
        lane.lock.lock();
        try {
            if (lane.away > 0) {
                lane.away--;
            }
            group = lane.forming;
            boolean canCome = group == null && companyCanCome(lane, maxDelayNanos);
            if (group != null) {
                me = caller.member();
                me.arrived = arrived;
                group.members.add(me);
                if (group.members.size() >= maxRows) {
                    lane.forming = null; // full: the next arrival leads a new group
                }
                if (group.members.size() >= maxRows
                        || lane.away == 0 && !group.crowded
                        || testGroupSize > 0 && group.members.size() >= testGroupSize) {
                    group.company.signal(); // the leader need not wait longer
                }
            } else if (canCome && (lane.choice.waiting() || testGroupSize > 0)) {
                me = caller.member();
                me.arrived = arrived;
                group = new Group(lane.lock.newCondition(), me);
                group.epoch = lane.choice.epoch();
                lane.forming = group;
                waitForCompany(lane, group, maxRows, maxDelayNanos);
                if (lane.forming == group) {
                    lane.forming = null;
                }
                lane.running++;
                noteRunning(lane.running);
            } else {
                // the common case: nobody to group with (or waiting does not pay here); no group is formed, since
                // nothing could join it (the lock is held)
                waitUnpaid = canCome; // company could have come, but the lane measured that waiting does not pay
                loneEpoch = lane.choice.epoch();
                lane.running++;
                noteRunning(lane.running);
            }
        } finally {
            lane.lock.unlock();
        }
        if (group == null) {
            if (waitUnpaid) {
                caller.waitUnpaid();
            }
            return alone(lane, loneEpoch, arrived, caller);
        }
        if (group.members.get(0) != me) {
            return asMember(group, me, caller);
        }
        return lead(lane, group, caller);
    }

    /** Records {@code running} in {@link #MOST_RUNNING}; writes the shared counter only when it grows. */
    private static void noteRunning(int running) {
        if (running > MOST_RUNNING.get()) {
            MOST_RUNNING.accumulateAndGet(running, Math::max);
        }
    }

    /** A lone writer's INSERT, as sent: its outcome is its own, and the lane times it like any other statement. */
    private static long alone(Lane lane, int epoch, long arrived, Caller caller) throws SQLException {
        boolean committed = false;
        try {
            long count = caller.runOwn();
            committed = true;
            return count;
        } finally {
            long now = System.nanoTime();
            release(lane, epoch, committed ? now - arrived : 0, committed ? 1 : 0, 1, now);
        }
    }

    /**
     * Whether a new leader may wait for company (see {@link #waitForCompany}): only while another statement of the lane
     * runs (so the wait idles neither the server nor the network) and company can come soon. It waits only if the lane
     * also measured that waiting pays ({@link WaitChoice#observe}). Under the lane's lock.
     */
    private static boolean companyCanCome(Lane lane, long maxDelayNanos) {
        if (testGroupSize > 0) {
            return true;
        }
        if (maxDelayNanos <= 0 || lane.running == 0) {
            return false;
        }
        return lane.running >= MIN_COMPANY || lane.away >= MIN_COMPANY;
    }

    /**
     * The leader's wait for company, at most {@code maxDelayNanos}, only while another group of the lane is running
     * (so the wait idles neither the server nor the network) and until the group is full. Company can come two ways:
     * <ul>
     *   <li>writers that the lane's groups released are away, at least {@link #MIN_COMPANY} of them: they can come
     *       back soon, and the wait ends when the last has (a lone writer's own return takes the last one off, so a
     *       lone writer never waits). A wait that ends at {@code maxDelayNanos} without anyone joining forgets the
     *       writers still away: they went elsewhere (another statement, or done), and later leaders should not wait
     *       for them;</li>
     *   <li>at least {@link #MIN_COMPANY} statements of the lane are running ({@code crowded}): many writers are
     *       busy, and their next INSERTs arrive while the leader waits, which then lasts until {@code maxDelayNanos}
     *       (or the group is full, or nothing runs any more). Without this rule a lane whose writers all run alone
     *       stays so: nobody is released in groups, so nobody is away, so nobody waits (seen: 64 writers fell from
     *       45,000 to 10,000 rows/s for seconds at a time).</li>
     * </ul>
     * Either way only while the lane's measurements say that waiting shortens its rows' time ({@link WaitChoice#observe}):
     * when their time is the network's, waiting costs every member its wait and saves nothing. Called only when
     * {@link #companyCanCome} and the lane's measurement said so.
     */
    private static void waitForCompany(Lane lane, Group group, int maxRows, long maxDelayNanos) {
        if (testGroupSize > 0) {
            waitForTestGroup(group, maxDelayNanos);
            return;
        }
        group.crowded = lane.running >= MIN_COMPANY;
        COMPANY_WAITS.increment();
        long remaining = maxDelayNanos;
        try {
            while ((group.crowded || lane.away > 0)
                    && lane.running > 0
                    && group.members.size() < maxRows
                    && remaining > 0) {
                remaining = group.company.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // stop waiting; the INSERT itself still runs
            return;
        }
        if (remaining <= 0 && group.members.size() == 1) {
            lane.away = 0;
        }
    }

    private static void waitForTestGroup(Group group, long maxDelayNanos) {
        long remaining = maxDelayNanos;
        try {
            while (group.members.size() < testGroupSize && remaining > 0) {
                remaining = group.company.awaitNanos(remaining);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** A member's side: parks until its leader has told the group's outcome, then acts on it. */
    private static long asMember(Group group, Member me, Caller caller) throws SQLException {
        boolean interrupted = false;
        while (group.outcome == null) {
            LockSupport.park(group);
            interrupted |= Thread.interrupted(); // keep waiting: the row is in a statement that may commit
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        switch (group.outcome) {
            case COMMITTED:
                return 1;
            case RUN_ALONE:
                me.session.stats().retried(dev.flushless.jdbc.FallbackReason.GROUP_FAILED.get());
                return caller.runOwn();
            default:
                throw Errors.keepingState(group.lost.getMessage(), group.lost);
        }
    }

    /**
     * The leader's side: runs {@code group} on its connection (a group of one as the caller's own statement),
     * hands its members back to the lane as writers that may come again, and tells them the outcome.
     */
    private static long lead(Lane lane, Group group, Caller caller) throws SQLException {
        List<Member> members = group.members;
        Member me = members.get(0);
        Outcome outcome = Outcome.RUN_ALONE;
        long ownCount = 0;
        try {
            if (members.size() == 1) {
                ownCount = caller.runOwn(); // its own error, if any, is the caller's, as without group commit
                outcome = Outcome.COMMITTED;
            } else if (runGroup(me, members)) {
                outcome = Outcome.COMMITTED;
            }
        } catch (SQLException e) {
            if (members.size() == 1) {
                throw e;
            }
            outcome = Outcome.LOST;
            group.lost = Errors.connectionLost(
                    "Flushless group commit: the connection running a grouped INSERT was"
                            + " lost, so whether the row committed is unknown (as with bare pgjdbc when a connection drops"
                            + " during a statement): " + e.getMessage(),
                    e);
        } finally {
            finish(lane, group, outcome);
        }
        if (members.size() == 1) {
            return ownCount;
        }
        if (outcome == Outcome.COMMITTED) {
            return 1;
        }
        if (outcome == Outcome.RUN_ALONE) {
            me.session.stats().retried(dev.flushless.jdbc.FallbackReason.GROUP_FAILED.get());
            return caller.runOwn();
        }
        throw Errors.keepingState(group.lost.getMessage(), group.lost);
    }

    /**
     * Ends {@code group}'s run: the lane records its statement's time, its members count as away (they may come back
     * soon), then each is woken once.
     */
    private static void finish(Lane lane, Group group, Outcome outcome) {
        long now = System.nanoTime();
        long rowNanos = 0;
        boolean committed = outcome == Outcome.COMMITTED;
        if (committed) {
            for (Member member : group.members) {
                rowNanos += now - member.arrived;
            }
        }
        release(lane, group.epoch, rowNanos, committed ? group.members.size() : 0, group.members.size(), now);
        group.outcome = outcome;
        for (int i = 1; i < group.members.size(); i++) {
            LockSupport.unpark(group.members.get(i).thread);
        }
    }

    /**
     * A statement of the lane, decided in {@code epoch}, ended at {@code now}: the lane counts its {@code committed}
     * rows' time from arrival ({@code rowNanos}, see {@link WaitChoice#observe}), and its {@code writers} count as away (they
     * may come back soon).
     */
    private static void release(Lane lane, int epoch, long rowNanos, int committed, int writers, long now) {
        lane.lock.lock();
        try {
            lane.running--;
            if (committed > 0) {
                lane.observe(epoch, rowNanos, committed, now);
            }
            lane.away += writers;
            if (lane.running == 0 && lane.forming != null) {
                lane.forming.company.signal(); // nothing runs now: the forming group should not wait longer
            }
        } finally {
            lane.lock.unlock();
        }
    }

    /**
     * One multi-row INSERT of every member's row, in one implicit transaction (autocommit, one execution):
     * true when it committed; false when it was rolled back (or could not be planned) and everyone runs alone.
     *
     * @throws SQLException when the connection failed so that the outcome is unknown
     */
    private static boolean runGroup(Member leader, List<Member> group) throws SQLException {
        Session session = leader.session;
        List<Bind[]> rows = new ArrayList<>(group.size());
        for (Member member : group) {
            rows.add(member.row);
        }
        BatchPlan plan = BatchPlanner.plan(
                leader.statement,
                rows,
                leader.table,
                null,
                BatchPlanner.Settings.of(session.config(), session.sessionFacts())
                        .withMaxRowsPerStatement(
                                Math.max(group.size(), session.config().maxRowsPerStatement())));
        if (plan.isFallback() || plan.statements().size() != 1) {
            return false; // only one statement is one implicit transaction
        }
        long start = System.nanoTime();
        try {
            return runGroup(session, leader, plan, rows, start);
        } catch (SQLException e) {
            if (Errors.isContention(e.getSQLState())) {
                // The grouped statement is the driver's, its members independent autocommit INSERTs: a deadlock between
                // two groups' unique keys, or a timeout of the shared statement, is no member's own error. Its implicit
                // transaction rolled back; every member runs its own INSERT alone, as under bare pgjdbc.
                return false;
            }
            throw e;
        }
    }

    private static boolean runGroup(Session session, Member leader, BatchPlan plan, List<Bind[]> rows, long start)
            throws SQLException {
        return Attempt.run(
                session,
                () -> {
                    BatchExecutor.Outcome outcome = BatchExecutor.run(
                            session.delegate(),
                            plan,
                            rows,
                            leader.statement.parameterCount(),
                            leader.queryTimeoutSeconds);
                    session.stats()
                            .rewrite(
                                    REWRITE_KIND,
                                    rows.size(),
                                    1,
                                    outcome.statementsSent(),
                                    outcome.roundTrips(),
                                    System.nanoTime() - start);
                    return true;
                },
                undone -> false); // rolled back with its implicit transaction: every member runs its own INSERT alone
    }

    /** Waits no longer than this for company (for tests and the property's unit). */
    public static long nanos(int micros) {
        return TimeUnit.MICROSECONDS.toNanos(micros);
    }
}
