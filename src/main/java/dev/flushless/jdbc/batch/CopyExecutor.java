package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Errors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.copy.CopyIn;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * Runs a {@link CopyForm} on the pgjdbc connection, always inside a transaction, so that a failure is undone and the
 * batch re-run as sent (bare pgjdbc's error and counts), as {@link BatchExecutor} does for the INSERT forms:
 * <ol>
 *   <li>one round trip: in autocommit a transaction of its own (pgjdbc's BEGIN rides along), inside a transaction with
 *       earlier work the guard savepoint; then {@code LOCK TABLE ONLY t IN ROW EXCLUSIVE MODE}, the lock the INSERT
 *       takes first, and a check that the table's catalog facts the COPY form rests on still hold ({@link #check}): the
 *       same table behind the name, no trigger, rule or row-level security, and the columns with the types the form
 *       was built for, none of them GENERATED ALWAYS or generated. DDL
 *       that could change them needs a lock that conflicts with the one now held, so the facts hold until the
 *       transaction ends, where facts cached for up to {@code flushless.catalogCacheSeconds} might not;</li>
 *   <li>two round trips: COPY (pgjdbc waits for the server's CopyInResponse before it sends the rows); its count must
 *       be the batch's rows;</li>
 *   <li>in autocommit the COMMIT, inside a guarded transaction the guard's RELEASE (one round trip each).</li>
 * </ol>
 * Any failure but a lost connection or an error under contention ({@link Errors#isContention}, raised as it is, the
 * transaction aborted as bare pgjdbc's statement would have left it) is undone: the guard rolled back to, or the
 * transaction this run began rolled back. A changed table or count is undone the same way, with an error that names it
 * (and drops the table's facts, {@link Attempt#staleFacts}).
 */
public final class CopyExecutor {

    /** Marks the error of a check or count that found the table changed since its facts were read. */
    public static final String STALE_MARKER = "flushless: the table changed since its catalog facts were read";

    /**
     * True when the table, named as the INSERT names it, is still the one whose facts were read (parameters: its OID,
     * the name, the columns' names and type OIDs) and nothing the COPY form rests on changed: no rule (COPY ignores
     * rules), no user trigger, no row-level security, and each column still there with its type, not an identity column
     * GENERATED ALWAYS nor (PostgreSQL 12+, {@code generated}) a generated column. One index probe per catalog: about a
     * tenth of a millisecond of server time. A trigger or partition added under the table's children fires or routes
     * as it would for the INSERT (the count checks what a row trigger could skip).
     */
    static String check(boolean generated) {
        return "SELECT coalesce(to_regclass(?) = c.oid, false) AND NOT c.relhasrules AND NOT c.relrowsecurity"
                + " AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = c.oid"
                + "   AND NOT tg.tgisinternal)"
                + " AND NOT EXISTS (SELECT 1 FROM unnest(CAST(? AS text[]), CAST(? AS int[])) u(name, type)"
                + "   LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attname = u.name"
                + "   AND a.attnum > 0 AND NOT a.attisdropped"
                + "   WHERE a.atttypid IS DISTINCT FROM u.type::oid OR a.attidentity = 'a'"
                + (generated ? " OR a.attgenerated <> ''" : "")
                + ") FROM pg_catalog.pg_class c WHERE c.oid = CAST(? AS bigint)::oid";
    }

    /** The savepoint that guards a COPY inside a transaction with earlier work. */
    static final String GUARD = BatchExecutor.GUARD_SAVEPOINT;

    private static final int CHUNK = 65536;

    private CopyExecutor() {}

    /** Round trips of a COPY run: see the class comment. Pure; the rule, the driver's counters and explain use it. */
    public static int roundTrips(boolean autocommit, boolean guarded) {
        return autocommit || guarded ? 4 : 3;
    }

    /** Statements a COPY run sends besides transaction control: the lock, the check and COPY, and the guard's two. */
    public static int statementsSent(boolean guarded) {
        return guarded ? 5 : 3;
    }

    /** Whether a COPY on {@code connection} now runs guarded: a transaction is open and has begun its work. */
    public static boolean guarded(Connection connection) throws SQLException {
        return !connection.getAutoCommit()
                && connection.unwrap(BaseConnection.class).getTransactionState() != TransactionState.IDLE;
    }

    /**
     * Runs {@code copy}, recording the COPY's first round trip in {@code clock}; the outcome counts one per row.
     *
     * @throws BatchExecutor.Undone when it failed and was undone
     */
    public static BatchExecutor.Outcome run(Connection connection, CopyForm copy, RoundTripTime clock)
            throws SQLException, BatchExecutor.Undone {
        boolean autocommit = connection.getAutoCommit();
        boolean guarded = guarded(connection);
        if (autocommit) {
            connection.setAutoCommit(false);
        }
        try {
            if (!lockAndCheck(connection, copy, guarded)) {
                throw stale("its triggers, rules, row-level security, partitions or the columns' types changed");
            }
            long copied = copy(connection.unwrap(BaseConnection.class), copy, clock);
            if (copied != copy.rows()) {
                throw stale("COPY stored " + copied + " rows of " + copy.rows());
            }
            if (autocommit) {
                connection.commit();
                connection.setAutoCommit(true);
            } else if (guarded) {
                try (Statement release = connection.createStatement()) {
                    release.execute("RELEASE SAVEPOINT " + GUARD);
                }
            }
        } catch (SQLException e) {
            throw undone(connection, e, autocommit, guarded);
        }
        long[] counts = new long[copy.rows()];
        java.util.Arrays.fill(counts, 1);
        return new BatchExecutor.Outcome(
                counts, List.of(), List.of(), statementsSent(guarded), roundTrips(autocommit, guarded));
    }

    private static boolean lockAndCheck(Connection connection, CopyForm copy, boolean guarded) throws SQLException {
        boolean generated =
                connection.unwrap(BaseConnection.class).haveMinimumServerVersion(org.postgresql.core.ServerVersion.v12);
        String text = (guarded ? "SAVEPOINT " + GUARD + ";\n" : "") + "LOCK TABLE ONLY " + copy.table()
                + " IN ROW EXCLUSIVE MODE;\n" + check(generated);
        try (PreparedStatement check = connection.prepareStatement(text)) {
            check.setString(1, copy.table());
            check.setArray(2, connection.createArrayOf("text", copy.columns().toArray()));
            Integer[] types = new Integer[copy.columnTypes().length];
            for (int i = 0; i < types.length; i++) {
                types[i] = copy.columnTypes()[i];
            }
            check.setArray(3, connection.createArrayOf("int4", types));
            check.setLong(4, copy.tableOid());
            check.execute();
            while (check.getResultSet() == null) { // past SAVEPOINT and LOCK
                check.getMoreResults();
            }
            try (ResultSet rs = check.getResultSet()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static long copy(BaseConnection pg, CopyForm copy, RoundTripTime clock) throws SQLException {
        long start = System.nanoTime();
        CopyIn in = pg.getCopyAPI().copyIn(copy.sql());
        clock.record(System.nanoTime() - start);
        try {
            byte[] data = copy.data();
            for (int offset = 0; offset < data.length; offset += CHUNK) {
                in.writeToCopy(data, offset, Math.min(CHUNK, data.length - offset));
            }
            return in.endCopy();
        } finally {
            if (in.isActive()) {
                in.cancelCopy(); // only after a failure on this side: the server then ends the COPY with an error
            }
        }
    }

    private static SQLException stale(String what) {
        return new PSQLException(
                STALE_MARKER + " (" + what + "); the batch runs as sent, and the facts are read again",
                PSQLState.OBJECT_NOT_IN_STATE);
    }

    /** As {@link BatchExecutor}'s undo: throws what cannot be undone, else undoes and returns the Undone to throw. */
    private static BatchExecutor.Undone undone(
            Connection connection, SQLException e, boolean autocommit, boolean guarded) throws SQLException {
        if (Errors.isConnectionException(e.getSQLState())) {
            throw e; // the connection is gone: nothing to undo, nothing to re-run
        }
        try {
            if (Errors.isContention(e.getSQLState())) {
                if (autocommit) {
                    connection.rollback(); // only what this run began
                    connection.setAutoCommit(true);
                }
                throw e;
            }
            if (guarded) {
                try (Statement rollback = connection.createStatement()) {
                    rollback.execute("ROLLBACK TO SAVEPOINT " + GUARD);
                }
            } else {
                connection.rollback(); // the transaction began with this run: nothing else is in it
                if (autocommit) {
                    connection.setAutoCommit(true);
                }
            }
        } catch (SQLException undo) {
            if (undo != e) {
                e.setNextException(undo);
            }
            throw e;
        }
        return new BatchExecutor.Undone(e, guarded);
    }
}
