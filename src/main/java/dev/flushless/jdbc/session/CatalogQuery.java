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
        try (PreparedStatement ps = connection.prepareStatement(sql.toString())) {
            for (int i = 0; i < parts.size(); i++) {
                ps.setObject(i + 1, parts.get(i).parameter());
            }
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
