package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.session.Session;
import java.sql.SQLException;

/**
 * One coalesced attempt, and everything that happens when it fails: the one place that owns undo, re-run and the
 * release of the guard savepoint.
 *
 * <p>{@link BatchExecutor} undoes a failed attempt itself (the guard savepoint rolled back inside a transaction, its
 * own transaction rolled back around a plan of several executions, or, in autocommit, the single implicit transaction
 * gone with the error) and reports it as {@link BatchExecutor.Undone}. Then, here: the catalog facts are dropped when
 * the failure may come from a table changed by another session ({@link #staleFacts}); the caller's recovery runs, normally the
 * application's own statements as sent, so that the application gets exactly bare pgjdbc's answer and error; and once
 * the recovery succeeded, the guard savepoint is released. When the recovery fails, the guard is left alone: the
 * failure has aborted the transaction exactly as the statement would have under bare pgjdbc.
 *
 * <p>An error under contention (serialization failure, deadlock, lock timeout, cancel: {@code Errors.isContention}) is
 * never undone nor re-run: {@link BatchExecutor} raises it as it is, with the transaction aborted as bare pgjdbc's
 * statement would have left it, and it never reaches a recovery.
 */
public final class Attempt {

    /** The coalesced attempt: runs a plan, or reports it undone. */
    @FunctionalInterface
    public interface Coalesced<T> {
        T run() throws SQLException, BatchExecutor.Undone;
    }

    /** What runs after the attempt was undone (a re-run as sent, or a decision not to re-run). */
    @FunctionalInterface
    public interface Recovery<T> {
        T afterUndo(BatchExecutor.Undone undone) throws SQLException;
    }

    /** The application's statements, as it sent them. */
    @FunctionalInterface
    public interface AsSent<T> {
        T run() throws SQLException;
    }

    private Attempt() {}

    /** Runs {@code coalesced}; when it was undone, drops the catalog facts, runs {@code recovery} and releases the guard. */
    public static <T> T run(Session session, Coalesced<T> coalesced, Recovery<T> recovery) throws SQLException {
        try {
            return coalesced.run();
        } catch (BatchExecutor.Undone undone) {
            dropStaleFacts(session, undone);
            T result = recovery.afterUndo(undone);
            release(session, undone);
            return result;
        } finally {
            countSubtransaction(session);
        }
    }

    /**
     * Inside a transaction the attempt ran under a guard savepoint, which took a subtransaction whether it was released
     * or not ({@link dev.flushless.jdbc.session.Subtransactions}); in autocommit it took none.
     */
    private static void countSubtransaction(Session session) {
        try {
            if (!session.delegate().getAutoCommit()) {
                session.subtransactions().taken();
            }
        } catch (SQLException e) {
            // a closed connection: its transaction is over
        }
    }

    /**
     * As {@link #run}, for an attempt the caller rolls back right after whatever happens (its guard is not released:
     * the rollback ends it).
     */
    public static <T> T runBeforeRollback(Session session, Coalesced<T> coalesced, Recovery<T> recovery)
            throws SQLException {
        try {
            return coalesced.run();
        } catch (BatchExecutor.Undone undone) {
            dropStaleFacts(session, undone);
            return recovery.afterUndo(undone);
        } finally {
            countSubtransaction(session);
        }
    }

    /**
     * Whether the error of an undone attempt may come from catalog facts that went stale (a table changed by another
     * session): a count check that failed (a trigger or rule added), or an error of the schema
     * ({@code Errors.mayComeFromStaleCatalog}). A constraint violation or a bad value says nothing about the table's
     * definition, and reading the facts again costs a catalog query per table.
     */
    public static boolean staleFacts(SQLException error) {
        String message = String.valueOf(error.getMessage());
        return dev.flushless.jdbc.Errors.mayComeFromStaleCatalog(error.getSQLState())
                || message.contains(dev.flushless.jdbc.rewrite.Rewriter.COUNT_CHECK_MARKER)
                || message.contains(CopyExecutor.STALE_MARKER);
    }

    private static void dropStaleFacts(Session session, BatchExecutor.Undone undone) {
        if (staleFacts(undone.sqlCause())) {
            session.catalog().clear();
        }
    }

    /**
     * The usual recovery: counts the {@code rows} as a fallback (the coalesced statement failed, with its SQLState) and
     * runs the application's statements as sent.
     */
    public static <T> Recovery<T> reRunAsSent(Session session, int rows, AsSent<T> asSent) {
        return undone -> {
            session.stats()
                    .fallback(
                            dev.flushless.jdbc.FallbackReason.COALESCED_FAILED.because(
                                    undone.sqlCause().getSQLState()),
                            rows);
            return asSent.run();
        };
    }

    /**
     * For a recovery that raises {@code error} instead of re-running: leaves the attempt undone and releases its guard,
     * so that the transaction goes on without the batch; returns {@code error} for the recovery to throw.
     */
    public static <E extends SQLException> E keptUndone(Session session, BatchExecutor.Undone undone, E error)
            throws SQLException {
        release(session, undone);
        return error;
    }

    private static void release(Session session, BatchExecutor.Undone undone) throws SQLException {
        if (undone.guarded()) {
            BatchExecutor.releaseGuard(session.delegate(), undone.savepoint());
        }
    }
}
