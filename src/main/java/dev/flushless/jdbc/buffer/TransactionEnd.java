package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.CopyChoice;
import dev.flushless.jdbc.batch.CopyExecutor;
import dev.flushless.jdbc.batch.RoundTripTime;
import dev.flushless.jdbc.session.Session;
import java.sql.SQLException;
import java.util.List;

/**
 * The end of a {@code mode=transaction} connection's transaction ({@link TransactionBuffering}): {@code commit()}
 * sends the buffered writes with the COMMIT in one round trip (or, when nothing of the transaction reached the
 * server yet, as one implicit transaction), and {@code rollback()} discards them, after sending them when a buffered
 * table draws ids from a sequence ({@link #drawSequenceValues}).
 */
final class TransactionEnd {

    private final TransactionBuffering tx;
    private final Session session;
    private final TransactionBuffer buffer;
    private final ServerTransaction server;

    TransactionEnd(TransactionBuffering tx) {
        this.tx = tx;
        this.session = tx.session;
        this.buffer = tx.buffer;
        this.server = tx.server;
    }

    void commit() throws SQLException {
        if (!tx.active()) {
            commitReadingFacts();
            return;
        }
        tx.transactionEnded();
        if (tx.failed != null) {
            SQLException cause = tx.failed;
            rollback();
            throw Errors.keepingState(
                    "Flushless: commit() failed because the transaction had already failed: " + cause.getMessage()
                            + " It was rolled back.",
                    cause);
        }
        if (buffer.isEmpty()) {
            if (!tx.delegate().getAutoCommit()) {
                try {
                    server.commitInPgjdbc();
                } finally {
                    server.endServerTransaction();
                }
            }
            return;
        }
        List<BufferedWrite> writes = buffer.take();
        boolean fused = tx.delegate().getAutoCommit();
        BatchPlan copy = copyPlan(writes, fused);
        if (copy != null) {
            commitByCopy(writes, copy, fused);
            return;
        }
        List<Step> steps = tx.plan(writes);
        BatchPlan plan = FlushPlanner.asPlan(steps);
        long start = System.nanoTime();
        BatchExecutor.Outcome outcome;
        try {
            // Nothing of the transaction reached the server yet: its writes form one implicit transaction
            // (one Sync), committed together or not at all. Otherwise the writes and the COMMIT share a round trip.
            outcome = Attempt.run(
                    session,
                    () -> fused
                            ? BatchExecutor.run(tx.delegate(), plan, List.of(), 0, 0)
                            : BatchExecutor.runThenCommit(tx.delegate(), plan, 0),
                    undone -> {
                        // pin the error: the writes run as sent in the (then opened) transaction, committed below
                        server.beginServerTransaction();
                        tx.afterUndone(undone, writes, "at commit()");
                        return null;
                    });
        } catch (SQLException e) {
            tx.failed = null;
            rollbackQuietly(e); // the COMMIT, the connection or a buffered write failed: the transaction is over
            throw e;
        }
        if (outcome == null) {
            commitAfterRecovery();
            return;
        }
        tx.counted(writes, steps.size(), outcome.statementsSent(), outcome.roundTrips(), System.nanoTime() - start);
        if (!fused) {
            try {
                server.commitInPgjdbc(); // nothing to send: the COMMIT already ran
            } finally {
                server.endServerTransaction();
            }
        }
    }

    /**
     * A commit outside buffering: pgjdbc's, carrying the catalog reads of the tables whose first batch of the
     * transaction ran as sent (the first-batch rule, {@code Batches.firstBatchAsSent}) in front of the COMMIT, one round
     * trip ({@link dev.flushless.jdbc.session.TableCatalog#readPendingThenCommit}). Not in an aborted transaction, where
     * pgjdbc's COMMIT reports the failure as it does, nor with pgjdbc's {@code autosave}, which brackets statements with
     * savepoints of its own.
     */
    private void commitReadingFacts() throws SQLException {
        dev.flushless.jdbc.session.TableCatalog catalog = session.catalog();
        if (catalog.hasPending()) {
            if (tx.delegate().getAutoCommit() || !server.serverTransactionHealthy() || server.autosave()) {
                catalog.dropPending();
            } else {
                boolean committed;
                try {
                    committed = catalog.readPendingThenCommit(tx.delegate());
                } finally {
                    session.stats().transactionControl(); // the COMMIT's round trip, which the reads share
                }
                if (committed) {
                    server.commitInPgjdbc(); // sends nothing: the COMMIT ran
                    return;
                }
            }
        }
        server.commitInPgjdbc(); // pgjdbc's own "autocommit is on" error
    }

    /** The round-trip time to this connection's server (found once: its host and port do not change). */
    private RoundTripTime roundTrips;

    private RoundTripTime roundTrips() {
        if (roundTrips == null) {
            roundTrips = RoundTripTime.of(tx.delegate());
        }
        return roundTrips;
    }

