package dev.flushless.jdbc.wrapper;

import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.BatchRecorder;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.batch.SessionFacts;
import dev.flushless.jdbc.batch.TableCatalog;
import dev.flushless.jdbc.batch.TableCatalog.TableInfo;
import java.sql.*;
import java.util.Calendar;
import java.util.List;

/**
 * A {@link PreparedStatement} handed out by {@link WrappedConnection}. Every setter goes to pgjdbc at once
 * (so single executions, errors and parameter checks are pgjdbc's own) and, for an INSERT, UPDATE or
 * DELETE on a coalescing connection, is also recorded; {@code addBatch()} keeps the recorded row instead of
 * handing it to pgjdbc, and {@code executeBatch()} runs the rows as few statements as the
 * {@link BatchPlanner} allows, or replays them into pgjdbc's own batch when it does not.
 */
public class WrappedPreparedStatement extends WrappedStatement implements PreparedStatement {

    final PreparedStatement prepared;
    /** The SQL text the application prepared. */
    final String sql;
    /** Generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}. */
    private final String[] keyColumns;
    private final StatementDescription.Kind leadingKind;
    /** Recorded setters and batch rows; {@code null} while the statement runs as sent. */
    private BatchRecorder recorder;
    /** Why recording stopped for the current batch, or {@code null}. */
    private String stoppedReason;
    /** Rows that went straight to pgjdbc's batch after recording stopped. */
    private int passedThroughRows;
    /** Generated keys of the last coalesced batch, or {@code null}. */
    private ResultSet coalescedKeys;

    WrappedPreparedStatement(PreparedStatement delegate, WrappedConnection connection, String sql) {
        this(delegate, connection, sql, null);
    }

    WrappedPreparedStatement(PreparedStatement delegate, WrappedConnection connection, String sql, String[] keyColumns) {
        super(delegate, connection);
        this.prepared = delegate;
        this.sql = sql;
        this.keyColumns = keyColumns;
        this.leadingKind = SqlAnalyzer.leadingKind(sql);
        this.recorder = isBatchCandidate() ? new BatchRecorder() : null;
    }

    /** The analysis of {@link #sql}, looked up once per statement (it never changes for the statement's text). */
    private StatementDescription description;

    private StatementDescription description() {
        if (description == null) {
            description = connection.analyzer.describe(sql);
        }
        return description;
    }

    private boolean isBatchCandidate() {
        return connection.coalescing() && leadingKind.isWrite();
    }

    /**
     * {@code mode=transaction}: buffers this single execution of a plain INSERT inside an explicit transaction
     * when its count (1) is known in advance; true when buffered.
     */
    private boolean buffered() throws SQLException {
        if (recorder == null || leadingKind != StatementDescription.Kind.INSERT || keyColumns != null
                || !connection.transactions.active() || prepared.isClosed()) {
            return false;
        }
        Bind[] row = recorder.current().clone();
        if (!connection.transactions.tryBuffer(description(), List.<Bind[]>of(row), false, false)) {
            return false;
        }
        acknowledged = 1;
        return true;
    }

    /**
     * {@code mode=transaction}: runs this write together with the buffered writes in one round trip when its
     * count is all the application needs; true when it did (the count is then {@link #acknowledged}).
     */
    private boolean rodeAlong() throws SQLException {
        if (recorder == null || keyColumns != null || !connection.transactions.active() || prepared.isClosed()) {
            return false;
        }
        long count = connection.transactions.rideAlong(sql, recorder.current().clone(), prepared.getQueryTimeout(), false);
        if (count == TransactionBuffering.NOT_RIDDEN) {
            return false;
        }
        acknowledged = count;
        return true;
    }

    /**
     * {@code flushless.groupCommit=true}: runs this autocommit single-row INSERT together with concurrent ones
     * from other connections ({@link GroupCommit}); true when it ran that way (its count is {@link #acknowledged}).
     * Not taken when the statement's count or rows could differ from a lone execution's: RETURNING, ON
     * CONFLICT, generated keys, a table with triggers, rules or row-level security, a read-only or explicit
     * transaction.
     */
    private boolean groupCommitted() throws SQLException {
        if (!connection.flushlessConfig().groupCommit() || recorder == null || keyColumns != null
                || leadingKind != StatementDescription.Kind.INSERT || prepared.isClosed()
                || !connection.getAutoCommit() || !connection.delegate.getAutoCommit()) {
            return false;
        }
        Bind[] row = recorder.current().clone();
        StatementDescription description = description();
        TableInfo table = connection.transactions.singleRowInsertTable(description, row);
        if (table == null) {
            return false;
        }
        GroupCommit.Member me = new GroupCommit.Member(connection, description, table, row, prepared.getQueryTimeout());
        acknowledged = GroupCommit.run(connection.groupCommitLane(sql), me, connection.flushlessConfig().groupCommitMaxRows(),
                GroupCommit.nanos(connection.flushlessConfig().groupCommitMaxDelayMicros()), () -> {
                    connection.stats.executed(true);
                    return prepared.executeLargeUpdate();
                });
        return true;
    }

