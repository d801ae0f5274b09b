package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
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
public final class TransactionBuffering {

    private final Session session;
    private final boolean enabled;
    private final TransactionBuffer buffer = new TransactionBuffer();
    /** Rows the open transaction holds locked, by key ({@link LockedRows}); their keyed UPDATEs can be buffered. */
    private final LockedRows locked = new LockedRows();
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

    public TransactionBuffering(Session session, boolean enabled) {
        this.session = session;
        this.enabled = enabled;
        if (enabled) {
            try {
                autoCommit = session.delegate().getAutoCommit();
            } catch (SQLException e) {
                autoCommit = true; // a closed connection: every later call fails in pgjdbc anyway
            }
        }
    }

    /** True while an explicit transaction of a {@code mode=transaction} connection is open. */
    public boolean active() {
        return enabled && !bypassed && !autoCommit;
    }

    /** True when writes are buffered now (they would ride ahead of the next statement sent). */
    public boolean hasBuffered() {
        return active() && !buffer.isEmpty();
    }

    /**
     * The application's savepoints open now, oldest first ({@code setSavepoint}; a {@code rollback(Savepoint)} keeps
     * its savepoint, as PostgreSQL does; {@code releaseSavepoint} and the end of the transaction close them).
     */
    private final List<java.sql.Savepoint> savepoints = new ArrayList<>();
    /** A {@code SAVEPOINT} ran as SQL text in this transaction: its scope is not tracked, so it lasts to the end. */
    private boolean savepointText;

    /**
     * Whether a write may be buffered or ride along now. Not while the application has a savepoint open: code that
     * sets a savepoint means to catch a write's error and roll back to it (the most common JDBC error handling, and
     * Spring's NESTED propagation), so every write inside it runs at once and fails at once, as under bare pgjdbc.
     * Not when pgjdbc's {@code autosave} is on either: pgjdbc then rolls a failed statement back by itself and the
     * transaction goes on, which a write failing at a later call would break.
     */
    private boolean buffering() {
        return active() && savepoints.isEmpty() && !savepointText && !autosave();
    }

    private boolean autosave() {
        try {
            return session.delegate().isWrapperFor(org.postgresql.PGConnection.class)
                    && session.delegate()
                                    .unwrap(org.postgresql.PGConnection.class)
                                    .getAutosave()
                            != org.postgresql.jdbc.AutoSave.NEVER;
        } catch (SQLException | RuntimeException e) {
            return false; // not pgjdbc: it has no autosave
        }
    }

    /** The application set {@code savepoint} (after the buffer was sent): pgjdbc sent its SAVEPOINT. */
    public void savepointSet(java.sql.Savepoint savepoint) {
        session.stats().transactionControl();
        if (active()) {
            savepoints.add(savepoint);
        }
    }

    /**
     * The application rolled back to {@code savepoint} (pgjdbc sent ROLLBACK TO SAVEPOINT): the savepoints set after
     * it are gone, it stays open.
     */
    public void rolledBackTo(java.sql.Savepoint savepoint) {
        session.stats().transactionControl();
        locked.forget(); // the locks taken after the savepoint are gone
        int index = savepoints.indexOf(savepoint);
        if (index >= 0) {
            savepoints.subList(index + 1, savepoints.size()).clear();
        }
    }

    /**
     * The application released {@code savepoint} (pgjdbc sent RELEASE SAVEPOINT): it and the savepoints set after it
     * are gone.
     */
    public void released(java.sql.Savepoint savepoint) {
        session.stats().transactionControl();
        int index = savepoints.indexOf(savepoint);
        if (index >= 0) {
            savepoints.subList(index, savepoints.size()).clear();
        }
    }

    /** The transaction ended: no savepoint of it is open any more. */
    private void transactionEnded() {
        savepoints.clear();
        savepointText = false;
        locked.forget();
    }

    /** SQL text the application sends through a Statement: a {@code SAVEPOINT} among it opens an untracked scope. */
    public void noteText(String sql) {
        if (active() && "savepoint".equals(dev.flushless.jdbc.analysis.SqlAnalyzer.leadingWord(sql))) {
            savepointText = true;
        }
    }

    /**
     * The pgjdbc connection is being handed out: sends the buffer, opens the server transaction if the
     * application's is open, and stops buffering on this connection for good (see {@link #bypassed}).
     */
    public void handOut(String call) throws SQLException {
        beforeConnectionCall(call, true);
        bypassed = true;
    }

    private Connection delegate() {
        return session.delegate();
    }

