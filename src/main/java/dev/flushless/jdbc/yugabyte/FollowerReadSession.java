package dev.flushless.jdbc.yugabyte;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * Follower reads' read-your-writes for one connection, as the engine sees it: notes the connection's writes on its
 * database's {@link FollowerReadClock} and, on a read-only connection with {@code flushless.followerReads}, lets
 * {@link FollowerReads} choose between followers and leaders. What counts as a write: on a connection that is not
 * read-only, every commit, and every autocommit statement but a SELECT the analysis proves read-only
 * ({@link StatementDescription#provenReadOnlyForReplica}).
 */
public final class FollowerReadSession {

    private final Connection pgjdbc;
    private final SqlAnalyzer analyzer;
    private final FollowerReadClock.Writer writes;
    /** {@code flushless.followerReads} on YugabyteDB, {@code null} when off or ignored. */
    private final FollowerReads followerReads;

    private FollowerReadSession(
            Connection pgjdbc, SqlAnalyzer analyzer, FollowerReadClock.Writer writes, FollowerReads followerReads) {
        this.pgjdbc = pgjdbc;
        this.analyzer = analyzer;
        this.writes = writes;
        this.followerReads = followerReads;
    }

    /**
     * The session of a new connection, or {@code null} when nothing is kept: on YugabyteDB every connection notes its
     * writes, whether or not it reads from followers (a write pool may not); so does a connection configured for
     * follower reads on PostgreSQL (where they are ignored), which lets tests see the hooks.
     */
    public static FollowerReadSession forConnection(
            Connection pgjdbc, FlushlessConfig config, ServerFacts server, FlushlessStats stats, SqlAnalyzer analyzer) {
        int stalenessMs = config.followerReadsStalenessMs();
        if (!server.yugabyte() && stalenessMs <= 0) {
            return null;
        }
        FollowerReadClock clock = FollowerReadClock.of(pgjdbc);
        FollowerReads followerReads =
                FollowerReads.forConnection(stalenessMs, server, config.readYourWrites() ? clock : null, stats);
        return new FollowerReadSession(pgjdbc, analyzer, clock.writer(), followerReads);
    }

    /** Follower reads, or {@code null} when off or ignored. */
    public FollowerReads followerReads() {
        return followerReads;
    }

    /**
     * A statement of {@code kind} ({@code sql}: its text, {@code null} for several) starts; {@code autoCommit}: the
     * application's setting.
     */
    public void statementStarting(StatementDescription.Kind kind, String sql, boolean autoCommit) throws SQLException {
        boolean readOnly = pgjdbc.isReadOnly();
        writes.starting(autoCommit && !readOnly && !provenRead(kind, sql));
        if (followerReads != null && readOnly) {
            followerReads.statementStarting(pgjdbc, autoCommit);
        }
    }

    private boolean provenRead(StatementDescription.Kind kind, String sql) {
        return kind == StatementDescription.Kind.SELECT
                && sql != null
                && analyzer.describe(sql).provenReadOnlyForReplica();
    }

    /** The application commits: on a connection that is not read-only that is a write until the commit returns. */
    public void commitStarting() throws SQLException {
        writes.starting(!pgjdbc.isReadOnly());
    }

    /** The application's transaction ended (or the connection was closed): a write it had running has ended. */
    public void transactionEnded() {
        writes.ended();
        if (followerReads != null) {
            followerReads.transactionEnded();
        }
    }

    /** A pool took the connection back ({@code clearWarnings}): a write it had running has ended. */
    public void idle() {
        writes.ended();
    }

    /** pgjdbc accepted {@code setReadOnly(readOnly)}: a write of the connection has ended; follower reads follow. */
    public void readOnlyChanged(boolean readOnly) throws SQLException {
        writes.ended();
        if (followerReads != null) {
            followerReads.readOnlyChanged(pgjdbc, readOnly);
        }
    }
}