    /** Before every execution: forget the last coalesced keys and a buffered result, drop catalog facts after DDL. */
    private void beforeExecution() throws SQLException {
        acknowledged = NOT_BUFFERED;
        if (coalescedKeys != null) {
            coalescedKeys.close();
            coalescedKeys = null;
        }
        if (WrappedConnection.invalidatesCatalog(leadingKind)) {
            connection.catalog.clear();
            connection.sessionChanged();
        }
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        beforeExecution();
        connection.transactions.beforeServerStatement(sql);
        connection.stats.executed(leadingKind.isWrite());
        return wrap(prepared.executeQuery());
    }

    @Override
    public int executeUpdate() throws SQLException {
        beforeExecution();
        if (buffered()) {
            return 1;
        }
        if (rodeAlong() || groupCommitted()) {
            return (int) Math.min(acknowledged, Integer.MAX_VALUE);
        }
        connection.transactions.beforeServerStatement(sql);
        connection.stats.executed(leadingKind.isWrite());
        return prepared.executeUpdate();
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        beforeExecution();
        if (buffered()) {
            return 1;
        }
        if (rodeAlong() || groupCommitted()) {
            return acknowledged;
        }
        connection.transactions.beforeServerStatement(sql);
        connection.stats.executed(leadingKind.isWrite());
        return prepared.executeLargeUpdate();
    }

    @Override
    public boolean execute() throws SQLException {
        beforeExecution();
        if (buffered() || rodeAlong() || groupCommitted()) {
            return false;
        }
        connection.transactions.beforeServerStatement(sql);
        connection.stats.executed(leadingKind.isWrite());
        return prepared.execute();
    }

    @Override
    public void clearParameters() throws SQLException {
        prepared.clearParameters();
        if (recorder != null) {
            recorder.clearParameters();
        } else if (stoppedReason != null && !prepared.isClosed()) {
            // every parameter is unset again, so recording can resume with nothing unknown
            recorder = new BatchRecorder();
            stoppedReason = null;
        }
    }

    @Override
    public void addBatch() throws SQLException {
        if (recorder != null && !prepared.isClosed()) {
            recorder.addRow();
        } else {
            prepared.addBatch();
            passedThroughRows++;
        }
    }

    /** pgjdbc rejects a query string on a PreparedStatement; let it say so. */
    @Override
    public void addBatch(String sql) throws SQLException {
        prepared.addBatch(sql);
    }

    @Override
    public void clearBatch() throws SQLException {
        prepared.clearBatch();
        resetBatch();
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return BatchExecutor.narrow(runBatch(false));
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        return runBatch(true);
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return coalescedKeys != null ? coalescedKeys : super.getGeneratedKeys();
    }

    @Override
    public void close() throws SQLException {
        if (coalescedKeys != null) {
            coalescedKeys.close();
            coalescedKeys = null;
        }
        super.close();
    }

    /** Fallback reason of a batch of one row. */
    static final String SINGLE_ROW = "batch of one row: nothing to coalesce";

