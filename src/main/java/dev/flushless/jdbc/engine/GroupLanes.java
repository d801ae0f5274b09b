package dev.flushless.jdbc.engine;

import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.group.GroupCommit;
import java.sql.SQLException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Route {@link Route#GROUP} of one {@link Engine}: a single-row autocommit INSERT joins the group-commit lane of its
 * SQL text under the connection's session fingerprint ({@link GroupCommit}), as a caller that runs its own statement
 * unless a group takes its row.
 */
final class GroupLanes {

    private final Engine engine;

    GroupLanes(Engine engine) {
        this.engine = engine;
    }

    /** Runs a {@link Route#GROUP} execution and returns its update count (see {@link Engine#run}). */
    long run(Engine.Decision decision, String sql, Bind[] row, int queryTimeoutSeconds, Attempt.AsSent<Long> asSent)
            throws SQLException {
        return GroupCommit.run(
                groupCommitLane(sql),
                new GroupCaller(decision, row, queryTimeoutSeconds, asSent),
                engine.config().groupCommitMaxRows(),
                GroupCommit.nanos(engine.config().groupCommitMaxDelayMicros()));
    }

    /** A group-committed INSERT of this connection: its own statement, and its row only if a group takes it. */
    private final class GroupCaller implements GroupCommit.Caller {
        private final Engine.Decision decision;
        private final Bind[] row;
        private final int queryTimeoutSeconds;
        private final Attempt.AsSent<Long> asSent;

        GroupCaller(Engine.Decision decision, Bind[] row, int queryTimeoutSeconds, Attempt.AsSent<Long> asSent) {
            this.decision = decision;
            this.row = row;
            this.queryTimeoutSeconds = queryTimeoutSeconds;
            this.asSent = asSent;
        }

        @Override
        public long runOwn() throws SQLException {
            engine.stats().executed(true);
            return asSent.run();
        }

        @Override
        public void waitUnpaid() {
            engine.stats().noted(FallbackReason.GROUP_WAIT_UNPAID.get(), 1);
        }

        @Override
        public GroupCommit.Member member() {
            return new GroupCommit.Member(
                    engine, decision.statement(), decision.table(), Engine.kept(row), queryTimeoutSeconds);
        }
    }

    /** Group-commit lanes by SQL text for one session fingerprint (replaced when the fingerprint changes). */
    private record Lanes(String fingerprint, ConcurrentHashMap<String, GroupCommit.Lane> bySql) {}

    private volatile Lanes lanes;

    /**
     * The group-commit lane of {@code sql} under this connection's session fingerprint, kept per connection so that an
     * execution does not build and hash the fingerprint-and-SQL key (a few hundred characters) again.
     */
    private GroupCommit.Lane groupCommitLane(String sql) throws SQLException {
        String fingerprint = engine.fingerprint();
        Lanes current = lanes;
        if (current == null
                || current.fingerprint() != fingerprint
                || current.bySql().size() >= 256) {
            current = new Lanes(fingerprint, new ConcurrentHashMap<>());
            lanes = current;
        }
        GroupCommit.Lane lane = current.bySql().get(sql);
        if (lane == null) {
            lane = GroupCommit.lane(fingerprint + '\u0000' + sql);
            current.bySql().put(sql, lane);
        }
        return lane;
    }
}
