package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchRecorder;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.engine.Engine;
import java.io.InputStream;
import java.io.Reader;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.ResultSet;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.SQLXML;
import java.sql.Statement;
import java.util.Calendar;
import java.util.List;
import java.util.StringJoiner;

/**
 * A {@link PreparedStatement} handed out by {@link WrappedConnection}. Every setter goes to pgjdbc at once (so single
 * executions, errors and parameter checks are pgjdbc's own) and, for an INSERT, UPDATE or DELETE on a rewriting
 * connection, is also recorded; {@code addBatch()} keeps the recorded row, and {@code executeBatch()} hands the rows
 * to the connection's {@link Engine}, which coalesces, buffers or runs them on pgjdbc's own batch. While a batch is
 * small enough to run as sent ({@link Engine#asSentRowsAhead}), {@code addBatch()} also hands each row to pgjdbc's
 * batch, so that running it as sent needs no replay. Single executions ask the engine for their route, as a plain
 * Statement's do.
 */
public class WrappedPreparedStatement extends PreparedStatementDelegation implements Engine.RecordedBatch {

    /** Why a setter's value cannot be kept for a replay: recording stops for the current batch. */
    private static final dev.flushless.jdbc.Fallback STREAM_OR_LOB =
            dev.flushless.jdbc.FallbackReason.STREAM_OR_LOB.get();

    private static final dev.flushless.jdbc.Fallback UNKEPT_OBJECT =
            dev.flushless.jdbc.FallbackReason.UNKEPT_OBJECT.get();

    /** The SQL text the application prepared. */
    final String sql;
    /** Generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}. */
    private final String[] keyColumns;

    private final StatementDescription.Kind leadingKind;
    /** Recorded setters and batch rows; {@code null} while the statement runs as sent. */
    private BatchRecorder recorder;
    /** Why recording stopped for the current batch, or {@code null}. */
    private dev.flushless.jdbc.Fallback stoppedReason;
    /** Rows that went straight to pgjdbc's batch after recording stopped. */
    private int passedThroughRows;
    /**
     * The most recorded rows of the current batch that also go to pgjdbc's batch as they are added (the engine's
     * estimate, asked at the batch's first row).
     */
    private int mirrorLimit;
    /**
     * Recorded rows of the current batch that are in pgjdbc's batch too: either every recorded row (all were handed
     * on as they were added) or none (the batch grew past {@link #mirrorLimit} and pgjdbc's batch was cleared).
     */
    private int mirrored;
    /** The recorded rows of the batch running now while pgjdbc's batch holds exactly them, else {@code null}. */
    private List<Bind[]> inPgjdbc;
    /** Generated keys of the last coalesced batch, or {@code null}. */
    private ResultSet coalescedKeys;
    /** Whether the batch running now is an {@code executeLargeBatch()}. */
    private boolean large;
    /** The analysis of {@link #sql}, looked up once per statement (it never changes for the statement's text). */
    private StatementDescription description;

    WrappedPreparedStatement(PreparedStatement delegate, WrappedConnection connection, String sql) {
        this(delegate, connection, sql, null);
    }

    WrappedPreparedStatement(
            PreparedStatement delegate, WrappedConnection connection, String sql, String[] keyColumns) {
        super(delegate, connection);
        this.sql = sql;
        this.keyColumns = keyColumns;
        this.leadingKind = SqlAnalyzer.leadingKind(sql);
        this.recorder = engine.recordsParameters(leadingKind) ? new BatchRecorder() : null;
    }

    @Override
    public String sql() {
        return sql;
    }

    @Override
    public StatementDescription description() {
        if (description == null) {
            description = engine.analyzer().describe(sql);
        }
        return description;
    }

    @Override
    public String[] keyColumns() {
        return keyColumns;
    }

    @Override
    public int queryTimeoutSeconds() throws SQLException {
        return prepared.getQueryTimeout();
    }

    // ---- single executions ----

    /** Before every execution: forget the last coalesced keys and an answered result, drop catalog facts after DDL. */
    private void beforeExecution() throws SQLException {
        resultsFromPgjdbc();
        if (coalescedKeys != null) {
            coalescedKeys.close();
            coalescedKeys = null;
        }
        engine.invalidateAfter(leadingKind, sql);
    }

    /**
     * A query that carries the buffered writes it must follow in its round trip ({@link Engine#queryRidingAlong}), or
     * {@code null}: only with its parameters recorded.
     */
    private ResultSet rideAlong() throws SQLException {
        if (recorder == null || prepared.isClosed()) {
            return null;
        }
        BatchExecutor.QueryOutcome outcome = engine.queryRidingAlong(sql, recorder.current(), prepared);
        return outcome == null ? null : ridden(outcome);
    }