    /**
     * Runs the batch, coalesced or (replayed into pgjdbc's own batch) as sent, and returns its counts;
     * {@code large} chooses pgjdbc's {@code executeLargeBatch} for the latter.
     */
    private long[] runBatch(boolean large) throws SQLException {
        beforeExecution();
        try {
            if (recorder == null || !recorder.hasRows() || prepared.isClosed()) {
                if (passedThroughRows > 0 && !prepared.isClosed()) {
                    connection.transactions.beforeServerStatement(sql);
                }
                connection.stats.fallback(stoppedReason, passedThroughRows);
                return runInPgjdbc(large);
            }
            List<Bind[]> rows = recorder.takeRows();
            if (leadingKind == StatementDescription.Kind.INSERT && keyColumns == null && connection.transactions.active()
                    && connection.transactions.tryBuffer(description(), rows, false, true)) {
                long[] counts = new long[rows.size()];
                java.util.Arrays.fill(counts, 1);
                return counts;
            }
            if (rows.size() == 1 && keyColumns == null && connection.transactions.active()) {
                long count = connection.transactions.rideAlong(sql, rows.get(0), prepared.getQueryTimeout(), true);
                if (count != TransactionBuffering.NOT_RIDDEN) {
                    return new long[] {count};
                }
            }
            if (rows.size() == 1) {
                connection.transactions.beforeServerStatement(sql);
                // Nothing to coalesce: pgjdbc's own single execution is already one statement.
                connection.stats.fallback(SINGLE_ROW, 1);
                replayIntoPgjdbc(rows);
                return runInPgjdbc(large);
            }
            StatementDescription description = description();
            SessionFacts session = SessionFacts.of(connection.delegate);
            BatchPlan plan;
            if (!description.isCoalescable()) {
                plan = null;
                connection.stats.fallback(description.fallbackReason(), rows.size());
            } else {
                plan = plan(description, rows, session, description.onConflict() != StatementDescription.OnConflict.NONE
                        && connection.onConflictAntiJoin());
                if (plan.isFallback()) {
                    connection.stats.fallback(plan.fallbackReason(), rows.size());
                } else if (plan.note() != null) {
                    connection.stats.noted(plan.note(), rows.size());
                }
            }
            if (plan == null || plan.isFallback()) {
                connection.transactions.beforeServerStatement(sql);
                replayIntoPgjdbc(rows);
                return runInPgjdbc(large);
            }
            // mode=transaction: buffered writes ride ahead of the batch, in its round trip
            TransactionBuffering.Ride ride = connection.transactions.takeRide();
            try {
                long start = System.nanoTime();
                BatchExecutor.Outcome outcome = BatchExecutor.run(connection.delegate,
                        ride == null ? plan : ride.prepend(plan), rows, description.parameterCount(),
                        prepared.getQueryTimeout());
                if (ride != null) {
                    connection.transactions.rideSent(ride);
                }
                connection.coalesced(plan, rows.size(), outcome, System.nanoTime() - start, sql);
                if (!outcome.returned().isEmpty()) {
                    coalescedKeys = wroteNothing(outcome.counts()) ? noKeys(outcome)
                            : new CombinedResultSet(outcome.returned(), outcome.owners(), this);
                }
                return outcome.counts();
            } catch (BatchExecutor.Undone undone) {
                if (ride != null) {
                    connection.transactions.rideUndone(ride, undone);
                }
                if (plan.isAntiJoin() && UNIQUE_VIOLATION.equals(undone.sqlCause().getSQLState())) {
                    return afterAntiJoinUniqueViolation(description, rows, session, undone, large);
                }
                return connection.runAsSentAfterUndo(undone, rows.size(), () -> {
                    replayIntoPgjdbc(rows);
                    return runInPgjdbc(large);
                });
            } catch (SQLException e) {
                throw BatchExecutor.asBatchFailure(e, rows.size()); // a lost connection, as pgjdbc reports it for a batch
            }
        } finally {
            resetBatch();
        }
    }

