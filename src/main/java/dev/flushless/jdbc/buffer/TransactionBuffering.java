package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.Connection;
import java.sql.SQLException;
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
 * (after sending it when a buffered table draws ids from a sequence, see {@code TransactionEnd#drawSequenceValues}).
 *
 * <p>Correctness rules: every flushed statement checks inside itself that each INSERT inserted exactly the
 * acknowledged rows (a mismatch fails the transaction); a failed flush is undone and the buffered writes are
 * re-run as the application sent them, so the error raised is the server's own for the statement (and batch
 * row) that caused it, and the transaction is left aborted exactly as that statement would have left it.
 */
public final class TransactionBuffering {

    final Session session;
    private final boolean enabled;
    final TransactionBuffer buffer = new TransactionBuffer();
    /** pgjdbc's side of the transaction. */
    final ServerTransaction server;
    /** Rows the open transaction holds locked, and the keyed UPDATEs of them that can be buffered. */
    final LockedUpdates locks;
    /** What shares a round trip with the buffered writes. */
    private final RidingAlong riding;
    /** {@code commit()} and {@code rollback()}. */
    private final TransactionEnd end;
    /** What {@code getAutoCommit()} tells the application; pgjdbc's own setting lags until something is sent. */
    private boolean autoCommit = true;
    /** Set when a flush found a count other than the acknowledged one: the transaction can only roll back. */
    SQLException failed;
    /**
     * Set once the pgjdbc connection was handed out ({@code unwrap}): code holding it (CopyManager, large
     * objects) checks pgjdbc's own autocommit and writes behind the buffer's back, so from then on nothing is
     * buffered or deferred on this connection.
     */
    private boolean bypassed;

    public TransactionBuffering(Session session, boolean enabled) {
        this.session = session;
        this.enabled = enabled;
        this.server = new ServerTransaction(session);
        this.locks = new LockedUpdates(this);
        this.riding = new RidingAlong(this);
        this.end = new TransactionEnd(this);
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

    /**
     * Whether a write of {@code kind} executed now might be buffered: an INSERT while the transaction buffers, an UPDATE
     * only while rows it holds locked are known ({@link LockedUpdates}). A hint (the write's values may wait to reach
     * pgjdbc's statement), never a decision.
     */
    public boolean mayBuffer(dev.flushless.jdbc.analysis.StatementDescription.Kind kind) {
        return buffering()
                && (kind == dev.flushless.jdbc.analysis.StatementDescription.Kind.INSERT
                        || kind == dev.flushless.jdbc.analysis.StatementDescription.Kind.UPDATE && locks.any());
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
     * transaction goes on, which a write failing at a later call would break. Nor once the transaction took the
     * driver's cap of guard savepoints ({@link dev.flushless.jdbc.session.Subtransactions}).
     */
    boolean buffering() {
        return active()
                && pays
                && savepoints.isEmpty()
                && !savepointText
                && !server.autosave()
                && !session.subtransactions().exhausted(delegate()); // each flush takes a guard savepoint
    }

    /** Times of this connection's reads, for {@link #pays}. */
    private final ExchangeTimes exchanges = new ExchangeTimes(() -> ServerReadTimes.of(delegate()));
    /**
     * Whether buffering pays in the open transaction ({@link ExchangeTimes#pays}); decided when the previous one ended,
     * so one transaction never switches.
     */
    private boolean pays = true;

    /** Decides {@link #pays} for the transaction that starts next. */
    private void decidePays() {
        pays = exchanges.pays(session.config().bufferMinRoundTripMicros());
    }

    /** A read ran as sent in {@code nanos} (one round trip plus the server's work). */
    public void readTook(long nanos) {
        exchanges.add(nanos);
    }

    /**
     * Whether the open transaction runs its writes as sent because the server is too near for buffering to pay
     * ({@link dev.flushless.jdbc.FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}).
     */
    public boolean tooNearToBuffer() {
        return active() && !pays;
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
        locks.forget(); // the locks taken after the savepoint are gone
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
    void transactionEnded() {
        decidePays();
        savepoints.clear();
        savepointText = false;
        locks.forget();
    }

    /** SQL text the application sends through a Statement: a {@code SAVEPOINT} among it opens an untracked scope. */
    public void noteText(String sql) {
        if (active() && dev.flushless.jdbc.analysis.SqlAnalyzer.leadingWordIs(sql, "savepoint")) {
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

    Connection delegate() {
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
        return ServerTransaction.transactionFailed(delegate()) ? null : writableTable(statement);
    }

    /**
     * The table of a keyed UPDATE whose {@code rows} may all be buffered (each updates one row the transaction holds
     * locked, see {@code LockedUpdates}), else {@code null}.
     */
    public TableInfo bufferableUpdate(StatementDescription statement, List<Bind[]> rows) throws SQLException {
        return locks.bufferableUpdate(statement, rows);
    }

    /**
     * After a query ran as sent: a locking read by key that returned its row adds the row to the rows the transaction
     * holds locked ({@code LockedUpdates#queried}).
     *
     * @param row the query's parameters as the application set them
     * @param rows its result, positioned before its first row
     */
    public void queried(StatementDescription query, Bind[] row, java.sql.ResultSet rows) throws SQLException {
        locks.queried(query, row, rows);
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
     * The catalog facts of the table {@code statement} writes, on a connection that is open and not read-only;
     * {@code null} otherwise, or when the catalog cannot be read (the statement then runs as sent).
     */
    TableInfo targetTable(StatementDescription statement) throws SQLException {
        Connection delegate = delegate();
        if (delegate.isClosed() || delegate.isReadOnly()) {
            return null;
        }
        try {
            return session.catalog().lookup(delegate, statement.targetTable());
        } catch (SQLException e) {
            return null;
        }
    }

    /**
     * The plain table {@code statement} writes (no triggers, rules or row-level security unless trusted; no ids
     * drawn from a sequence with {@code flushless.exactSequences=true}), on a connection that is open and not
     * read-only; {@code null} otherwise, or when the catalog cannot be read.
     */
    private TableInfo writableTable(StatementDescription statement) throws SQLException {
        TableInfo table = targetTable(statement);
        if (table == null) {
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
        locks.buffered(statement, table, rows);
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
        locks.forgetLocksUnlessRead(sql);
        if (!buffer.isEmpty() && mustFlushBefore(sql)) {
            flush("before the statement " + abbreviate(sql));
        }
        noteText(sql);
        server.beginServerTransaction();
    }

    /**
     * Runs the application's {@code query} with the buffered writes sent ahead of it in its own round trip when it
     * must send them first; {@code null} when nothing needs to go first ({@code RidingAlong#query}).
     */
    public BatchExecutor.QueryOutcome query(
            String sql, StatementDescription query, Bind[] parameters, BatchExecutor.QuerySettings settings)
            throws SQLException {
        return riding.query(sql, query, parameters, settings);
    }

    /**
     * A read may run before the buffered INSERTs when it provably reads none of the tables they write:
     * one SELECT of plain tables (views, functions that could read anything and locking clauses send the
     * buffer first). Sequence functions count as reads of the buffered tables that draw ids from sequences:
     * {@code INSERT ... ; SELECT currval('t_id_seq')} must see the INSERT's id, and a {@code nextval} must not
     * take the id the INSERT would have drawn before it.
     */
    boolean mustFlushBefore(String sql) {
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
        locks.forget(); // a Statement batch, unwrap or close: what runs next is not followed
        flush("before " + call);
        if (begin) {
            server.beginServerTransaction();
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
            server.beginServerTransaction();
        }
    }

    /** Sends the buffered writes now, inside the (then opened) server transaction. */
    public void flush(String when) throws SQLException {
        if (buffer.isEmpty()) {
            return;
        }
        List<BufferedWrite> writes = buffer.take();
        server.beginServerTransaction();
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

    List<Step> plan(List<BufferedWrite> writes) {
        return FlushPlanner.plan(
                writes, SessionFacts.of(delegate()), session.config().maxRowsPerStatement());
    }

    void counted(List<BufferedWrite> writes, int statements, int sent, int trips, long nanos) {
        int rows = 0;
        for (BufferedWrite write : writes) {
            rows += write.rows().size();
        }
        session.stats().rewrite(FlushPlanner.REWRITE_KIND, rows, statements, sent, trips, nanos);
    }

    /**
     * A flush failed and was undone. A count mismatch fails the transaction; any other error is pinned by
     * re-running the buffered writes as the application sent them (see {@link ReplayAsSent#replayAsSent}).
     */
    void afterUndone(BatchExecutor.Undone undone, List<BufferedWrite> writes, String when) throws SQLException {
        if (ReplayAsSent.isCountMismatch(undone.sqlCause())) {
            failed = ReplayAsSent.countMismatch(undone.sqlCause());
            throw failed;
        }
        ReplayAsSent.replayAsSent(session, writes, when);
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
        return riding.takeRide();
    }

    /** The ride was sent with its batch (whose outcome counts the statements and the round trip they shared). */
    public void rideSent(Ride ride) {
        riding.rideSent(ride);
    }

    /**
     * The batch and its ride failed and were undone: re-runs the buffered writes as sent (raising the first
     * error, pinned to its statement); the caller then re-runs its batch as sent.
     */
    public void rideUndone(Ride ride, BatchExecutor.Undone undone) throws SQLException {
        riding.rideUndone(ride, undone);
    }

    // ---- a single write that rides along with the buffer ----

    /**
     * Whether a write whose update count the application needs can run together with the buffered writes in one
     * round trip ({@code RidingAlong#rideable}).
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     */
    public boolean rideable(String sql, Bind[] row) {
        return riding.rideable(sql, row);
    }

    /**
     * Runs a {@link #rideable} write together with the buffered writes in one round trip and returns its update count.
     *
     * @param row the statement's parameters ({@code null} for a plain Statement)
     * @param batch the application ran it as a batch of one row ({@code executeBatch()})
     */
    public long rideAlong(String sql, Bind[] row, int queryTimeoutSeconds, boolean batch) throws SQLException {
        return riding.rideAlong(sql, row, queryTimeoutSeconds, batch);
    }

    // ---- end of the transaction ----

    /** {@code commit()}: the buffered writes and the COMMIT ({@code TransactionEnd#commit}). */
    public void commit() throws SQLException {
        end.commit();
    }

    /** {@code rollback()}: the buffer is discarded ({@code TransactionEnd#rollback}). */
    public void rollback() throws SQLException {
        end.rollback();
    }

    /** {@code abort()}: the connection goes away; nothing buffered is sent. */
    public void discard() {
        transactionEnded();
        buffer.discard();
    }

    public void setAutoCommit(boolean value) throws SQLException {
        if (!enabled || bypassed) {
            server.setAutoCommitInPgjdbc(value);
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
        } else {
            decidePays(); // a transaction starts
        }
        autoCommit = value;
    }

    /** Whether reads are timed for {@link #pays}: on a {@code mode=transaction} connection that may buffer. */
    public boolean timesReads() {
        return enabled && !bypassed && session.config().bufferMinRoundTripMicros() > 0;
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

    void checkNotFailed() throws SQLException {
        if (failed != null) {
            throw Errors.inFailedTransaction(
                    "Flushless: the transaction failed earlier (" + failed.getMessage() + "); roll it back.", failed);
        }
    }

    public static String abbreviate(String sql) {
        String flat = sql.strip().replaceAll("\\s+", " ");
        return "\"" + (flat.length() > 120 ? flat.substring(0, 117) + "..." : flat) + "\"";
    }
}
