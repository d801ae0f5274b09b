package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.batch.SessionFacts;
import dev.flushless.jdbc.batch.TableCatalog.TableInfo;
import dev.flushless.jdbc.buffer.BufferedWrite;
import dev.flushless.jdbc.buffer.FlushPlanner;
import dev.flushless.jdbc.buffer.TransactionBuffer;
import dev.flushless.jdbc.rewrite.Rewriter;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code flushless.mode=transaction}: client-side write buffering for one connection, modelled on YugabyteDB's
 * own buffering and Spanner's {@code auto_batch_dml}.
 *
 * <p>Inside an explicit transaction, a plain {@code INSERT ... VALUES (tuple)} (no RETURNING, ON CONFLICT or
 * generated keys, into a table without triggers, rules or row-level security) has a known update count: one
 * per row. Such writes are acknowledged at once and kept; everything else first sends the buffer when it must
 * see its effect (a read of a table the buffer wrote, any other write, DDL, savepoints, SQL the driver cannot
 * analyse, a change of isolation or read-only, handing out the pgjdbc connection, a size bound). A write whose
 * result the application needs rides in the same round trip when it is a coalesced batch.
 *
 * <p>pgjdbc is kept in autocommit until the transaction sends its first statement, so that a transaction that
 * is still entirely buffered at {@code commit()} runs as one implicit transaction: one round trip, all or
 * nothing. Otherwise the buffer and the COMMIT share one round trip. {@code rollback()} discards the buffer
 * (after sending it when a buffered table draws ids from a sequence, see {@link #drawSequenceValues}).
 *
 * <p>Correctness rules: every flushed statement checks inside itself that each INSERT inserted exactly the
 * acknowledged rows (a mismatch fails the transaction); a failed flush is undone and the buffered writes are
 * re-run as the application sent them, so the error raised is the server's own for the statement (and batch
 * row) that caused it, and the transaction is left aborted exactly as that statement would have left it.
 */
final class TransactionBuffering {

    private final WrappedConnection connection;
    private final boolean enabled;
    private final TransactionBuffer buffer = new TransactionBuffer();
    /** What {@code getAutoCommit()} tells the application; pgjdbc's own setting lags until something is sent. */
    private boolean autoCommit = true;
    /** Set when a flush found a count other than the acknowledged one: the transaction can only roll back. */
    private SQLException failed;
    /**
     * Set once the pgjdbc connection was handed out ({@code unwrap}): code holding it (CopyManager, large
     * objects) checks pgjdbc's own autocommit and writes behind the buffer's back, so from then on nothing is
     * buffered or deferred on this connection.
     */
    private boolean bypassed;

    TransactionBuffering(WrappedConnection connection, boolean enabled) {
        this.connection = connection;
        this.enabled = enabled;
        if (enabled) {
            try {
                autoCommit = connection.delegate.getAutoCommit();
            } catch (SQLException e) {
                autoCommit = true; // a closed connection: every later call fails in pgjdbc anyway
            }
        }
    }

    /** True while an explicit transaction of a {@code mode=transaction} connection is open. */
    boolean active() {
        return enabled && !bypassed && !autoCommit;
    }

    /**
     * The pgjdbc connection is being handed out: sends the buffer, opens the server transaction if the
     * application's is open, and stops buffering on this connection for good (see {@link #bypassed}).
     */
    void handOut(String call) throws SQLException {
        beforeConnectionCall(call, true);
        bypassed = true;
    }

    private Connection delegate() {
        return connection.delegate;
    }

    // ---- buffering ----

    /**
     * Buffers {@code rows} of {@code statement} when the transaction may: returns false (nothing buffered) when
     * the statement's count is not known in advance or the table, session or transaction state rule it out.
     */
    boolean tryBuffer(StatementDescription statement, List<Bind[]> rows, boolean plainStatement, boolean batch)
            throws SQLException {
        TableInfo table = bufferableTable(statement, rows, plainStatement);
        if (table == null) {
            return false;
        }
        buffer(statement, table, rows, plainStatement, batch);
        return true;
    }

    /**
     * The table {@code statement} writes when its {@code rows} may be buffered, else {@code null}: the
     * statement's count must be known in advance, the table free of triggers, rules and row-level security
     * (which could change the count or read other tables), and the transaction neither read-only nor already
     * failed (pgjdbc then raises its own error at once, as bare pgjdbc would).
     */
    TableInfo bufferableTable(StatementDescription statement, List<Bind[]> rows, boolean plainStatement)
            throws SQLException {
        if (!active() || failed != null || !bufferable(statement, rows, plainStatement)) {
            return null;
        }
        return transactionFailed(delegate()) ? null : writableTable(statement);
    }

    /**
     * The plain table {@code statement} writes (no triggers, rules or row-level security unless trusted; no ids
     * drawn from a sequence with {@code flushless.exactSequences=true}), on a connection that is open and not
     * read-only; {@code null} otherwise, or when the catalog cannot be read.
     */
    private TableInfo writableTable(StatementDescription statement) throws SQLException {
        Connection delegate = delegate();
        if (delegate.isClosed() || delegate.isReadOnly()) {
            return null;
        }
        TableInfo table;
        try {
            table = connection.catalog.lookup(delegate, statement.targetTable());
        } catch (SQLException e) {
            return null;
        }
        FlushlessConfig config = connection.flushlessConfig();
        return table.insertBarrier(config.trustTriggers(), config.exactSequences()) == null ? table : null;
    }

    /**
     * Group commit: the table of a single-row plain INSERT whose count (1) a multi-row statement reproduces
     * exactly, or {@code null} (same rules as for buffering: no RETURNING, ON CONFLICT, triggers, rules or
     * row-level security; every parameter set; a connection neither read-only nor closed).
     */
    TableInfo singleRowInsertTable(StatementDescription statement, Bind[] row) throws SQLException {
        return bufferable(statement, List.<Bind[]>of(row), false) ? writableTable(statement) : null;
    }

    /**
     * Adds a write {@link #bufferableTable} accepted. The buffer never holds more than
     * {@code flushless.maxBufferedRows} rows or {@code maxBufferedBytes}: what it holds is sent first when the
     * write would cross a bound, and a single write larger than a bound is sent at once.
     */
    void buffer(StatementDescription statement, TableInfo table, List<Bind[]> rows, boolean plainStatement,
            boolean batch) throws SQLException {
        BufferedWrite write = new BufferedWrite(statement, table, rows, plainStatement, batch);
        long maxRows = connection.flushlessConfig().maxBufferedRows();
        long maxBytes = connection.flushlessConfig().maxBufferedBytes();
        String when = "when the buffer reached flushless.maxBufferedRows or flushless.maxBufferedBytes";
        if (!buffer.isEmpty() && (buffer.rows() + rows.size() > maxRows || buffer.bytes() + write.estimatedBytes() > maxBytes)) {
            flush(when);
        }
        buffer.add(write);
        if (buffer.rows() > maxRows || buffer.bytes() > maxBytes) {
            flush(when);
        }
    }

    /** Rows buffered now (tests check the bound). */
    long bufferedRows() {
        return buffer.rows();
    }

    /** Estimated bytes buffered now (tests check the bound). */
    long bufferedBytes() {
        return buffer.bytes();
    }

    /** A plain INSERT ... VALUES (tuple) with every parameter set: its count is one per row. */
    private static boolean bufferable(StatementDescription statement, List<Bind[]> rows, boolean plainStatement) {
        if (statement.kind() != StatementDescription.Kind.INSERT || !statement.isSingleStatement()
                || !statement.isCoalescable() || statement.onConflict() != StatementDescription.OnConflict.NONE
                || statement.hasReturning() || statement.tupleStart() < 0) {
            return false;
        }
        int parameters = statement.parameterCount();
        if (plainStatement && parameters > 0) {
            return false; // in a Statement's text a ? is an operator, not a parameter
        }
        for (Bind[] row : rows) {
            if (row.length < parameters) {
                return false;
            }
            for (int p = 0; p < parameters; p++) {
                if (row[p] == null) {
                    return false; // pgjdbc reports the unset parameter itself
                }
            }
        }
        return true;
    }

    /** True when pgjdbc knows the server transaction is aborted (every statement fails until rollback). */
    private static boolean transactionFailed(Connection delegate) {
        try {
            return delegate.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState()
                    == org.postgresql.core.TransactionState.FAILED;
        } catch (SQLException | RuntimeException e) {
            return true; // not pgjdbc: do not buffer
        }
    }

    // ---- flush points ----

    /**
     * Before a statement the application runs on pgjdbc inside the transaction: sends the buffer first unless
     * the statement is a read that cannot see the buffered rows, then opens the server transaction.
     */
    void beforeServerStatement(String sql) throws SQLException {
        if (!active()) {
            return;
        }
        checkNotFailed();
        if (!buffer.isEmpty() && mustFlushBefore(sql)) {
            flush("before the statement " + abbreviate(sql));
        }
        beginServerTransaction();
    }

    /**
     * A read may run before the buffered INSERTs when it provably reads none of the tables they write:
     * one SELECT of plain tables (views, functions that could read anything and locking clauses send the
     * buffer first). Sequence functions count as reads of the buffered tables that draw ids from sequences:
     * {@code INSERT ... ; SELECT currval('t_id_seq')} must see the INSERT's id, and a {@code nextval} must not
     * take the id the INSERT would have drawn before it.
     */
    private boolean mustFlushBefore(String sql) {
        if (dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql) != StatementDescription.Kind.SELECT) {
            return true;
        }
        StatementDescription query = connection.analyzer.describe(sql);
        List<String> tables = query.tablesRead();
        if (tables == null || query.callsSequenceFunctions() && buffer.drawsFromSequences()) {
            return true;
        }
        for (String name : tables) {
            TableInfo table;
            try {
                table = connection.catalog.lookup(delegate(), name);
            } catch (SQLException e) {
                return true;
            }
            if (table.kindProblem() != null || buffer.wrote(table)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Before a connection call that the buffered writes must precede (savepoints, isolation or read-only
     * changes, {@code setSchema}, handing out the pgjdbc connection, close).
     *
     * @param begin also open the server transaction (savepoints and unwrap need it open, as in bare pgjdbc)
     */
    void beforeConnectionCall(String call, boolean begin) throws SQLException {
        if (!active()) {
            return;
        }
        checkNotFailed();
        flush("before " + call);
        if (begin) {
            beginServerTransaction();
        }
    }

    /** Opens the server transaction: pgjdbc sends BEGIN with its next statement (no round trip of its own). */
    private void beginServerTransaction() throws SQLException {
        if (delegate().getAutoCommit()) {
            delegate().setAutoCommit(false);
        }
    }

    /** Puts pgjdbc back into autocommit after the transaction ended, so the next one can fuse its commit. */
    private void endServerTransaction() throws SQLException {
        if (!delegate().getAutoCommit()) {
            delegate().setAutoCommit(true);
        }
    }

    /** Sends the buffered writes now, inside the (then opened) server transaction. */
    void flush(String when) throws SQLException {
        if (buffer.isEmpty()) {
            return;
        }
        List<BufferedWrite> writes = buffer.take();
        beginServerTransaction();
        List<Step> steps = plan(writes);
        long start = System.nanoTime();
        try {
            BatchExecutor.Outcome outcome = BatchExecutor.run(delegate(), FlushPlanner.asPlan(steps), List.of(), 0, 0);
            counted(writes, steps.size(), outcome.statementsSent(), outcome.roundTrips(), System.nanoTime() - start);
        } catch (BatchExecutor.Undone undone) {
            afterUndone(undone, writes, when);
            if (undone.guarded()) {
                BatchExecutor.releaseGuard(delegate());
            }
        }
    }

    private List<Step> plan(List<BufferedWrite> writes) {
        return FlushPlanner.plan(writes, SessionFacts.of(delegate()), connection.flushlessConfig().maxRowsPerStatement());
    }

    private void counted(List<BufferedWrite> writes, int statements, int sent, int trips, long nanos) {
        int rows = 0;
        for (BufferedWrite write : writes) {
            rows += write.rows().size();
        }
        connection.stats.rewrite(FlushPlanner.REWRITE_KIND, rows, statements, sent, trips, nanos);
    }

    /**
     * A flush failed and was undone. A count mismatch fails the transaction; any other error is pinned by
     * re-running the buffered writes as the application sent them (see {@link #replayAsSent}).
     */
    private void afterUndone(BatchExecutor.Undone undone, List<BufferedWrite> writes, String when) throws SQLException {
        connection.catalog.clear();
        if (isCountMismatch(undone.sqlCause())) {
            failed = countMismatch(undone.sqlCause());
            throw failed;
        }
        replayAsSent(writes, when);
    }

    // ---- batches that ride along with the buffer ----

    /** Buffered writes sent ahead of a coalesced batch, in the batch's own round trip. */
    record Ride(List<BufferedWrite> writes, List<Step> steps) {
        /** {@code plan} with the buffered writes' statements first. */
        BatchPlan prepend(BatchPlan plan) {
            List<Step> all = new ArrayList<>(steps);
            all.addAll(plan.statements());
            return new BatchPlan(plan.rewriteKind(), all, null);
        }
    }

    /**
     * Before a coalesced batch whose counts the application needs: takes the buffer to ride ahead of it
     * ({@code null} when empty) and opens the server transaction.
     */
    Ride takeRide() throws SQLException {
        if (!active()) {
            return null;
        }
        checkNotFailed();
        beginServerTransaction();
        if (buffer.isEmpty()) {
            return null;
        }
        List<BufferedWrite> writes = buffer.take();
        return new Ride(writes, plan(writes));
    }

    /** The ride was sent with its batch. */
    void rideSent(Ride ride) {
        counted(ride.writes(), ride.steps().size(), ride.steps().size(), 0, 0);
    }

    /**
     * The batch and its ride failed and were undone: re-runs the buffered writes as sent (raising the first
     * error, pinned to its statement); the caller then re-runs its batch as sent.
     */
    void rideUndone(Ride ride, BatchExecutor.Undone undone) throws SQLException {
        afterUndone(undone, ride.writes(), "with the batch that followed them");
    }

    // ---- a single write that rides along with the buffer ----

    /** {@link #rideAlong}'s answer when the statement did not ride (the caller runs it after the flush point). */
    static final long NOT_RIDDEN = Long.MIN_VALUE;

    /**
     * A write whose update count the application needs, run together with the buffered writes in one round
     * trip: returns its update count, or {@link #NOT_RIDDEN} when the buffer is empty or the statement cannot
     * ride (RETURNING, several statements, a parameter not set, a {@code ?} in a plain Statement's text).
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     * @param batch the application ran it as a batch of one row ({@code executeBatch()}), see {@link #runAsSent}
     */
    long rideAlong(String sql, Bind[] row, int queryTimeoutSeconds, boolean batch) throws SQLException {
        if (!active() || buffer.isEmpty() || failed != null
                || !dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql).isWrite()) {
            return NOT_RIDDEN;
        }
        StatementDescription statement = connection.analyzer.describe(sql);
        int parameters = statement.parameterCount();
        if (!statement.isSingleStatement() || statement.hasReturning() || (row == null ? parameters > 0
                : row.length < parameters || java.util.Arrays.asList(row).subList(0, parameters).contains(null))
                || connection.flushlessConfig().exactSequences() && mayDrawFromSequences(statement)) {
            return NOT_RIDDEN;
        }
        List<BufferedWrite> writes = buffer.take();
        beginServerTransaction();
        List<Step> steps = new ArrayList<>(plan(writes));
        String text = sql.substring(0, statement.textEnd());
        steps.add(new Step(text, new int[] {0}, BatchPlan.Decoding.UPDATE_COUNT, parameters, new Bind[0], null, null));
        Bind[] bound = row == null ? new Bind[0] : row;
        long start = System.nanoTime();
        try {
            BatchExecutor.Outcome outcome = BatchExecutor.run(delegate(), FlushPlanner.asPlan(steps), List.<Bind[]>of(bound),
                    parameters, queryTimeoutSeconds);
            counted(writes, steps.size() - 1, outcome.statementsSent() - 1, 0, System.nanoTime() - start);
            connection.stats.executed(true);
            return outcome.counts()[0];
        } catch (BatchExecutor.Undone undone) {
            afterUndone(undone, writes, "with the statement " + abbreviate(sql));
            // The buffered writes ran as sent; now the statement itself, so that its error is the server's own.
            long count = runAsSent(sql, bound, parameters, row == null, batch, queryTimeoutSeconds);
            if (undone.guarded()) {
                BatchExecutor.releaseGuard(delegate());
            }
            return count;
        }
    }

    /**
     * {@code flushless.exactSequences=true}: whether {@code statement} may draw sequence values, so that a failed
     * round trip it rode in would draw them twice (a sequence function, or an INSERT into a table that draws ids
     * from a sequence, or whose table is not known).
     */
    private boolean mayDrawFromSequences(StatementDescription statement) {
        if (statement.callsSequenceFunctions()) {
            return true;
        }
        if (statement.kind() != StatementDescription.Kind.INSERT) {
            return false;
        }
        try {
            return connection.catalog.lookup(delegate(), statement.targetTable()).drawsFromSequences();
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Runs a write that rode along after its round trip failed and the buffered writes were re-run: exactly as the
     * application called it, so that its error is pgjdbc's own. A batch of one row runs as a batch: for
     * {@code executeBatch()} pgjdbc reports a failing row as a {@code BatchUpdateException} (with the row's update
     * counts, and the server's error as its next exception), never as the plain {@code PSQLException} a single
     * execution of the same statement throws, and applications catch the one they were promised.
     */
    private long runAsSent(String sql, Bind[] row, int parameters, boolean plainStatement, boolean batch,
            int queryTimeoutSeconds) throws SQLException {
        connection.stats.executed(true);
        if (plainStatement) {
            try (Statement statement = delegate().createStatement()) {
                statement.setQueryTimeout(queryTimeoutSeconds);
                return statement.executeLargeUpdate(sql);
            }
        }
        try (PreparedStatement statement = delegate().prepareStatement(sql)) {
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

    // ---- end of the transaction ----

    void commit() throws SQLException {
        if (!active()) {
            delegate().commit(); // pgjdbc's own "autocommit is on" error
            return;
        }
        if (failed != null) {
            SQLException cause = failed;
            rollback();
            throw new SQLException("Flushless: commit() failed because the transaction had already failed: "
                    + cause.getMessage() + " It was rolled back.", cause.getSQLState(), cause);
        }
        if (buffer.isEmpty()) {
            if (!delegate().getAutoCommit()) {
                try {
                    delegate().commit();
                } finally {
                    endServerTransaction();
                }
            }
            return;
        }
        List<BufferedWrite> writes = buffer.take();
        List<Step> steps = plan(writes);
        BatchPlan plan = FlushPlanner.asPlan(steps);
        long start = System.nanoTime();
        boolean fused = delegate().getAutoCommit();
        BatchExecutor.Outcome outcome;
        try {
            // Nothing of the transaction reached the server yet: its writes form one implicit transaction
            // (one Sync), committed together or not at all. Otherwise the writes and the COMMIT share a round trip.
            outcome = fused ? BatchExecutor.run(delegate(), plan, List.of(), 0, 0)
                    : BatchExecutor.runThenCommit(delegate(), plan, 0);
        } catch (BatchExecutor.Undone undone) {
            commitAfterUndone(undone, writes);
            return;
        } catch (SQLException e) {
            rollbackQuietly(e); // the COMMIT or the connection failed: the transaction is over either way
            throw e;
        }
        counted(writes, steps.size(), outcome.statementsSent(), outcome.roundTrips(), System.nanoTime() - start);
        if (!fused) {
            try {
                delegate().commit(); // nothing to send: the COMMIT already ran
            } finally {
                endServerTransaction();
            }
        }
    }

    /** The writes sent at commit failed and were undone: pin the error, and commit only if nothing fails. */
    private void commitAfterUndone(BatchExecutor.Undone undone, List<BufferedWrite> writes) throws SQLException {
        try {
            beginServerTransaction();
            afterUndone(undone, writes, "at commit()");
            if (undone.guarded()) {
                BatchExecutor.releaseGuard(delegate());
            }
            delegate().commit();
        } catch (SQLException e) {
            failed = null;
            rollbackQuietly(e);
            throw e;
        } finally {
            endServerTransactionQuietly();
        }
    }

    void rollback() throws SQLException {
        if (!active()) {
            delegate().rollback(); // pgjdbc's own "autocommit is on" error
            return;
        }
        if (failed == null && buffer.drawsFromSequences()) {
            drawSequenceValues();
        }
        buffer.discard();
        failed = null;
        if (!delegate().getAutoCommit()) {
            try {
                delegate().rollback();
            } finally {
                endServerTransaction();
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
        List<Step> steps = plan(writes);
        long start = System.nanoTime();
        try {
            beginServerTransaction();
            BatchExecutor.Outcome outcome = BatchExecutor.run(delegate(), FlushPlanner.asPlan(steps), List.of(), 0, 0);
            counted(writes, steps.size(), outcome.statementsSent(), outcome.roundTrips(), System.nanoTime() - start);
        } catch (BatchExecutor.Undone undone) {
            // a write the application would have seen fail (deviation 1); the attempt's draws are deviation 4's
            int rows = 0;
            for (BufferedWrite write : writes) {
                rows += write.rows().size();
            }
            connection.stats.fallback(DRAW_BEFORE_ROLLBACK_FAILED, rows);
        } catch (SQLException e) {
            // rolled back next; a broken connection reports itself there
        }
    }

    /** Fallback reason counted when the writes sent before rollback() (to draw their ids) fail. */
    static final String DRAW_BEFORE_ROLLBACK_FAILED = "writes sent before rollback() to draw their ids failed";

    /** {@code abort()}: the connection goes away; nothing buffered is sent. */
    void discard() {
        buffer.discard();
    }

    void setAutoCommit(boolean value) throws SQLException {
        if (!enabled || bypassed) {
            delegate().setAutoCommit(value);
            return;
        }
        if (delegate().isClosed()) {
            delegate().setAutoCommit(value); // pgjdbc's own "connection closed" error
        }
        if (value == autoCommit) {
            return;
        }
        if (value) {
            commit(); // JDBC: switching autocommit on commits the open transaction
        }
        autoCommit = value;
    }

    boolean getAutoCommit() throws SQLException {
        if (!enabled || bypassed) {
            return delegate().getAutoCommit();
        }
        if (delegate().isClosed()) {
            return delegate().getAutoCommit(); // pgjdbc's own "connection closed" error
        }
        return autoCommit;
    }

    private void rollbackQuietly(SQLException cause) {
        buffer.discard();
        try {
            if (!delegate().getAutoCommit()) {
                delegate().rollback();
            }
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
        endServerTransactionQuietly();
    }

    private void endServerTransactionQuietly() {
        try {
            endServerTransaction();
        } catch (SQLException ignored) {
            // the connection is broken; its next use reports that
        }
    }

    private void checkNotFailed() throws SQLException {
        if (failed != null) {
            throw new SQLException("Flushless: the transaction failed earlier (" + failed.getMessage()
                    + "); roll it back.", "25P02", failed);
        }
    }

    // ---- errors ----

    /**
     * Runs the buffered writes one application call at a time, as the application sent them, in the server
     * transaction: the first one that fails raises the server's error (SQLState kept, the server's exception as
     * the cause) naming the application statement and batch row, and leaves the transaction aborted as that
     * statement would have left it under bare pgjdbc.
     */
    private void replayAsSent(List<BufferedWrite> writes, String when) throws SQLException {
        int rows = 0;
        for (BufferedWrite write : writes) {
            rows += write.rows().size();
        }
        connection.stats.fallback("buffered writes failed when sent together, re-run as sent", rows);
        for (BufferedWrite write : writes) {
            try {
                if (write.plainStatement()) {
                    try (Statement statement = delegate().createStatement()) {
                        statement.executeUpdate(write.sql());
                    }
                    continue;
                }
                try (PreparedStatement statement = delegate().prepareStatement(write.sql())) {
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
                SQLException server = e.getNextException() != null ? e.getNextException() : e;
                throw pinned(write, failedBatchRow(e), server, when);
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

    private static SQLException pinned(BufferedWrite write, int row, SQLException server, String when) {
        String where = write.batch() && row >= 0 ? " (batch row " + (row + 1) + " of " + write.rows().size() + ")" : "";
        SQLException pinned = new SQLException("Flushless (flushless.mode=transaction): the buffered write "
                + abbreviate(write.sql()) + where + " failed when the transaction's writes were sent " + when + ": "
                + server.getMessage() + " The transaction is aborted, as it would have been at that statement;"
                + " roll it back.", server.getSQLState(), server.getErrorCode(), server);
        return pinned;
    }

    private static boolean isCountMismatch(SQLException e) {
        return e.getMessage() != null && e.getMessage().contains(Rewriter.COUNT_CHECK_MARKER);
    }

    private static SQLException countMismatch(SQLException cause) {
        return new SQLException("Flushless: a buffered INSERT inserted a different number of rows than the count"
                + " acknowledged to the application (a trigger or rule was probably added to its table by another"
                + " session); the transaction cannot commit. Roll it back and retry; Flushless reads the table's"
                + " definition again.", "XX000", cause);
    }

    static String abbreviate(String sql) {
        String flat = sql.strip().replaceAll("\\s+", " ");
        return "\"" + (flat.length() > 120 ? flat.substring(0, 117) + "..." : flat) + "\"";
    }
}