    private static boolean wroteNothing(long[] counts) {
        for (long count : counts) {
            if (count != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The generated keys of a batch in which no row wrote (an upsert batch whose every row hit DO NOTHING, or a DO
     * UPDATE ... WHERE that matched none), as pgjdbc gives them: it keeps the RETURNING rows of executions that
     * changed rows only, and without any it returns an empty result set with no columns, not the statements' empty
     * RETURNING result with the key columns (an application may read its metadata).
     */
    private ResultSet noKeys(BatchExecutor.Outcome outcome) throws SQLException {
        for (ResultSet returned : outcome.returned()) {
            returned.close();
        }
        for (Statement owner : outcome.owners()) {
            owner.close();
        }
        return wrap(prepared.unwrap(org.postgresql.core.BaseStatement.class)
                .createDriverResultSet(new org.postgresql.core.Field[0], new java.util.ArrayList<>()));
    }

    static final String UNIQUE_VIOLATION = "23505";

    /**
     * An anti-join batch failed with a unique violation and was undone. In autocommit (nothing of the batch
     * remains, its implicit transaction rolled back) it runs once more as native ON CONFLICT, which waits for a
     * concurrent inserter and then skips or updates its row as bare pgjdbc would (and, should that fail too, as
     * sent). Inside a transaction a violation of the conflict target's index means another transaction inserted a
     * key the anti-join had found missing: the batch is left undone (the transaction stays usable) and the error
     * is raised, SQLState 23505 kept, naming the cause and the setting. A violation of another unique index is what
     * bare pgjdbc would have met too: the batch runs as sent and raises pgjdbc's own error.
     */
    private long[] afterAntiJoinUniqueViolation(StatementDescription description, List<Bind[]> rows, SessionFacts session,
            BatchExecutor.Undone undone, boolean large) throws SQLException {
        connection.catalog.clear();
        if (!undone.guarded()) {
            connection.stats.noted(BatchPlanner.ANTI_JOIN_RETRIED, rows.size());
            BatchPlan nativePlan = plan(description, rows, session, false);
            if (nativePlan.isFallback()) {
                connection.stats.fallback(nativePlan.fallbackReason(), rows.size());
                replayIntoPgjdbc(rows);
                return runInPgjdbc(large);
            }
            try {
                long start = System.nanoTime();
                BatchExecutor.Outcome outcome = BatchExecutor.run(connection.delegate, nativePlan, rows,
                        description.parameterCount(), prepared.getQueryTimeout());
                connection.coalesced(nativePlan, rows.size(), outcome, System.nanoTime() - start, sql);
                return outcome.counts();
            } catch (BatchExecutor.Undone again) {
                return connection.runAsSentAfterUndo(again, rows.size(), () -> {
                    replayIntoPgjdbc(rows);
                    return runInPgjdbc(large);
                });
            }
        }
        SQLException cause = undone.sqlCause();
        String constraint = violatedConstraint(cause);
        java.util.List<String> arbiters = arbiterNames(description);
        if (constraint != null && arbiters != null && !arbiters.contains(constraint)) {
            return connection.runAsSentAfterUndo(undone, rows.size(), () -> {
                replayIntoPgjdbc(rows);
                return runInPgjdbc(large);
            });
        }
        BatchExecutor.releaseGuard(connection.delegate);
        connection.stats.noted(BatchPlanner.ANTI_JOIN_RAISED, rows.size());
        int[] failed = new int[rows.size()];
        java.util.Arrays.fill(failed, Statement.EXECUTE_FAILED);
        throw new BatchUpdateException("Flushless: the batch of " + rows.size() + " rows of '" + sql + "' ran with"
                + " flushless.onConflict=antijoin (the existing keys are read first, then the missing rows inserted) and"
                + " met a unique violation on its conflict target" + (constraint == null ? "" : " (" + constraint + ")")
                + ": another transaction inserted one of its keys concurrently. Nothing of the batch was applied; the"
                + " transaction is still open. Roll back and retry, or set flushless.onConflict=native for writers that"
                + " race on the same keys inside transactions. Server message: " + cause.getMessage(),
                UNIQUE_VIOLATION, cause.getErrorCode(), failed, cause);
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
    private java.util.List<String> arbiterNames(StatementDescription description) {
        try {
            TableCatalog.TableInfo table = connection.catalog.lookup(connection.delegate, description.targetTable());
            java.util.List<String> target = new java.util.ArrayList<>();
            for (StatementDescription.KeyColumn key : description.conflictKeys()) {
                target.add(key.column());
            }
            return connection.catalog.conflictFacts(connection.delegate, table).arbiters(target).stream()
                    .map(dev.flushless.jdbc.batch.ConflictFacts.UniqueIndex::name).toList();
        } catch (SQLException e) {
            return null;
        }
    }

    private BatchPlan plan(StatementDescription description, List<Bind[]> rows, SessionFacts session, boolean antiJoin)
            throws SQLException {
        TableCatalog.TableInfo table;
        try {
            table = connection.catalog.lookup(connection.delegate, description.targetTable());
        } catch (SQLException e) {
            return new BatchPlan(null, List.of(), "catalog lookup failed (SQLState " + e.getSQLState() + ")");
        }
        String returningSuffix = keyColumns == null ? null
                : description.hasReturning() ? "" : session.returningSuffix(keyColumns);
        dev.flushless.jdbc.batch.ConflictFacts facts = null;
        boolean onConflict = description.onConflict() != StatementDescription.OnConflict.NONE;
        if (antiJoin && onConflict && table.kindProblem() == null) {
            try {
                facts = connection.catalog.conflictFacts(connection.delegate, table);
            } catch (SQLException e) {
                facts = null; // the planner says why the anti-join form is not used
            }
        }
        return BatchPlanner.plan(description, rows, table, returningSuffix, new BatchPlanner.Settings(
                connection.flushlessConfig().maxRowsPerStatement(), connection.flushlessConfig().trustTriggers(), session,
                antiJoin && onConflict, facts, connection.flushlessConfig().exactSequences()));
    }

    private long[] runInPgjdbc(boolean large) throws SQLException {
        return large ? prepared.executeLargeBatch() : BatchExecutor.widen(prepared.executeBatch());
    }

    /**
     * Hands recorded rows to pgjdbc's own batch, exactly as the application's calls would have: each row
     * from cleared parameters (an unset position stays unset), then the current values restored.
     */
    private void replayIntoPgjdbc(List<Bind[]> rows) throws SQLException {
        for (Bind[] row : rows) {
            applyAll(row);
            prepared.addBatch();
        }
        if (recorder != null) {
            applyAll(recorder.current());
        }
    }

    private void applyAll(Bind[] row) throws SQLException {
        prepared.clearParameters();
        for (int i = 0; i < row.length; i++) {
            if (row[i] != null) {
                row[i].applyTo(prepared, i + 1);
            }
        }
    }

    /** Stops recording for the current batch: rows recorded so far go to pgjdbc's batch now. */
    private void stopRecording(String reason) throws SQLException {
        if (recorder == null) {
            return;
        }
        BatchRecorder stopped = recorder;
        recorder = null;
        stoppedReason = reason;
        passedThroughRows = stopped.rows().size();
        for (Bind[] row : stopped.rows()) {
            applyAll(row);
            prepared.addBatch();
        }
        applyAll(stopped.current());
    }

    /**
     * After a batch ran or was cleared. A statement whose recording stopped stays unrecorded until
     * {@code clearParameters()}: the values set since the stop were not recorded.
     */
    private void resetBatch() {
        if (recorder != null) {
            recorder.clearRows();
        }
        passedThroughRows = 0;
    }

    // ---- plain delegation below ----

    @Override
    public void setNull(int parameterIndex, int sqlType) throws SQLException {
        prepared.setNull(parameterIndex, sqlType);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofNull(sqlType));
        }
    }

    @Override
    public void setBoolean(int parameterIndex, boolean x) throws SQLException {
        prepared.setBoolean(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofBoolean(x));
        }
    }

    @Override
    public void setByte(int parameterIndex, byte x) throws SQLException {
        prepared.setByte(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofByte(x));
        }
    }