    /** The route of this execution: as sent unless the statement records (a write on a rewriting connection). */
    private Engine.Decision route() throws SQLException {
        beforeExecution();
        if (recorder == null || prepared.isClosed()) {
            return null;
        }
        return engine.route(sql, leadingKind, recorder.current(), keyColumns != null);
    }

    /** pgjdbc, after the engine sent what must precede this statement and counted it. */
    private PreparedStatement asSent() throws SQLException {
        engine.beforeAsSent(sql, leadingKind);
        return prepared;
    }

    private long answered(Engine.Decision decision) throws SQLException {
        return acknowledge(engine.run(
                decision, sql, recorder.current(), prepared.getQueryTimeout(), prepared::executeLargeUpdate));
    }

    private static boolean asSent(Engine.Decision decision) {
        return decision == null || decision.asSent();
    }

    /** Replica reads: where this query runs (see WrappedStatement#onReplica); {@code null}: the primary. */
    private java.sql.Statement replicaRead() throws SQLException {
        beforeExecution();
        if (leadingKind != StatementDescription.Kind.SELECT || prepared.isClosed()) {
            return null;
        }
        return onReplica(sql, recorder == null ? null : recorder.current(), true, recorder != null);
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        java.sql.Statement replica = replicaRead();
        if (replica != null) {
            return wrap(replica.getResultSet());
        }
        ResultSet ridden = rideAlong();
        if (ridden != null) {
            return ridden;
        }
        ResultSet rows = asSent().executeQuery();
        if (recorder != null) {
            engine.queried(description(), recorder.current(), rows);
        }
        return wrap(rows);
    }

    @Override
    public int executeUpdate() throws SQLException {
        Engine.Decision decision = route();
        return asSent(decision) ? asSent().executeUpdate() : narrow(answered(decision));
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        Engine.Decision decision = route();
        return asSent(decision) ? asSent().executeLargeUpdate() : answered(decision);
    }

    @Override
    public boolean execute() throws SQLException {
        if (replicaRead() != null) {
            return true;
        }
        if (leadingKind == StatementDescription.Kind.SELECT && rideAlong() != null) {
            return true;
        }
        Engine.Decision decision = route();
        if (asSent(decision)) {
            boolean rows = asSent().execute();
            if (rows && recorder != null && leadingKind == StatementDescription.Kind.SELECT) {
                engine.queried(description(), recorder.current(), prepared.getResultSet());
            }
            return rows;
        }
        answered(decision);
        return false;
    }

    // ---- batches ----