    /** The COPY plan of a commit's buffered writes ({@link FlushPlanner#copyAtCommit}), or {@code null}. */
    private BatchPlan copyPlan(List<BufferedWrite> writes, boolean fused) throws SQLException {
        boolean pgjdbc = tx.delegate().isWrapperFor(org.postgresql.core.BaseConnection.class);
        CopyChoice choice = CopyChoice.of(
                session.config().copy(),
                session.server().yugabyte(),
                0,
                false,
                pgjdbc,
                roundTrips().micros(),
                fused,
                !fused);
        return choice == CopyChoice.NEVER
                ? null
                : FlushPlanner.copyAtCommit(
                        writes,
                        BatchPlanner.Settings.of(session.config(), session.sessionFacts())
                                .withCopy(choice));
    }

    /**
     * Sends the commit's writes as COPY and commits: in autocommit (nothing of the transaction on the server yet) the
     * COPY's own transaction is the commit; otherwise the COPY runs guarded and pgjdbc's COMMIT follows. Undone, the
     * writes run as sent and are committed, as with the INSERT forms.
     */
    private void commitByCopy(List<BufferedWrite> writes, BatchPlan plan, boolean fused) throws SQLException {
        long start = System.nanoTime();
        BatchExecutor.Outcome outcome;
        try {
            outcome = Attempt.run(session, () -> CopyExecutor.run(tx.delegate(), plan.copy(), roundTrips()), undone -> {
                server.beginServerTransaction();
                tx.afterUndone(undone, writes, "at commit()");
                return null;
            });
        } catch (SQLException e) {
            tx.failed = null;
            rollbackQuietly(e);
            throw e;
        }
        if (outcome == null) {
            commitAfterRecovery();
            return;
        }
        session.stats()
                .rewrite(
                        BatchPlan.COPY_KIND,
                        plan.copy().rows(),
                        1,
                        outcome.statementsSent(),
                        outcome.roundTrips() + (fused ? 0 : 1),
                        System.nanoTime() - start);
        if (!fused) {
            commitAfterRecovery(); // the COMMIT is still to send
        }
    }

    /** The writes sent at commit failed, were undone and then ran as sent without an error: commit them. */
    private void commitAfterRecovery() throws SQLException {
        try {
            server.commitInPgjdbc();
        } catch (SQLException e) {
            rollbackQuietly(e);
            throw e;
        } finally {
            server.endServerTransactionQuietly();
        }
    }

    void rollback() throws SQLException {
        if (!tx.active()) {
            session.catalog().dropPending();
            server.rollbackInPgjdbc(); // pgjdbc's own "autocommit is on" error
            return;
        }
        tx.transactionEnded();
        if (BufferRules.sendBeforeRollback(buffer, tx.failed != null)) {
            drawSequenceValues();
        }
        buffer.discard();
        tx.failed = null;
        if (!tx.delegate().getAutoCommit()) {
            try {
                server.rollbackInPgjdbc();
            } finally {
                server.endServerTransaction();
            }
        }
    }

    /**
     * Before {@code rollback()}: sends the buffered writes when one of their tables draws ids from a sequence, so
     * that the values bare pgjdbc's INSERTs drew are drawn here too. PostgreSQL never gives sequence values back
     * (a rollback keeps them drawn), so discarding the writes unsent would hand later INSERTs other ids than bare
     * pgjdbc does. Costs one round trip, only on this path. Their effect goes with the rollback; an error they raise
     * belongs to a write the application is rolling back, so it is dropped (the rollback still runs).
     */
    private void drawSequenceValues() {
        List<BufferedWrite> writes = buffer.take();
        List<Step> steps = tx.plan(writes);
        long start = System.nanoTime();
        try {
            server.beginServerTransaction();
            Attempt.runBeforeRollback(
                    session,
                    () -> {
                        BatchExecutor.Outcome outcome =
                                BatchExecutor.run(tx.delegate(), FlushPlanner.asPlan(steps), List.of(), 0, 0);
                        tx.counted(
                                writes,
                                steps.size(),
                                outcome.statementsSent(),
                                outcome.roundTrips(),
                                System.nanoTime() - start);
                        return null;
                    },
                    undone -> {
                        // a write the application would have seen fail (deviation 1); the attempt's draws are deviation
                        // 4's
                        int rows = 0;
                        for (BufferedWrite write : writes) {
                            rows += write.rows().size();
                        }
                        session.stats()
                                .fallback(dev.flushless.jdbc.FallbackReason.DRAW_BEFORE_ROLLBACK_FAILED.get(), rows);
                        return null;
                    });
        } catch (SQLException e) {
            // rolled back next; a broken connection reports itself there
        }
    }

    private void rollbackQuietly(SQLException cause) {
        buffer.discard();
        try {
            if (!tx.delegate().getAutoCommit()) {
                server.rollbackInPgjdbc();
            }
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
        server.endServerTransactionQuietly();
    }
}
