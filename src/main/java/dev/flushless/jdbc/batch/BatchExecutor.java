package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.batch.BatchPlan.Step;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs a {@link BatchPlan} on the pgjdbc connection as one multi-statement execution: pgjdbc sends all its
 * statements with a single Sync, so the plan costs one round trip and, in autocommit, forms one implicit
 * transaction (all or nothing). Inside an explicit transaction the plan is bracketed by a savepoint in the
 * same round trip, so that a failure can be undone and the batch re-run as sent, giving the application
 * exactly bare pgjdbc's error and update counts.
 */
public final class BatchExecutor {

    /** The savepoint that guards a coalesced batch inside an explicit transaction. */
    public static final String GUARD_SAVEPOINT = "flushless_batch_guard";

    /** What a successful run produced: per-row counts, and the returned rows' result sets (if any). */
    public record Outcome(long[] counts, List<ResultSet> returned, Statement owner) {
    }

    /** A coalesced run failed and was undone (nothing of it remains); the batch must run as sent. */
    public static final class Undone extends Exception {
        private static final long serialVersionUID = 1L;
        private final boolean guarded;

        Undone(SQLException cause, boolean guarded) {
            super(cause);
            this.guarded = guarded;
        }

        /** True when a guard savepoint is still open and must be released after the re-run. */
        public boolean guarded() {
            return guarded;
        }

        public SQLException sqlCause() {
            return (SQLException) getCause();
        }
    }

    private BatchExecutor() {
    }

    /**
     * Runs {@code plan} for {@code rows} on {@code connection} (pgjdbc).
     *
     * @throws Undone when the coalesced statements failed and their effect was undone
     * @throws SQLException when the connection failed so that nothing can be said or undone
     */
    public static Outcome run(Connection connection, BatchPlan plan, List<Bind[]> rows, int parametersPerRow)
            throws SQLException, Undone {
        boolean guarded = !connection.getAutoCommit();
        boolean returnsRows = plan.statements().stream().anyMatch(s -> s.decoding() == BatchPlan.Decoding.RETURNED_ROWS
                || s.decoding() == BatchPlan.Decoding.RETURNED_ROWS_DISCARDED);
        StringBuilder text = new StringBuilder();
        if (guarded) {
            text.append("SAVEPOINT ").append(GUARD_SAVEPOINT).append(";\n");
        }
        for (int i = 0; i < plan.statements().size(); i++) {
            text.append(i > 0 ? ";\n" : "").append(plan.statements().get(i).sql());
        }
        if (guarded) {
            text.append(";\nRELEASE SAVEPOINT ").append(GUARD_SAVEPOINT);
        }
        PreparedStatement statement = returnsRows
                ? connection.prepareStatement(text.toString(), ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY)
                : connection.prepareStatement(text.toString());
        long[] counts = new long[rows.size()];
        List<ResultSet> returned = new ArrayList<>();
        boolean countMismatch = false;
        try {
            int index = 1;
            for (Step step : plan.statements()) {
                for (int row : step.rows()) {
                    Bind[] binds = rows.get(row);
                    for (int p = 0; p < parametersPerRow; p++) {
                        binds[p].applyTo(statement, index++);
                    }
                }
            }
            boolean isResultSet = statement.execute();
            if (guarded) {
                isResultSet = statement.getMoreResults(Statement.KEEP_CURRENT_RESULT); // past SAVEPOINT
            }
            for (Step step : plan.statements()) {
                countMismatch |= !decode(step, statement, isResultSet, counts, returned);
                isResultSet = statement.getMoreResults(Statement.KEEP_CURRENT_RESULT);
            }
        } catch (SQLException e) {
            closeQuietly(statement);
            if (e.getSQLState() != null && e.getSQLState().startsWith("08")) {
                throw e; // the connection is gone: nothing to undo, nothing to re-run
            }
            undo(connection, guarded, e);
            throw new Undone(e, guarded);
        }
        if (countMismatch) {
            // Only possible if a trigger or rule appeared after the catalog was read (DDL by another session).
            closeQuietly(statement);
            SQLException mismatch = new SQLException("Flushless: a coalesced INSERT inserted fewer rows than the batch"
                    + " had; a trigger or rule may have been added to the table", "XX000");
            if (guarded) {
                undo(connection, true, mismatch);
                throw new Undone(mismatch, true);
            }
            throw mismatch;
        }
        if (returned.isEmpty()) {
            closeQuietly(statement);
        }
        return new Outcome(counts, returned, returned.isEmpty() ? null : statement);
    }

    /** Reads one step's result into {@code counts}; false when an INSERT's count differs from its row count. */
    private static boolean decode(Step step, Statement statement, boolean isResultSet, long[] counts,
            List<ResultSet> returned) throws SQLException {
        int[] rows = step.rows();
        switch (step.decoding()) {
            case ONE_PER_ROW: {
                long inserted = statement.getLargeUpdateCount();
                for (int row : rows) {
                    counts[row] = 1;
                }
                return inserted == rows.length;
            }
            case RETURNED_ROWS: {
                ResultSet rs = statement.getResultSet();
                rs.last();
                int inserted = rs.getRow();
                rs.beforeFirst();
                returned.add(rs);
                for (int row : rows) {
                    counts[row] = 1;
                }
                return inserted == rows.length;
            }
            case RETURNED_ROWS_DISCARDED: {
                try (ResultSet rs = statement.getResultSet()) {
                    rs.last();
                    return rs.getRow() == rows.length; // counts stay 0, as pgjdbc reports them
                }
            }
            case ORDINALS: {
                try (ResultSet rs = statement.getResultSet()) {
                    while (rs.next()) {
                        counts[rows[rs.getInt(1) - 1]]++;
                    }
                }
                return true;
            }
            default:
                throw new IllegalStateException(step.decoding().name());
        }
    }

    private static void undo(Connection connection, boolean guarded, SQLException cause) throws SQLException {
        if (!guarded) {
            return; // autocommit: the single implicit transaction already rolled back
        }
        try (Statement rollback = connection.createStatement()) {
            rollback.execute("ROLLBACK TO SAVEPOINT " + GUARD_SAVEPOINT);
        } catch (SQLException e) {
            cause.setNextException(e);
            throw cause;
        }
    }

    /** Releases the guard savepoint after a successful re-run of an undone batch. */
    public static void releaseGuard(Connection connection) throws SQLException {
        try (Statement release = connection.createStatement()) {
            release.execute("RELEASE SAVEPOINT " + GUARD_SAVEPOINT);
        }
    }

    private static void closeQuietly(Statement statement) {
        try {
            statement.close();
        } catch (SQLException ignored) {
            // closing a statement whose execution failed; the execution's own error is what matters
        }
    }
}
