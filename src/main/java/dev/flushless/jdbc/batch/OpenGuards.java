package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.session.Subtransactions;
import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The savepoints that a connection's coalesced INSERTs leave open inside a transaction, so that the INSERTs check their
 * row counts by their update counts ({@link BatchPlan.Decoding#COUNTED}) rather than inside the statement.
 *
 * <p>Why: the in-statement check ({@code Rewriter.countChecked}) collects every inserted row in a CTE through
 * {@code RETURNING}, which costs the server 12-15% of a plain multi-row INSERT (1,000 rows: 1.54 against 1.38 ms).
 * An update count can only be checked after the statement ran, so a wrong count must still be undoable then: the run
 * opens {@link #SAVEPOINT} and does not release it. A wrong count (a trigger or rule added by another session after the
 * catalog was read) is undone to it and the batch re-run as sent; a right one leaves it open until the transaction
 * ends, when COMMIT (or ROLLBACK) ends it with the transaction.
 *
 * <p>Why the application observes nothing of an open savepoint: PostgreSQL resolves a savepoint name to the innermost
 * savepoint of that name, so the application's own savepoints, made before or after, roll back and release as they
 * would (rolling back to an earlier one discards this one and the rows, as it discards the rows under bare pgjdbc); an
 * error aborts the transaction for every later statement (25P02) as it would; COMMIT and PREPARE TRANSACTION commit
 * open subtransactions with the transaction; locks are held to the transaction's end either way; and a subtransaction
 * that wrote has its own XID whether it is released or not, so the count of subtransaction XIDs (64 per backend before
 * snapshots overflow) is the same as with the released guard. No other code of the driver names {@link #SAVEPOINT}, so
 * no later undo can reach an open one ({@code BatchExecutor.GUARD_SAVEPOINT} stays released at the end of each run).
 *
 * <p>When: inside an open, healthy transaction on PostgreSQL through pgjdbc, not under pgjdbc's {@code autosave}
 * (whose own savepoints bracket each statement), at most {@link #MAX_PER_TRANSACTION} per transaction (each open
 * savepoint keeps its subtransaction's state on the server until the end); a batch with generated keys, a COMMIT in
 * the same round trip, or in autocommit keeps the in-statement check.
 */
public final class OpenGuards {

    /** The savepoint each counted run opens and leaves open; named by nothing else in the driver. */
    public static final String SAVEPOINT = "flushless_insert_guard";

    /** Most savepoints left open in one transaction; later batches check their counts inside the statement. */
    public static final int MAX_PER_TRANSACTION = 32;

    private final boolean enabled;
    /** The connection's count of its transaction's savepoints, the open guards among them. */
    private final Subtransactions subtransactions;

    /** The open guards of one connection; {@code enabled} false (YugabyteDB) never opens one. */
    public OpenGuards(boolean enabled, Subtransactions subtransactions) {
        this.enabled = enabled;
        this.subtransactions = subtransactions;
    }

    /**
     * Whether the next coalesced batch on {@code connection} (pgjdbc) may leave a guard open: autocommit off, no
     * {@code autosave}, the
     * transaction not failed (an undo must reach the guard of its own run, never an older one, which it would in a
     * transaction where the run's SAVEPOINT could not run), fewer than {@link #MAX_PER_TRANSACTION} open in it.
     */
    public boolean available(Connection connection) throws SQLException {
        if (!enabled || connection.getAutoCommit() || !connection.isWrapperFor(BaseConnection.class)) {
            return false;
        }
        BaseConnection pgjdbc = connection.unwrap(BaseConnection.class);
        if (pgjdbc.getAutosave() != org.postgresql.jdbc.AutoSave.NEVER) {
            return false;
        }
        TransactionState state = pgjdbc.getTransactionState();
        if (state == TransactionState.IDLE) {
            subtransactions.transactionEnded(); // the last one ended, with its savepoints (however it ended)
        }
        return state != TransactionState.FAILED && subtransactions.open() < MAX_PER_TRANSACTION;
    }

    /** {@code settings} with {@link BatchPlanner.Settings#withGuard} when {@link #available}, else as they are. */
    public BatchPlanner.Settings plannerSettings(Connection connection, BatchPlanner.Settings settings)
            throws SQLException {
        return available(connection) ? settings.withGuard() : settings;
    }

    /** {@code plan} ran: a counted one ({@link #leavesOpen}) left its guard open. */
    public void ran(BatchPlan plan) {
        if (leavesOpen(plan)) {
            subtransactions.leftOpen();
        }
    }

    /** Whether {@code plan} checks an INSERT's count by its update count, i.e. its run leaves a guard open. */
    public static boolean leavesOpen(BatchPlan plan) {
        for (BatchPlan.Step step : plan.statements()) {
            if (step.decoding() == BatchPlan.Decoding.COUNTED) {
                return true;
            }
        }
        return false;
    }
}
