package dev.flushless.jdbc.replica;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The statement a replica read runs first, in the same round trip (one pgjdbc execution of several statements): it
 * waits on the replica, at most a bound, until the replica has replayed the position the read must see, and reports
 * whether the replica is still a standby, where its replay is and how long it waited. Pure SQL on PostgreSQL 10 and
 * later: a recursive CTE polls {@code pg_last_wal_replay_lsn()} (shared memory, no table, no lock) every half
 * millisecond; the position and the bound travel as bind parameters. The read that follows it in the same execution
 * takes its snapshot after the wait (READ COMMITTED), so it sees what was replayed.
 */
public final class WaitCheck {

    private WaitCheck() {}

    /** Parameters: 1 the position ({@code pg_lsn} text), 2 the bound in milliseconds. */
    public static final String SQL = "WITH RECURSIVE flushless_wait(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM"
            + " flushless_wait WHERE CASE WHEN NOT pg_catalog.pg_is_in_recovery() THEN false"
            + " WHEN pg_catalog.pg_last_wal_replay_lsn() >= CAST(? AS pg_catalog.pg_lsn) THEN false"
            + " WHEN pg_catalog.clock_timestamp() - pg_catalog.statement_timestamp()"
            + " >= CAST(? AS integer) * interval '1 millisecond' THEN false"
            + " ELSE CAST(pg_catalog.pg_sleep(0.0005) AS text) = '' END)"
            + " SELECT pg_catalog.pg_is_in_recovery(), CAST(pg_catalog.pg_last_wal_replay_lsn() AS text), w.n,"
            + " CAST(extract(epoch FROM pg_catalog.clock_timestamp() - pg_catalog.statement_timestamp()) * 1000000"
            + " AS bigint) FROM (SELECT max(n) AS n FROM flushless_wait) AS w";

    /** Bind parameters the check takes ahead of the read's own. */
    public static final int PARAMETERS = 2;

    /** Binds the check's parameters: the position the read must see ({@code floor}) and the bound. */
    static void bind(PreparedStatement ps, long floor, int maxWaitMs) throws SQLException {
        ps.setString(1, Lsn.format(floor));
        ps.setInt(2, maxWaitMs);
    }

    /** What the wait check reported. */
    record Result(boolean inRecovery, long replayed, long waitedNanos) {
        /** Runs the check alone on {@code c}. */
        static Result run(Connection c, long floor, int maxWaitMs) throws SQLException {
            try (PreparedStatement ps = c.prepareStatement(SQL)) {
                bind(ps, floor, maxWaitMs);
                try (ResultSet rs = ps.executeQuery()) {
                    return read(rs);
                }
            }
        }

        static Result read(ResultSet rs) throws SQLException {
            rs.next();
            boolean inRecovery = rs.getBoolean(1);
            long replayed = Lsn.parse(rs.getString(2));
            long iterations = rs.getLong(3);
            long micros = rs.getLong(4);
            return new Result(inRecovery, replayed, iterations > 0 ? micros * 1000 : 0);
        }

        boolean caughtUp(long floor) {
            return ReplicaDecision.caughtUp(inRecovery, replayed, floor);
        }
    }
}
