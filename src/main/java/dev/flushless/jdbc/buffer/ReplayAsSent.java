package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.Session;
import java.sql.BatchUpdateException;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * The error path of a failed, undone flush ({@link TransactionBuffering}): the buffered writes re-run as the
 * application sent them, so that the error raised is the server's own for the statement (and batch row) that caused
 * it; and the count mismatch that fails the transaction instead.
 */
final class ReplayAsSent {

    private ReplayAsSent() {}

    /**
     * Runs the buffered writes one application call at a time, as the application sent them, in the server
     * transaction: the first one that fails raises the server's error (SQLState kept, the server's exception as
     * the cause) naming the application statement and batch row, and leaves the transaction aborted as that
     * statement would have left it under bare pgjdbc.
     */
    static void replayAsSent(Session session, List<BufferedWrite> writes, String when) throws SQLException {
        int rows = 0;
        for (BufferedWrite write : writes) {
            rows += write.rows().size();
        }
        session.stats().fallback(dev.flushless.jdbc.FallbackReason.BUFFER_FAILED.get(), rows);
        for (BufferedWrite write : writes) {
            try {
                if (write.plainStatement()) {
                    try (Statement statement = session.delegate().createStatement()) {
                        statement.executeUpdate(write.sql());
                    }
                    continue;
                }
                try (PreparedStatement statement = session.delegate().prepareStatement(write.sql())) {
                    int parameters = write.statement().parameterCount();
                    for (Bind[] row : write.rows()) {
                        for (int p = 0; p < parameters; p++) {
                            row[p].applyTo(statement, p + 1);
                        }
                        if (write.batch()) {
                            statement.addBatch();
                        }
                    }
                    if (write.batch()) {
                        statement.executeBatch();
                    } else {
                        statement.executeUpdate();
                    }
                }
            } catch (BatchUpdateException e) {
                throw pinned(write, failedBatchRow(e), e, when);
            } catch (SQLException e) {
                throw pinned(write, -1, e, when);
            }
        }
    }

    private static final java.util.regex.Pattern BATCH_ENTRY = java.util.regex.Pattern.compile("Batch entry (\\d+) ");

    /**
     * The 0-based batch row pgjdbc's error names ("Batch entry N ... was aborted"), or -1. Its update counts
     * cannot say: inside a transaction pgjdbc marks every row EXECUTE_FAILED.
     */
    private static int failedBatchRow(BatchUpdateException e) {
        java.util.regex.Matcher m = BATCH_ENTRY.matcher(String.valueOf(e.getMessage()));
        return m.find() ? Integer.parseInt(m.group(1)) : -1;
    }

    /** The error of {@code write}, in pgjdbc's class, with where it came from ({@link BufferedWriteFailure}). */
    private static SQLException pinned(BufferedWrite write, int row, SQLException failure, String when) {
        String where = write.batch() && row >= 0
                ? " (batch row " + (row + 1) + " of " + write.rows().size() + ")"
                : "";
        return BufferedWriteFailure.of(
                "Flushless (flushless.mode=transaction): the buffered write "
                        + TransactionBuffering.abbreviate(write.sql()) + where
                        + " failed when the transaction's writes were sent " + when + ": ",
                " The transaction is aborted, as it would have been at that statement; roll it back.",
                failure);
    }

    static boolean isCountMismatch(SQLException e) {
        return e.getMessage() != null && e.getMessage().contains(Rewriter.COUNT_CHECK_MARKER);
    }

    static SQLException countMismatch(SQLException cause) {
        return Errors.internal(
                "Flushless: a buffered INSERT inserted a different number of rows than the count"
                        + " acknowledged to the application (a trigger or rule was probably added to its table by another"
                        + " session); the transaction cannot commit. Roll it back and retry; Flushless reads the table's"
                        + " definition again.",
                cause);
    }
}