    @Override
    public void setShort(int parameterIndex, short x) throws SQLException {
        prepared.setShort(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofShort(x));
        }
    }

    @Override
    public void setInt(int parameterIndex, int x) throws SQLException {
        prepared.setInt(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofInt(x));
        }
    }

    @Override
    public void setLong(int parameterIndex, long x) throws SQLException {
        prepared.setLong(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofLong(x));
        }
    }

    @Override
    public void setFloat(int parameterIndex, float x) throws SQLException {
        prepared.setFloat(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofFloat(x));
        }
    }

    @Override
    public void setDouble(int parameterIndex, double x) throws SQLException {
        prepared.setDouble(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofDouble(x));
        }
    }

    @Override
    public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
        prepared.setBigDecimal(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofBigDecimal(x));
        }
    }

    @Override
    public void setString(int parameterIndex, String x) throws SQLException {
        prepared.setString(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofString(x));
        }
    }

    @Override
    public void setBytes(int parameterIndex, byte[] x) throws SQLException {
        prepared.setBytes(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofBytes(x));
        }
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x) throws SQLException {
        prepared.setDate(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofDate(x, null));
        }
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x) throws SQLException {
        prepared.setTime(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofTime(x, null));
        }
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x) throws SQLException {
        prepared.setTimestamp(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofTimestamp(x, null));
        }
    }

    @Override
    public void setAsciiStream(int parameterIndex, java.io.InputStream x, int length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setUnicodeStream(int parameterIndex, java.io.InputStream x, int length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setUnicodeStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, java.io.InputStream x, int length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
        Bind bind = recorder == null ? null : Bind.ofObject(x, targetSqlType);
        if (recorder != null && bind == null) {
            stopRecording("setObject value of a class that cannot be kept for a replay");
        }
        prepared.setObject(parameterIndex, x, targetSqlType);
        if (recorder != null) {
            recorder.set(parameterIndex, bind);
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x) throws SQLException {
        Bind bind = recorder == null ? null : Bind.ofObject(x);
        if (recorder != null && bind == null) {
            stopRecording("setObject value of a class that cannot be kept for a replay");
        }
        prepared.setObject(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, bind);
        }
    }

    @Override
    public void setCharacterStream(int parameterIndex, java.io.Reader reader, int length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setRef(int parameterIndex, Ref x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setRef(parameterIndex, x);
    }

    @Override
    public void setBlob(int parameterIndex, Blob x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBlob(parameterIndex, x);
    }

    @Override
    public void setClob(int parameterIndex, Clob x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setClob(parameterIndex, x);
    }

    @Override
    public void setArray(int parameterIndex, Array x) throws SQLException {
        prepared.setArray(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofArray(x));
        }
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return prepared.getMetaData();
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x, Calendar cal) throws SQLException {
        prepared.setDate(parameterIndex, x, cal);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofDate(x, cal));
        }
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x, Calendar cal) throws SQLException {
        prepared.setTime(parameterIndex, x, cal);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofTime(x, cal));
        }
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x, Calendar cal) throws SQLException {
        prepared.setTimestamp(parameterIndex, x, cal);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofTimestamp(x, cal));
        }
    }

    @Override
    public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
        prepared.setNull(parameterIndex, sqlType, typeName);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofNull(sqlType, typeName));
        }
    }

    @Override
    public void setURL(int parameterIndex, java.net.URL x) throws SQLException {
        prepared.setURL(parameterIndex, x);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofUrl(x));
        }
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        return prepared.getParameterMetaData();
    }

    @Override
    public void setRowId(int parameterIndex, RowId x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setRowId(parameterIndex, x);
    }

    @Override
    public void setNString(int parameterIndex, String value) throws SQLException {
        prepared.setNString(parameterIndex, value);
        if (recorder != null) {
            recorder.set(parameterIndex, Bind.ofNString(value));
        }
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setNCharacterStream(parameterIndex, value, length);
    }

    @Override
    public void setNClob(int parameterIndex, NClob value) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setNClob(parameterIndex, value);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setClob(parameterIndex, reader, length);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBlob(parameterIndex, inputStream, length);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setNClob(parameterIndex, reader, length);
    }

    @Override
    public void setSQLXML(int parameterIndex, SQLXML xmlObject) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setSQLXML(parameterIndex, xmlObject);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = recorder == null ? null : Bind.ofObject(x, targetSqlType, scaleOrLength);
        if (recorder != null && bind == null) {
            stopRecording("setObject value of a class that cannot be kept for a replay");
        }
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        if (recorder != null) {
            recorder.set(parameterIndex, bind);
        }
    }

    @Override
    public void setAsciiStream(int parameterIndex, java.io.InputStream x, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, java.io.InputStream x, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setCharacterStream(int parameterIndex, java.io.Reader reader, long length) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setAsciiStream(int parameterIndex, java.io.InputStream x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setAsciiStream(parameterIndex, x);
    }

    @Override
    public void setBinaryStream(int parameterIndex, java.io.InputStream x) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBinaryStream(parameterIndex, x);
    }

    @Override
    public void setCharacterStream(int parameterIndex, java.io.Reader reader) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setCharacterStream(parameterIndex, reader);
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setNCharacterStream(parameterIndex, value);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setClob(parameterIndex, reader);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setBlob(parameterIndex, inputStream);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader) throws SQLException {
        stopRecording("stream or LOB parameter");
        prepared.setNClob(parameterIndex, reader);
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = recorder == null ? null : Bind.ofObject(x, targetSqlType, scaleOrLength);
        if (recorder != null && bind == null) {
            stopRecording("setObject value of a class that cannot be kept for a replay");
        }
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        if (recorder != null) {
            recorder.set(parameterIndex, bind);
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
        Bind bind = recorder == null ? null : Bind.ofObject(x, targetSqlType);
        if (recorder != null && bind == null) {
            stopRecording("setObject value of a class that cannot be kept for a replay");
        }
        prepared.setObject(parameterIndex, x, targetSqlType);
        if (recorder != null) {
            recorder.set(parameterIndex, bind);
        }
    }

}
