package dev.flushless.jdbc.session;

import dev.flushless.jdbc.Errors;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * Runs the driver's own catalog queries so that they hold no lock past themselves: the lock-neutrality rule
 * (docs/semantics.md) says Flushless never waits on a lock that bare pgjdbc's own statement would not wait on, and
 * never holds one longer.
 *
 * <p>Waiting is ruled out by the queries themselves: they read only system catalogs, and call no function that
 * opens a user table ({@code pg_get_expr} locks the relation it deparses, so it is never used). Holding is ruled out
 * here. A query run inside the application's open transaction keeps an {@code AccessShareLock} on every catalog it
 * read until that transaction ends (a {@code VACUUM FULL} or {@code LOCK} of a catalog would then wait for the
 * application's transaction, which bare pgjdbc never made it do). So:
 * <ul>
 *   <li>in autocommit, the query is its own implicit transaction (its locks end with it);</li>
 *   <li>with autocommit off but no transaction begun on the server yet (pgjdbc sends {@code BEGIN} only with the
 *       first statement), pgjdbc is put in autocommit for the query and back afterwards, which sends nothing, so
 *       the query does not begin the application's transaction either (nor take its snapshot early);</li>
 *   <li>inside an open transaction, the query runs between {@code SAVEPOINT} and {@code ROLLBACK TO SAVEPOINT},
 *       in the same round trip: PostgreSQL releases the locks a subtransaction took when it is rolled back.</li>
 * </ul>
 */
final class CatalogQuery {

    /** One query of a lookup: its SQL with exactly one parameter, and how its rows are read. */
    record Part(String sql, Object parameter, RowsReader reader) {}

    /** Reads one query's result set. */
    @FunctionalInterface
    interface RowsReader {
        void read(ResultSet rows) throws SQLException;
    }

    /** The savepoint that brackets a catalog query inside the application's transaction. */
    static final String SAVEPOINT = "flushless_catalog";

    private CatalogQuery() {}

    /** Runs {@code parts} through the pgjdbc connection {@code connection} in one round trip, holding no lock after. */
    static void run(Connection connection, List<Part> parts) throws SQLException {
        if (connection.getAutoCommit()) {
            execute(connection, parts, false);
            return;
        }
        TransactionState state = transactionState(connection);
        if (state == TransactionState.IDLE && !connection.isReadOnly()) {
            // Nothing begun on the server yet: pgjdbc's setAutoCommit sends nothing in this state (and read-only
            // connections are left alone, since pgjdbc may send SET SESSION there when autocommit changes).
            connection.setAutoCommit(true);
            try {
                execute(connection, parts, false);
            } finally {
                connection.setAutoCommit(false);
            }
            return;
        }
        // An open transaction (or a driver that does not tell its state, e.g. the YugabyteDB smart driver, a fork of
        // pgjdbc under other names): bracket the query with a savepoint rolled back at once. In a failed transaction
        // the query runs as it is and fails there, as any statement would.
        execute(connection, parts, state != TransactionState.FAILED);
    }

    /** How {@link #runThenCommit} ended. */
    enum AtCommit {
        /** Committed, and every part's rows were read. */
        READ,
        /** Committed, but a part's rows could not be read: the facts stay unread. */
        UNREAD,
        /** Not committed: a part failed and was undone (its locks released); the COMMIT is still to be sent. */
        NOT_COMMITTED
    }

    /**
     * Runs {@code parts} in the connection's open, healthy transaction and then its COMMIT, in one round trip:
     * {@code SAVEPOINT; parts; RELEASE SAVEPOINT; COMMIT}. The catalog locks the parts take end with that COMMIT, in the
     * same round trip, so they are held no longer than the application's own COMMIT takes (lock neutrality). A part
     * that fails leaves the transaction aborted: it is rolled back to the savepoint, which restores the transaction and
     * releases the part's locks, and the caller sends the COMMIT as pgjdbc does ({@link AtCommit#NOT_COMMITTED}; the
     * part's error is dropped, since the application asked for no catalog read). An error of the COMMIT itself (a
     * deferred constraint, a serialization failure) ends the transaction on the server and is thrown, with the
     * server's SQLState and message, as pgjdbc's {@code commit()} throws it.
     */
    static AtCommit runThenCommit(Connection connection, List<Part> parts) throws SQLException {
        StringBuilder sql = new StringBuilder("SAVEPOINT ").append(SAVEPOINT);
        for (Part part : parts) {
            sql.append(";\n").append(part.sql());
        }
        sql.append(";\nRELEASE SAVEPOINT ").append(SAVEPOINT).append(";\nCOMMIT");
        try (PreparedStatement ps = prepare(connection, sql, parts)) {
            try {
                ps.execute(); // SAVEPOINT: no rows
            } catch (SQLException e) {
                TransactionState state = transactionState(connection);
                if (isConnectionError(e) || state != TransactionState.FAILED) {
                    throw e; // the COMMIT ran and failed (the transaction is over), or the connection is gone
                }
                undo(connection, e);
                if (transactionState(connection) != TransactionState.OPEN) {
                    throw e; // the undo failed too: the transaction is aborted, as the error says
                }
                return AtCommit.NOT_COMMITTED;
            }
            // Everything ran, the COMMIT too: from here on only reading the rows can fail, which loses the facts only.
            try {
                for (Part part : parts) {
                    if (!ps.getMoreResults()) {
                        return AtCommit.UNREAD;
                    }
                    try (ResultSet rows = ps.getResultSet()) {
                        part.reader().read(rows);
                    }
                }
                return AtCommit.READ;
            } catch (SQLException | RuntimeException e) {
                return AtCommit.UNREAD;
            }
        }
    }

    private static TransactionState transactionState(Connection connection) {
        try {
            if (connection.isWrapperFor(BaseConnection.class)) {
                return connection.unwrap(BaseConnection.class).getTransactionState();
            }
        } catch (SQLException | RuntimeException e) {
            // not pgjdbc: the state is unknown
        }
        return null;
    }

    private static void execute(Connection connection, List<Part> parts, boolean bracketed) throws SQLException {
        StringBuilder sql = new StringBuilder();
        if (bracketed) {
            sql.append("SAVEPOINT ").append(SAVEPOINT).append(";\n");
        }
        for (int i = 0; i < parts.size(); i++) {
            sql.append(i > 0 ? ";\n" : "").append(parts.get(i).sql());
        }
        if (bracketed) {
            sql.append(";\nROLLBACK TO SAVEPOINT ")
                    .append(SAVEPOINT)
                    .append(";\nRELEASE SAVEPOINT ")
                    .append(SAVEPOINT);
        }
        try (PreparedStatement ps = prepare(connection, sql, parts)) {
            boolean isResultSet = ps.execute();
            if (bracketed) {
                isResultSet = ps.getMoreResults(); // past SAVEPOINT
            }
            for (Part part : parts) {
                if (!isResultSet) {
                    throw Errors.unexpected(
                            "Flushless: a catalog query returned no rows where a result set was expected");
                }
                try (ResultSet rows = ps.getResultSet()) {
                    part.reader().read(rows);
                }
                isResultSet = ps.getMoreResults();
            }
        } catch (SQLException e) {
            if (bracketed && !isConnectionError(e)) {
                undo(connection, e);
            }
            throw e;
        }
    }

    /** The statement of {@code sql}, the parts' texts, with each part's one parameter bound in order. */
    private static PreparedStatement prepare(Connection connection, CharSequence sql, List<Part> parts)
            throws SQLException {
        PreparedStatement ps = connection.prepareStatement(sql.toString());
        try {
            for (int i = 0; i < parts.size(); i++) {
                ps.setObject(i + 1, parts.get(i).parameter());
            }
            return ps;
        } catch (SQLException e) {
            ps.close();
            throw e;
        }
    }

    /** After a bracketed query failed: the transaction is back where it was before the query, then the error goes on. */
    private static void undo(Connection connection, SQLException cause) {
        try (Statement s = connection.createStatement()) {
            s.execute("ROLLBACK TO SAVEPOINT " + SAVEPOINT + ";\nRELEASE SAVEPOINT " + SAVEPOINT);
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }

    private static boolean isConnectionError(SQLException e) {
        return Errors.isConnectionException(e.getSQLState());
    }
}