    // ---- buffering ----

    /**
     * Buffers {@code rows} of {@code statement} when the transaction may: returns false (nothing buffered) when
     * the statement's count is not known in advance or the table, session or transaction state rule it out.
     */
    public boolean tryBuffer(StatementDescription statement, List<Bind[]> rows, boolean plainStatement, boolean batch)
            throws SQLException {
        TableInfo table =
                firstWriteAsSent(statement, rows.size()) ? null : bufferableTable(statement, rows, plainStatement);
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
    public TableInfo bufferableTable(StatementDescription statement, List<Bind[]> rows, boolean plainStatement)
            throws SQLException {
        if (!buffering() || failed != null || BufferRules.whyNotBufferable(statement, rows, plainStatement) != null) {
            return null;
        }
        return transactionFailed(delegate()) ? null : writableTable(statement);
    }

    /**
     * The table of a keyed UPDATE whose {@code rows} may all be buffered ({@link BufferRules#whyNotBufferableUpdate}:
     * each updates one row the transaction holds locked, so its count, 1, is known), else {@code null}.
     */
    public TableInfo bufferableUpdate(StatementDescription statement, List<Bind[]> rows) throws SQLException {
        if (!buffering()
                || failed != null
                || locked.isEmpty()
                || statement.kind() != StatementDescription.Kind.UPDATE
                || !statement.isCoalescable()
                || transactionFailed(delegate())) {
            return null;
        }
        Connection delegate = delegate();
        if (delegate.isClosed() || delegate.isReadOnly()) {
            return null;
        }
        TableInfo table;
        try {
            table = session.catalog().lookup(delegate, statement.targetTable());
        } catch (SQLException e) {
            return null;
        }
        for (Bind[] row : rows) {
            if (BufferRules.whyNotBufferableUpdate(statement, row, table, locked) != null) {
                return null;
            }
        }
        return table;
    }

    /**
     * After a query ran as sent: a locking read of one table by key ({@link StatementDescription#lockingRead}) that
     * returned its row adds the row to the rows the transaction holds locked. Only while writes may be buffered (no
     * savepoint open: a rollback to it would release the lock).
     *
     * @param row the query's parameters as the application set them
     * @param rows its result, positioned before its first row
     */
    public void queried(StatementDescription query, Bind[] row, java.sql.ResultSet rows) throws SQLException {
        StatementDescription.LockingRead read = query.lockingRead();
        if (read == null || row == null || rows == null || !buffering() || failed != null) {
            return;
        }
        java.util.Map<String, Object> values = BufferRules.keyValues(read.keys(), row);
        if (values.size() != read.keys().size() || !rows.isBeforeFirst()) {
            return; // a key value unset or NULL (it matches nothing), or no row returned
        }
        TableInfo table;
        try {
            table = session.catalog().lookup(delegate(), read.table());
        } catch (SQLException e) {
            return;
        }
        if (table.kindProblem() == null && table.family().length == 1) {
            locked.locked(table.oid(), values, read.strength());
        }
    }

    /**
     * Before a statement runs as sent in the transaction: unless it is a read that changes nothing (a plain read, or
     * a locking read), it might delete a locked row or change its key, so the locks known are forgotten.
     */
    private void forgetLocksUnlessRead(String sql) {
        if (locked.isEmpty()) {
            return;
        }
        if (dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql) == StatementDescription.Kind.SELECT) {
            StatementDescription query = session.analyzer().describe(sql);
            if (query.tablesRead() != null || query.lockingRead() != null) {
                return;
            }
        }
        locked.forget();
    }

