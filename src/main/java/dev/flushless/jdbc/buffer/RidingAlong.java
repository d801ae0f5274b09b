package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.buffer.TransactionBuffering.Ride;
import dev.flushless.jdbc.session.Session;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * What shares a round trip with a {@code mode=transaction} connection's buffered writes ({@link TransactionBuffering}):
 * a query that must see them runs after them ({@link #query}), a coalesced batch takes them to ride ahead of it
 * ({@link #takeRide}), and a single write whose count the application needs rides along with them
 * ({@link #rideAlong}).
 */
final class RidingAlong {

    private final TransactionBuffering tx;
    private final Session session;
    private final TransactionBuffer buffer;
    private final ServerTransaction server;
    private final LockedUpdates locks;

    RidingAlong(TransactionBuffering tx) {
        this.tx = tx;
        this.session = tx.session;
        this.buffer = tx.buffer;
        this.server = tx.server;
        this.locks = tx.locks;
    }

    /**
     * Runs the application's {@code query} ({@code parameters} bound as it set them) with the buffered writes sent
     * ahead of it in its own round trip, when the query must send them first ({@link TransactionBuffering#mustFlushBefore}): a read of a
     * table they wrote, a locking read, a read the analysis cannot bound. The writes still run before the query, in the
     * application's order, so it sees them and takes its locks after theirs, as under bare pgjdbc; only the round trip
     * of their own is saved. Returns {@code null} when nothing needs to go first (or the query cannot carry them); the
     * caller then runs it as sent. See {@link BatchExecutor#runThenQuery} for errors.
     */
    BatchExecutor.QueryOutcome query(
            String sql, StatementDescription query, Bind[] parameters, BatchExecutor.QuerySettings settings)
            throws SQLException {
        if (!tx.active()) {
            return null;
        }
        tx.checkNotFailed();
        locks.forgetLocksUnlessRead(sql);
        if (buffer.isEmpty() || !tx.mustFlushBefore(sql)) {
            return null;
        }
        List<BufferedWrite> writes = buffer.take();
        server.beginServerTransaction();
        List<Step> steps = tx.plan(writes);
        String text = sql == query.sql() ? query.text() : sql.substring(0, query.textEnd());
        long start = System.nanoTime();
        try {
            BatchExecutor.QueryOutcome outcome = Attempt.run(
                    session,
                    () -> BatchExecutor.runThenQuery(tx.delegate(), steps, text, parameters, settings),
                    undone -> {
                        tx.afterUndone(undone, writes, "before the statement " + TransactionBuffering.abbreviate(sql));
                        return null; // the writes ran as sent; the query runs as sent after this returns
                    });
            if (outcome != null) {
                tx.counted(writes, steps.size(), steps.size() + 2, 0, System.nanoTime() - start);
                session.stats().executed(false);
            }
            return outcome;
        } catch (BatchExecutor.QueryFailed failed) {
            tx.counted(writes, steps.size(), steps.size() + 2, 0, System.nanoTime() - start);
            session.stats().executed(false);
            throw failed.error();
        }
    }

    /**
     * Before a coalesced batch whose counts the application needs: takes the buffer to ride ahead of it
     * ({@code null} when empty) and opens the server transaction.
     */
    Ride takeRide() throws SQLException {
        if (!tx.active()) {
            return null;
        }
        tx.checkNotFailed();
        locks.forget(); // a coalesced write follows
        server.beginServerTransaction();
        if (buffer.isEmpty()) {
            return null;
        }
        List<BufferedWrite> writes = buffer.take();
        return new Ride(writes, tx.plan(writes));
    }

    /** The ride was sent with its batch (whose outcome counts the statements and the round trip they shared). */
    void rideSent(Ride ride) {
        tx.counted(ride.writes(), ride.steps().size(), 0, 0, 0);
    }

    /**
     * The batch and its ride failed and were undone: re-runs the buffered writes as sent (raising the first
     * error, pinned to its statement); the caller then re-runs its batch as sent.
     */
    void rideUndone(Ride ride, BatchExecutor.Undone undone) throws SQLException {
        tx.afterUndone(undone, ride.writes(), "with the batch that followed them");
    }

    /**
     * Whether a write whose update count the application needs can run together with the buffered writes in one
     * round trip: the buffer holds something, and the statement is one write whose parameters are all set, without
     * RETURNING (and, with {@code flushless.exactSequences=true}, one that cannot draw from a sequence, since a failed
     * round trip would draw twice). Not for a {@code ?} in a plain Statement's text ({@code row} null), an operator there.
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     */
    boolean rideable(String sql, Bind[] row) {
        if (!tx.buffering()
                || buffer.isEmpty()
                || tx.failed != null
                || !dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql).isWrite()) {
            return false;
        }
        StatementDescription statement = session.analyzer().describe(sql);
        return BufferRules.whyNotRideable(
                        statement,
                        row,
                        session.config().exactSequences(),
                        () -> BufferRules.mayDrawFromSequences(
                                statement, name -> session.catalog().lookup(tx.delegate(), name)))
                == null;
    }

    /**
     * Runs a {@link #rideable} write together with the buffered writes in one round trip and returns its update count.
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     * @param batch the application ran it as a batch of one row ({@code executeBatch()}), see {@link #runAsSent}
     */
    long rideAlong(String sql, Bind[] row, int queryTimeoutSeconds, boolean batch) throws SQLException {
        StatementDescription statement = session.analyzer().describe(sql);
        int parameters = statement.parameterCount();
        locks.forget(); // the write rides along as sent
        List<BufferedWrite> writes = buffer.take();
        server.beginServerTransaction();
        List<Step> steps = FlushPlanner.withRider(tx.plan(writes), sql, statement);
        Bind[] bound = row == null ? new Bind[0] : row;
        long start = System.nanoTime();
        try {
            return rideAlong(writes, steps, sql, bound, parameters, row == null, batch, queryTimeoutSeconds, start);
        } catch (SQLException e) {
            // under contention the error is raised as it is (nothing re-runs); a batch of one row gets pgjdbc's batch
            // shape
            throw batch && dev.flushless.jdbc.Errors.isContention(e.getSQLState())
                    ? BatchExecutor.asBatchFailure(e, 1)
                    : e;
        }
    }

    private long rideAlong(
            List<BufferedWrite> writes,
            List<Step> steps,
            String sql,
            Bind[] bound,
            int parameters,
            boolean plainStatement,
            boolean batch,
            int queryTimeoutSeconds,
            long start)
            throws SQLException {
        return Attempt.run(
                session,
                () -> {
                    BatchExecutor.Outcome outcome = BatchExecutor.run(
                            tx.delegate(),
                            FlushPlanner.asPlan(steps),
                            List.<Bind[]>of(bound),
                            parameters,
                            queryTimeoutSeconds);
                    tx.counted(writes, steps.size() - 1, outcome.statementsSent() - 1, 0, System.nanoTime() - start);
                    session.stats().executed(true);
                    return outcome.counts()[0];
                },
                undone -> {
                    tx.afterUndone(undone, writes, "with the statement " + TransactionBuffering.abbreviate(sql));
                    // The buffered writes ran as sent; now the statement itself, so that its error is the server's own.
                    return runAsSent(sql, bound, parameters, plainStatement, batch, queryTimeoutSeconds);
                });
    }

    /**
     * Runs a write that rode along after its round trip failed and the buffered writes were re-run: exactly as the
     * application called it, so that its error is pgjdbc's own. A batch of one row runs as a batch: for
     * {@code executeBatch()} pgjdbc reports a failing row as a {@code BatchUpdateException} (with the row's update
     * counts, and the server's error as its next exception), never as the plain {@code PSQLException} a single
     * execution of the same statement throws, and applications catch the one they were promised.
     */
    private long runAsSent(
            String sql, Bind[] row, int parameters, boolean plainStatement, boolean batch, int queryTimeoutSeconds)
            throws SQLException {
        session.stats().executed(true);
        if (plainStatement) {
            try (Statement statement = tx.delegate().createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                return statement.executeLargeUpdate(sql);
            }
        }
        try (PreparedStatement statement = tx.delegate().prepareStatement(sql)) {
            statement.setQueryTimeout(queryTimeoutSeconds);
            for (int p = 0; p < parameters; p++) {
                row[p].applyTo(statement, p + 1);
            }
            if (batch) {
                statement.addBatch();
                return statement.executeLargeBatch()[0];
            }
            return statement.executeLargeUpdate();
        }
    }
}