    @Override
    public void addBatch() throws SQLException {
        if (recorder != null && !prepared.isClosed()) {
            int before = recorder.rowCount();
            if (before == 0) {
                mirrorLimit = engine.asSentRowsAhead(leadingKind);
            }
            if (mirrored == before && before < mirrorLimit) {
                prepared.addBatch(); // pgjdbc's own copy of the current parameters, as bare pgjdbc makes it
                mirrored++;
            } else if (mirrored > 0) {
                // the batch may be coalesced now: it is planned from the recorded rows, pgjdbc's copies go
                prepared.clearBatch();
                mirrored = 0;
            }
            recorder.addRow();
        } else {
            prepared.addBatch();
            passedThroughRows++;
        }
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

    /** Runs the batch through the engine, or, when its rows went to pgjdbc's own batch, through pgjdbc. */
    private long[] runBatch(boolean large) throws SQLException {
        beforeExecution();
        this.large = large;
        try {
            if (recorder == null || !recorder.hasRows() || prepared.isClosed()) {
                engine.beforeUnrecordedBatch(sql, stoppedReason, passedThroughRows, !prepared.isClosed());
                return runInPgjdbc();
            }
            List<Bind[]> rows = recorder.takeRows();
            inPgjdbc = mirrored == rows.size() ? rows : null;
            Engine.BatchResult result = engine.batch(this, rows);
            BatchExecutor.Outcome outcome = result.outcome();
            if (outcome != null && !outcome.returned().isEmpty()) {
                coalescedKeys = wroteNothing(outcome.counts())
                        ? noKeys(outcome)
                        : new CombinedResultSet(outcome.returned(), outcome.owners(), this);
            }
            return result.counts();
        } finally {
            resetBatch();
        }
    }

    /**
     * Runs recorded rows on pgjdbc's own batch. When pgjdbc's batch already holds exactly these rows (handed on as the
     * application added them) it runs as it is: what bare pgjdbc runs, with the application's parameters left set.
     * Otherwise the rows are handed to it exactly as the application's calls would have (each row from cleared
     * parameters, so an unset position stays unset; then the current values restored).
     */
    @Override
    public long[] runAsSent(List<Bind[]> rows) throws SQLException {
        if (rows == inPgjdbc && mirrored == rows.size()) {
            inPgjdbc = null;
            mirrored = 0;
            return runInPgjdbc();
        }
        if (mirrored > 0) {
            prepared.clearBatch(); // e.g. rows other than the batch's own: nothing of the batch may run twice
            mirrored = 0;
        }
        inPgjdbc = null;
        for (Bind[] row : rows) {
            applyAll(row);
            prepared.addBatch();
        }
        if (recorder != null) {
            applyAll(recorder.current());
        }
        return runInPgjdbc();
    }

    private long[] runInPgjdbc() throws SQLException {
        return large ? prepared.executeLargeBatch() : BatchExecutor.widen(prepared.executeBatch());
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

    /**
     * pgjdbc's rendering. After {@code addBatch()} pgjdbc renders every row of its batch, joined by {@code ";\n"}; the
     * rows this statement recorded are not in pgjdbc's batch, so each is rendered by pgjdbc from its values (set on
     * pgjdbc's statement as a replay sets them, the current values restored afterwards).
     */
    @Override
    public String toString() {
        if (recorder == null || !recorder.hasRows() || passedThroughRows > 0 || mirrored > 0) {
            return delegate.toString(); // pgjdbc's batch holds the rows (passed through or handed on as added)
        }
        BatchRecorder rendered = recorder;
        try {
            if (prepared.isClosed()) {
                return delegate.toString();
            }
        } catch (SQLException e) {
            return delegate.toString();
        }
        StringJoiner rows = new StringJoiner(";\n");
        try {
            for (Bind[] row : rendered.rows()) {
                applyAll(row);
                rows.add(delegate.toString());
            }
            return rows.toString();
        } catch (SQLException | RuntimeException e) {
            return delegate.toString();
        } finally {
            try {
                applyAll(rendered.current());
            } catch (SQLException | RuntimeException ignored) {
                // rendering must not fail; the values are restored as far as pgjdbc takes them back
            }
        }
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

    // ---- recording ----

    /** After a setter reached pgjdbc: keeps its value for the batch, while recording. */
    private void record(int index, Bind bind) {
        if (recorder != null) {
            recorder.set(index, bind);
        }
    }

    /** A setObject value's bind, computed only while recording; recording stops when the value cannot be kept. */
    private Bind keepable(Bind bind) throws SQLException {
        if (recorder != null && bind == null) {
            stopRecording(UNKEPT_OBJECT);
        }
        return bind;
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
    private void stopRecording(dev.flushless.jdbc.Fallback reason) throws SQLException {
        if (recorder == null) {
            return;
        }
        BatchRecorder stopped = recorder;
        recorder = null;
        stoppedReason = reason;
        passedThroughRows = stopped.rows().size();
        if (mirrored == passedThroughRows) {
            mirrored = 0; // pgjdbc's batch and parameters already hold what the application set
            return;
        }
        mirrored = 0; // none: pgjdbc's batch was cleared when the batch grew past the limit
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
    private void resetBatch() throws SQLException {
        if (recorder != null) {
            recorder.clearRows();
        }
        if (mirrored > 0) {
            // the rows ran another way (coalesced, buffered, ridden along) or failed: pgjdbc's copies go with them
            // (a closed statement's batch is gone with it, and its error is the one the application must see)
            mirrored = 0;
            if (!prepared.isClosed()) {
                prepared.clearBatch();
            }
        }
        inPgjdbc = null;
        passedThroughRows = 0;
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

    // ---- setters: to pgjdbc at once, and recorded ----

    @Override
    public void setNull(int parameterIndex, int sqlType) throws SQLException {
        prepared.setNull(parameterIndex, sqlType);
        record(parameterIndex, Bind.ofNull(sqlType));
    }

    @Override
    public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
        prepared.setNull(parameterIndex, sqlType, typeName);
        record(parameterIndex, Bind.ofNull(sqlType, typeName));
    }

    @Override
    public void setBoolean(int parameterIndex, boolean x) throws SQLException {
        prepared.setBoolean(parameterIndex, x);
        record(parameterIndex, Bind.ofBoolean(x));
    }

    @Override
    public void setByte(int parameterIndex, byte x) throws SQLException {
        prepared.setByte(parameterIndex, x);
        record(parameterIndex, Bind.ofByte(x));
    }

    @Override
    public void setShort(int parameterIndex, short x) throws SQLException {
        prepared.setShort(parameterIndex, x);
        record(parameterIndex, Bind.ofShort(x));
    }

    @Override
    public void setInt(int parameterIndex, int x) throws SQLException {
        prepared.setInt(parameterIndex, x);
        record(parameterIndex, Bind.ofInt(x));
    }

    @Override
    public void setLong(int parameterIndex, long x) throws SQLException {
        prepared.setLong(parameterIndex, x);
        record(parameterIndex, Bind.ofLong(x));
    }

    @Override
    public void setFloat(int parameterIndex, float x) throws SQLException {
        prepared.setFloat(parameterIndex, x);
        record(parameterIndex, Bind.ofFloat(x));
    }

    @Override
    public void setDouble(int parameterIndex, double x) throws SQLException {
        prepared.setDouble(parameterIndex, x);
        record(parameterIndex, Bind.ofDouble(x));
    }

    @Override
    public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
        prepared.setBigDecimal(parameterIndex, x);
        record(parameterIndex, Bind.ofBigDecimal(x));
    }

    @Override
    public void setString(int parameterIndex, String x) throws SQLException {
        prepared.setString(parameterIndex, x);
        record(parameterIndex, Bind.ofString(x));
    }

    @Override
    public void setNString(int parameterIndex, String value) throws SQLException {
        prepared.setNString(parameterIndex, value);
        record(parameterIndex, Bind.ofNString(value));
    }

    @Override
    public void setBytes(int parameterIndex, byte[] x) throws SQLException {
        prepared.setBytes(parameterIndex, x);
        record(parameterIndex, Bind.ofBytes(x));
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x) throws SQLException {
        prepared.setDate(parameterIndex, x);
        record(parameterIndex, Bind.ofDate(x, null));
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x, Calendar cal) throws SQLException {
        prepared.setDate(parameterIndex, x, cal);
        record(parameterIndex, Bind.ofDate(x, cal));
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x) throws SQLException {
        prepared.setTime(parameterIndex, x);
        record(parameterIndex, Bind.ofTime(x, null));
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x, Calendar cal) throws SQLException {
        prepared.setTime(parameterIndex, x, cal);
        record(parameterIndex, Bind.ofTime(x, cal));
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x) throws SQLException {
        prepared.setTimestamp(parameterIndex, x);
        record(parameterIndex, Bind.ofTimestamp(x, null));
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x, Calendar cal) throws SQLException {
        prepared.setTimestamp(parameterIndex, x, cal);
        record(parameterIndex, Bind.ofTimestamp(x, cal));
    }

    @Override
    public void setArray(int parameterIndex, Array x) throws SQLException {
        prepared.setArray(parameterIndex, x);
        record(parameterIndex, Bind.ofArray(x));
    }

    @Override
    public void setURL(int parameterIndex, URL x) throws SQLException {
        prepared.setURL(parameterIndex, x);
        record(parameterIndex, Bind.ofUrl(x));
    }

    /** A Blob or Clob value makes pgjdbc create a large object at once (see TransactionBuffering#beforeLargeObject). */
    private void beforeObject(Object x) throws SQLException {
        if (x instanceof java.sql.Blob || x instanceof java.sql.Clob) {
            engine.transactions().beforeLargeObject();
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x) throws SQLException {
        Bind bind = recorder == null ? null : keepable(Bind.ofObject(x));
        beforeObject(x);
        prepared.setObject(parameterIndex, x);
        record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
        Bind bind = recorder == null ? null : keepable(Bind.ofObject(x, targetSqlType));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType);
        record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = recorder == null ? null : keepable(Bind.ofObject(x, targetSqlType, scaleOrLength));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
        Bind bind = recorder == null ? null : keepable(Bind.ofObject(x, targetSqlType));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType);
        record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = recorder == null ? null : keepable(Bind.ofObject(x, targetSqlType, scaleOrLength));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        record(parameterIndex, bind);
    }

    // ---- setters whose values are not kept: recording stops first ----

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, int length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setAsciiStream(parameterIndex, x);
    }

    @Override
    @SuppressWarnings("deprecation")
    public void setUnicodeStream(int parameterIndex, InputStream x, int length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setUnicodeStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, int length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setBinaryStream(parameterIndex, x);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, int length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setCharacterStream(parameterIndex, reader);
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setNCharacterStream(parameterIndex, value, length);
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setNCharacterStream(parameterIndex, value);
    }

    @Override
    public void setRef(int parameterIndex, Ref x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setRef(parameterIndex, x);
    }

    @Override
    public void setRowId(int parameterIndex, RowId x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setRowId(parameterIndex, x);
    }

    @Override
    public void setBlob(int parameterIndex, Blob x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setBlob(parameterIndex, x);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setBlob(parameterIndex, inputStream, length);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setBlob(parameterIndex, inputStream);
    }

    @Override
    public void setClob(int parameterIndex, Clob x) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setClob(parameterIndex, x);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setClob(parameterIndex, reader, length);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setClob(parameterIndex, reader);
    }

    @Override
    public void setNClob(int parameterIndex, NClob value) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setNClob(parameterIndex, value);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader, long length) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setNClob(parameterIndex, reader, length);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        engine.transactions().beforeLargeObject();
        prepared.setNClob(parameterIndex, reader);
    }

    @Override
    public void setSQLXML(int parameterIndex, SQLXML xmlObject) throws SQLException {
        stopRecording(STREAM_OR_LOB);
        prepared.setSQLXML(parameterIndex, xmlObject);
    }
}