    /**
     * {@link BufferRules#firstWriteAsSent}, for this connection: true (and remembered) only once per table. Asked
     * before {@link #bufferableTable}; the caller counts the fallback.
     */
    public boolean firstWriteAsSent(StatementDescription statement, int rows) {
        return buffering()
                && BufferRules.firstWriteAsSent(
                        session.config(),
                        session.server().yugabyte(),
                        statement.targetTable(),
                        rows,
                        session.catalog()::firstWriteUnread);
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
            table = session.catalog().lookup(delegate, statement.targetTable());
        } catch (SQLException e) {
            return null;
        }
        FlushlessConfig config = session.config();
        return table.insertBarrier(config.trustTriggers(), config.exactSequences()) == null ? table : null;
    }

    /**
     * Group commit: the table of a single-row plain INSERT whose count (1) a multi-row statement reproduces
     * exactly, or {@code null} (same rules as for buffering: no RETURNING, ON CONFLICT, triggers, rules or
     * row-level security; every parameter set; a connection neither read-only nor closed).
     */
    public TableInfo singleRowInsertTable(StatementDescription statement, Bind[] row) throws SQLException {
        return BufferRules.whyNotBufferable(statement, List.<Bind[]>of(row), false) == null
                ? writableTable(statement)
                : null;
    }

    /**
     * Adds a write {@link #bufferableTable} accepted. The buffer never holds more than
     * {@code flushless.maxBufferedRows} rows or {@code maxBufferedBytes}: what it holds is sent first when the
     * write would cross a bound, and a single write larger than a bound is sent at once.
     */
    public void buffer(
            StatementDescription statement, TableInfo table, List<Bind[]> rows, boolean plainStatement, boolean batch)
            throws SQLException {
        BufferedWrite write = new BufferedWrite(statement, table, rows, plainStatement, batch);
        if (statement.kind() == StatementDescription.Kind.UPDATE) {
            List<String> set = new ArrayList<>();
            for (StatementDescription.Assignment assignment : statement.assignments()) {
                set.add(assignment.column());
            }
            for (Bind[] row : rows) {
                locked.updated(table.oid(), BufferRules.keyValues(statement.keys(), row), set);
            }
        }
        long maxRows = session.config().maxBufferedRows();
        long maxBytes = session.config().maxBufferedBytes();
        String when = "when the buffer reached flushless.maxBufferedRows or flushless.maxBufferedBytes";
        if (BufferRules.sendBeforeAdding(buffer, rows.size(), write.estimatedBytes(), maxRows, maxBytes)) {
            flush(when);
        }
        buffer.add(write);
        if (BufferRules.sendAfterAdding(buffer, maxRows, maxBytes)) {
            flush(when);
        }
    }

    /** Rows buffered now (tests check the bound). */
    public long bufferedRows() {
        return buffer.rows();
    }

    /** Estimated bytes buffered now (tests check the bound). */
    public long bufferedBytes() {
        return buffer.bytes();
    }

    private void commitInPgjdbc() throws SQLException {
        endInPgjdbc(true);
    }

    private void rollbackInPgjdbc() throws SQLException {
        endInPgjdbc(false);
    }

    /**
     * pgjdbc's commit() or rollback(); its round trip is counted in the report when pgjdbc sends a COMMIT or ROLLBACK
     * (it does only with a server transaction open).
     */
    private void endInPgjdbc(boolean commit) throws SQLException {
        boolean sends = serverTransactionOpen();
        try {
            if (commit) {
                delegate().commit();
            } else {
                delegate().rollback();
            }
        } finally {
            if (sends) {
                session.stats().transactionControl();
            }
        }
    }

    /** True when pgjdbc has a server transaction open, so that ending it sends a COMMIT or ROLLBACK. */
    private boolean serverTransactionOpen() {
        org.postgresql.core.TransactionState state = transactionState(delegate());
        return state != null && state != org.postgresql.core.TransactionState.IDLE;
    }

    /** True when pgjdbc knows the server transaction is aborted (every statement fails until rollback). */
    private static boolean transactionFailed(Connection delegate) {
        org.postgresql.core.TransactionState state = transactionState(delegate);
        return state == null || state == org.postgresql.core.TransactionState.FAILED; // not pgjdbc: do not buffer
    }

    /** pgjdbc's transaction state, or {@code null} when the delegate is not pgjdbc. */
    private static org.postgresql.core.TransactionState transactionState(Connection delegate) {
        try {
            return delegate.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }

    // ---- flush points ----

    /**
     * Before a statement the application runs on pgjdbc inside the transaction: sends the buffer first unless
     * the statement is a read that cannot see the buffered rows, then opens the server transaction.
     */
    public void beforeServerStatement(String sql) throws SQLException {
        if (!active()) {
            return;
        }
        checkNotFailed();
        forgetLocksUnlessRead(sql);
        if (!buffer.isEmpty() && mustFlushBefore(sql)) {
            flush("before the statement " + abbreviate(sql));
        }
        noteText(sql);
        beginServerTransaction();
    }

    /**
     * Runs the application's {@code query} ({@code parameters} bound as it set them) with the buffered writes sent
     * ahead of it in its own round trip, when the query must send them first ({@link #mustFlushBefore}): a read of a
     * table they wrote, a locking read, a read the analysis cannot bound. The writes still run before the query, in the
     * application's order, so it sees them and takes its locks after theirs, as under bare pgjdbc; only the round trip
     * of their own is saved. Returns {@code null} when nothing needs to go first (or the query cannot carry them); the
     * caller then runs it as sent. See {@link BatchExecutor#runThenQuery} for errors.
     */
    public BatchExecutor.QueryOutcome query(
            String sql, StatementDescription query, Bind[] parameters, BatchExecutor.QuerySettings settings)
            throws SQLException {
        if (!active()) {
            return null;
        }
        checkNotFailed();
        forgetLocksUnlessRead(sql);
        if (buffer.isEmpty() || !mustFlushBefore(sql)) {
            return null;
        }
        List<BufferedWrite> writes = buffer.take();
        beginServerTransaction();
        List<Step> steps = plan(writes);
        String text = sql.substring(0, query.textEnd());
        long start = System.nanoTime();
        try {
            BatchExecutor.QueryOutcome outcome = Attempt.run(
                    session,
                    () -> BatchExecutor.runThenQuery(delegate(), steps, text, parameters, settings),
                    undone -> {
                        afterUndone(undone, writes, "before the statement " + abbreviate(sql));
                        return null; // the writes ran as sent; the query runs as sent after this returns
                    });
            if (outcome != null) {
                counted(writes, steps.size(), steps.size() + 2, 0, System.nanoTime() - start);
                session.stats().executed(false);
            }
            return outcome;
        } catch (BatchExecutor.QueryFailed failed) {
            counted(writes, steps.size(), steps.size() + 2, 0, System.nanoTime() - start);
            session.stats().executed(false);
            throw failed.error();
        }
    }

    /**
     * A read may run before the buffered INSERTs when it provably reads none of the tables they write:
     * one SELECT of plain tables (views, functions that could read anything and locking clauses send the
     * buffer first). Sequence functions count as reads of the buffered tables that draw ids from sequences:
     * {@code INSERT ... ; SELECT currval('t_id_seq')} must see the INSERT's id, and a {@code nextval} must not
     * take the id the INSERT would have drawn before it.
     */
    private boolean mustFlushBefore(String sql) {
        StatementDescription.Kind lead = dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql);
        return BufferRules.beforeStatement(
                        lead,
                        lead == StatementDescription.Kind.SELECT
                                ? session.analyzer().describe(sql)
                                : null,
                        buffer,
                        name -> session.catalog().lookup(delegate(), name))
                != BufferRules.Flush.NONE;
    }

    /**
     * Before a connection call that the buffered writes must precede (savepoints, isolation or read-only
     * changes, {@code setSchema}, handing out the pgjdbc connection, close).
     *
     * @param begin also open the server transaction (savepoints and unwrap need it open, as in bare pgjdbc)
     */
    public void beforeConnectionCall(String call, boolean begin) throws SQLException {
        if (!active()) {
            return;
        }
        checkNotFailed();
        locked.forget(); // a Statement batch, unwrap or close: what runs next is not followed
        flush("before " + call);
        if (begin) {
            beginServerTransaction();
        }
    }

    /**
     * Before pgjdbc creates a large object for a parameter ({@code setBlob}, {@code setClob}, a Blob or Clob given to
     * {@code setObject}): pgjdbc does that at once, and only inside a transaction by its own autocommit setting, which
     * lags behind the application's until something is sent. Opens the server transaction (no round trip of its own);
     * what is buffered stays buffered.
     */
    public void beforeLargeObject() throws SQLException {
        if (active()) {
            checkNotFailed();
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
    public void flush(String when) throws SQLException {
        if (buffer.isEmpty()) {
            return;
        }
        List<BufferedWrite> writes = buffer.take();
        beginServerTransaction();
        List<Step> steps = plan(writes);
        long start = System.nanoTime();
        Attempt.run(
                session,
                () -> {
                    BatchExecutor.Outcome outcome =
                            BatchExecutor.run(delegate(), FlushPlanner.asPlan(steps), List.of(), 0, 0);
                    counted(
                            writes,
                            steps.size(),
                            outcome.statementsSent(),
                            outcome.roundTrips(),
                            System.nanoTime() - start);
                    return null;
                },
                undone -> {
                    afterUndone(undone, writes, when);
                    return null;
                });
    }

    private List<Step> plan(List<BufferedWrite> writes) {
        return FlushPlanner.plan(
                writes, SessionFacts.of(delegate()), session.config().maxRowsPerStatement());
    }

    private void counted(List<BufferedWrite> writes, int statements, int sent, int trips, long nanos) {
        int rows = 0;
        for (BufferedWrite write : writes) {
            rows += write.rows().size();
        }
        session.stats().rewrite(FlushPlanner.REWRITE_KIND, rows, statements, sent, trips, nanos);
    }

    /**
     * A flush failed and was undone. A count mismatch fails the transaction; any other error is pinned by
     * re-running the buffered writes as the application sent them (see {@link #replayAsSent}).
     */
    private void afterUndone(BatchExecutor.Undone undone, List<BufferedWrite> writes, String when) throws SQLException {
        if (isCountMismatch(undone.sqlCause())) {
            failed = countMismatch(undone.sqlCause());
            throw failed;
        }
        replayAsSent(writes, when);
    }

    // ---- batches that ride along with the buffer ----

    /** Buffered writes sent ahead of a coalesced batch, in the batch's own round trip. */
    public record Ride(List<BufferedWrite> writes, List<Step> steps) {
        /** {@code plan} with the buffered writes' statements first. */
        public BatchPlan prepend(BatchPlan plan) {
            List<Step> all = new ArrayList<>(steps);
            all.addAll(plan.statements());
            return new BatchPlan(plan.rewriteKind(), all, null);
        }
    }

    /**
     * Before a coalesced batch whose counts the application needs: takes the buffer to ride ahead of it
     * ({@code null} when empty) and opens the server transaction.
     */
    public Ride takeRide() throws SQLException {
        if (!active()) {
            return null;
        }
        checkNotFailed();
        locked.forget(); // a coalesced write follows
        beginServerTransaction();
        if (buffer.isEmpty()) {
            return null;
        }
        List<BufferedWrite> writes = buffer.take();
        return new Ride(writes, plan(writes));
    }

    /** The ride was sent with its batch (whose outcome counts the statements and the round trip they shared). */
    public void rideSent(Ride ride) {
        counted(ride.writes(), ride.steps().size(), 0, 0, 0);
    }

    /**
     * The batch and its ride failed and were undone: re-runs the buffered writes as sent (raising the first
     * error, pinned to its statement); the caller then re-runs its batch as sent.
     */
    public void rideUndone(Ride ride, BatchExecutor.Undone undone) throws SQLException {
        afterUndone(undone, ride.writes(), "with the batch that followed them");
    }

    // ---- a single write that rides along with the buffer ----

    /**
     * Whether a write whose update count the application needs can run together with the buffered writes in one
     * round trip: the buffer holds something, and the statement is one write whose parameters are all set, without
     * RETURNING (and, with {@code flushless.exactSequences=true}, one that cannot draw from a sequence, since a failed
     * round trip would draw twice). Not for a {@code ?} in a plain Statement's text ({@code row} null), an operator there.
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     */
    public boolean rideable(String sql, Bind[] row) {
        if (!buffering()
                || buffer.isEmpty()
                || failed != null
                || !dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql).isWrite()) {
            return false;
        }
        StatementDescription statement = session.analyzer().describe(sql);
        return BufferRules.whyNotRideable(
                        statement,
                        row,
                        session.config().exactSequences(),
                        () -> BufferRules.mayDrawFromSequences(
                                statement, name -> session.catalog().lookup(delegate(), name)))
                == null;
    }

    /**
     * Runs a {@link #rideable} write together with the buffered writes in one round trip and returns its update count.
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     * @param batch the application ran it as a batch of one row ({@code executeBatch()}), see {@link #runAsSent}
     */
    public long rideAlong(String sql, Bind[] row, int queryTimeoutSeconds, boolean batch) throws SQLException {
        StatementDescription statement = session.analyzer().describe(sql);
        int parameters = statement.parameterCount();
        locked.forget(); // the write rides along as sent
        List<BufferedWrite> writes = buffer.take();
        beginServerTransaction();
        List<Step> steps = FlushPlanner.withRider(plan(writes), sql, statement);
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
                            delegate(),
                            FlushPlanner.asPlan(steps),
                            List.<Bind[]>of(bound),
                            parameters,
                            queryTimeoutSeconds);
                    counted(writes, steps.size() - 1, outcome.statementsSent() - 1, 0, System.nanoTime() - start);
                    session.stats().executed(true);
                    return outcome.counts()[0];
                },
                undone -> {
                    afterUndone(undone, writes, "with the statement " + abbreviate(sql));
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

    public void commit() throws SQLException {
        if (!active()) {
            commitInPgjdbc(); // pgjdbc's own "autocommit is on" error
            return;
        }
        transactionEnded();
        if (failed != null) {
            SQLException cause = failed;
            rollback();
            throw Errors.keepingState(
                    "Flushless: commit() failed because the transaction had already failed: " + cause.getMessage()
                            + " It was rolled back.",
                    cause);
        }
        if (buffer.isEmpty()) {
            if (!delegate().getAutoCommit()) {
                try {
                    commitInPgjdbc();
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
            outcome = Attempt.run(
                    session,
                    () -> fused
                            ? BatchExecutor.run(delegate(), plan, List.of(), 0, 0)
                            : BatchExecutor.runThenCommit(delegate(), plan, 0),
                    undone -> {
                        // pin the error: the writes run as sent in the (then opened) transaction, committed below
                        beginServerTransaction();
                        afterUndone(undone, writes, "at commit()");
                        return null;
                    });
        } catch (SQLException e) {
            failed = null;
            rollbackQuietly(e); // the COMMIT, the connection or a buffered write failed: the transaction is over
            throw e;
        }
        if (outcome == null) {
            commitAfterRecovery();
            return;
        }
        counted(writes, steps.size(), outcome.statementsSent(), outcome.roundTrips(), System.nanoTime() - start);
        if (!fused) {
            try {
                commitInPgjdbc(); // nothing to send: the COMMIT already ran
            } finally {
                endServerTransaction();
            }
        }
    }

    /** The writes sent at commit failed, were undone and then ran as sent without an error: commit them. */
    private void commitAfterRecovery() throws SQLException {
        try {
            commitInPgjdbc();
        } catch (SQLException e) {
            rollbackQuietly(e);
            throw e;
        } finally {
            endServerTransactionQuietly();
        }
    }

    public void rollback() throws SQLException {
        if (!active()) {
            rollbackInPgjdbc(); // pgjdbc's own "autocommit is on" error
            return;
        }
        transactionEnded();
        if (BufferRules.sendBeforeRollback(buffer, failed != null)) {
            drawSequenceValues();
        }
        buffer.discard();
        failed = null;
        if (!delegate().getAutoCommit()) {
            try {
                rollbackInPgjdbc();
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
            Attempt.runBeforeRollback(
                    session,
                    () -> {
                        BatchExecutor.Outcome outcome =
                                BatchExecutor.run(delegate(), FlushPlanner.asPlan(steps), List.of(), 0, 0);
                        counted(
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

    /** {@code abort()}: the connection goes away; nothing buffered is sent. */
    public void discard() {
        transactionEnded();
        buffer.discard();
    }

    public void setAutoCommit(boolean value) throws SQLException {
        if (!enabled || bypassed) {
            setAutoCommitInPgjdbc(value);
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

    /**
     * pgjdbc's {@code setAutoCommit}: switching autocommit on inside a transaction makes pgjdbc send COMMIT, a round
     * trip the report counts as transaction control.
     */
    private void setAutoCommitInPgjdbc(boolean value) throws SQLException {
        boolean sends = value && serverTransactionOpen();
        try {
            delegate().setAutoCommit(value);
        } finally {
            if (sends) {
                session.stats().transactionControl();
            }
        }
    }

    public boolean getAutoCommit() throws SQLException {
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
                rollbackInPgjdbc();
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
            throw Errors.inFailedTransaction(
                    "Flushless: the transaction failed earlier (" + failed.getMessage() + "); roll it back.", failed);
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
        session.stats().fallback(dev.flushless.jdbc.FallbackReason.BUFFER_FAILED.get(), rows);
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
                "Flushless (flushless.mode=transaction): the buffered write " + abbreviate(write.sql()) + where
                        + " failed when the transaction's writes were sent " + when + ": ",
                " The transaction is aborted, as it would have been at that statement; roll it back.",
                failure);
    }

    private static boolean isCountMismatch(SQLException e) {
        return e.getMessage() != null && e.getMessage().contains(Rewriter.COUNT_CHECK_MARKER);
    }

    private static SQLException countMismatch(SQLException cause) {
        return Errors.internal(
                "Flushless: a buffered INSERT inserted a different number of rows than the count"
                        + " acknowledged to the application (a trigger or rule was probably added to its table by another"
                        + " session); the transaction cannot commit. Roll it back and retry; Flushless reads the table's"
                        + " definition again.",
                cause);
    }

    public static String abbreviate(String sql) {
        String flat = sql.strip().replaceAll("\\s+", " ");
        return "\"" + (flat.length() > 120 ? flat.substring(0, 117) + "..." : flat) + "\"";
    }
}
