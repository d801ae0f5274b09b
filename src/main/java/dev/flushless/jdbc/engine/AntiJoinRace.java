package dev.flushless.jdbc.engine;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.postgresql.util.PSQLState;

/**
 * An anti-join upsert batch ({@code flushless.onConflict=antijoin}) that met a unique violation and was undone. The
 * anti-join form reads the existing keys first, so another transaction that inserts one of the missing keys at the
 * same moment makes its INSERT fail where native ON CONFLICT would have waited and then skipped or updated the row
 * (documented deviation 3).
 * <ul>
 *   <li>In autocommit nothing of the batch remains (its implicit transaction rolled back): it runs once more as native
 *       ON CONFLICT, which waits for the concurrent inserter as bare pgjdbc would (and, should that fail too, as
 *       sent).</li>
 *   <li>Inside a transaction, a violation of the conflict target's index means another transaction inserted a key the
 *       anti-join had found missing: the batch is left undone (the transaction stays usable) and the error is raised,
 *       SQLState 23505 kept, naming the cause and the setting.</li>
 *   <li>A violation of another unique index is what bare pgjdbc would have met too: the batch runs as sent and raises
 *       pgjdbc's own error.</li>
 * </ul>
 */
final class AntiJoinRace {

    private final Engine engine;
    private final Engine.RecordedBatch batch;
    private final StatementDescription description;
    private final List<Bind[]> rows;
    private final SessionFacts session;

    AntiJoinRace(
            Engine engine,
            Engine.RecordedBatch batch,
            StatementDescription description,
            List<Bind[]> rows,
            SessionFacts session) {
        this.engine = engine;
        this.batch = batch;
        this.description = description;
        this.rows = rows;
        this.session = session;
    }

    Engine.BatchResult afterUniqueViolation(BatchExecutor.Undone undone) throws SQLException {
        if (!undone.guarded()) {
            return retryNatively();
        }
        SQLException cause = undone.sqlCause();
        String constraint = violatedConstraint(cause);
        List<String> arbiters = arbiterNames();
        if (constraint != null && arbiters != null && !arbiters.contains(constraint)) {
            return Attempt.reRunAsSent(engine, rows.size(), this::asSent).afterUndo(undone);
        }
        engine.stats().noted(dev.flushless.jdbc.FallbackReason.ANTI_JOIN_RAISED.get(), rows.size());
        int[] failed = new int[rows.size()];
        Arrays.fill(failed, Statement.EXECUTE_FAILED);
        throw Attempt.keptUndone(
                engine,
                undone,
                Errors.batchFailed(
                        "Flushless: the batch of " + rows.size()
                                + " rows of '" + batch.sql()
                                + "' ran with flushless.onConflict=antijoin (the existing keys are read"
                                + " first, then the missing rows inserted) and met a unique violation on its conflict target"
                                + (constraint == null ? "" : " (" + constraint + ")")
                                + ": another transaction inserted one of its keys"
                                + " concurrently. Nothing of the batch was applied; the transaction is still open. Roll back and retry,"
                                + " or set flushless.onConflict=native for writers that race on the same keys inside transactions."
                                + " Server message: " + cause.getMessage(),
                        PSQLState.UNIQUE_VIOLATION,
                        failed,
                        cause));
    }

    /** Autocommit: nothing of the batch remains; native ON CONFLICT waits for the concurrent inserter. */
    private Engine.BatchResult retryNatively() throws SQLException {
        engine.stats().noted(dev.flushless.jdbc.FallbackReason.ANTI_JOIN_RETRIED.get(), rows.size());
        BatchPlan nativePlan = engine.nativePlan(batch, description, rows, session);
        if (nativePlan.isFallback()) {
            engine.stats().fallback(nativePlan.fallback(), rows.size());
            return asSent();
        }
        int timeout = batch.queryTimeoutSeconds();
        return Attempt.run(
                engine,
                () -> {
                    long start = System.nanoTime();
                    BatchExecutor.Outcome outcome = BatchExecutor.run(
                            engine.delegate(), nativePlan, rows, description.parameterCount(), timeout);
                    engine.coalesced(nativePlan, rows.size(), outcome, System.nanoTime() - start, batch.sql());
                    return new Engine.BatchResult(Route.COALESCE, outcome.counts(), null);
                },
                Attempt.reRunAsSent(engine, rows.size(), this::asSent));
    }

    private Engine.BatchResult asSent() throws SQLException {
        return new Engine.BatchResult(Route.AS_SENT, batch.runAsSent(rows), null);
    }

    /** The constraint (index) a unique violation names, or {@code null} when the server's message is not at hand. */
    private static String violatedConstraint(SQLException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.postgresql.util.PSQLException pg && pg.getServerErrorMessage() != null) {
                return pg.getServerErrorMessage().getConstraint();
            }
        }
        return null;
    }

    /** The arbiter indexes of the statement's conflict target, or {@code null} when unknown. */
    private List<String> arbiterNames() {
        try {
            TableCatalog.TableInfo table = engine.catalog().lookup(engine.delegate(), description.targetTable());
            List<String> target = new ArrayList<>();
            for (StatementDescription.KeyColumn key : description.conflictKeys()) {
                target.add(key.column());
            }
            return engine.catalog().conflictFacts(engine.delegate(), table).arbiters(target).stream()
                    .map(ConflictFacts.UniqueIndex::name)
                    .toList();
        } catch (SQLException e) {
            return null;
        }
    }
}
