package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.engine.Engine;
import java.math.BigDecimal;
import java.net.URL;
import java.sql.Array;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLType;
import java.util.Calendar;
import java.util.List;

/**
 * A {@link PreparedStatement} handed out by {@link WrappedConnection}. Every setter goes to pgjdbc at once (so single
 * executions, errors and parameter checks are pgjdbc's own) and, for an INSERT, UPDATE or DELETE on a rewriting
 * connection, is also recorded; {@code addBatch()} keeps the recorded row, and {@code executeBatch()} hands the rows
 * to the connection's {@link Engine}, which coalesces, buffers or runs them on pgjdbc's own batch. While a batch is
 * small enough to run as sent ({@link Engine#asSentRowsAhead}), {@code addBatch()} also hands each row to pgjdbc's
 * batch, so that running it as sent needs no replay. Single executions ask the engine for their route, as a plain
 * Statement's do.
 */
public class WrappedPreparedStatement extends UnkeptValueSetters implements Engine.RecordedBatch {

    /** The SQL text the application prepared. */
    final String sql;
    /** Generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}. */
    private final String[] keyColumns;

    private final StatementDescription.Kind leadingKind;
    /** Recorded setters and batch rows, and which of them pgjdbc's batch holds too. */
    private final ParameterRecording recording;
    /** Generated keys of the last coalesced batch. */
    private final CoalescedKeys coalescedKeys = new CoalescedKeys();
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
        this.recording = new ParameterRecording(prepared, engine, leadingKind, sql);
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
        recording.syncPgjdbc();
        beforeRouting();
    }

    /**
     * {@link #beforeExecution} but for pgjdbc's parameters, which a write that may be buffered gets only if it runs
     * as sent ({@link #asSent()}, {@link ParameterRecording#deferred}).
     */
    private void beforeRouting() throws SQLException {
        resultsFromPgjdbc();
        coalescedKeys.forget();
        engine.invalidateAfter(leadingKind, sql);
    }

    /**
     * A query that carries the buffered writes it must follow in its round trip ({@link Engine#queryRidingAlong}), or
     * {@code null}: only with its parameters recorded.
     */
    private ResultSet rideAlong() throws SQLException {
        if (!recording.on() || prepared.isClosed()) {
            return null;
        }
        BatchExecutor.QueryOutcome outcome = engine.queryRidingAlong(sql, recording.current(), prepared);
        return outcome == null ? null : ridden(outcome);
    }

    /** The route of this execution: as sent unless the statement records (a write on a rewriting connection). */
    private Engine.Decision route() throws SQLException {
        beforeRouting();
        if (!recording.on() || prepared.isClosed()) {
            return null;
        }
        return engine.route(sql, leadingKind, recording.current(), keyColumns != null);
    }

    /** pgjdbc, after the engine sent what must precede this statement and counted it. */
    private PreparedStatement asSent() throws SQLException {
        recording.syncPgjdbc();
        engine.beforeAsSent(sql, leadingKind);
        return prepared;
    }

    private long answered(Engine.Decision decision) throws SQLException {
        return acknowledge(engine.run(decision, sql, recording.current(), prepared.getQueryTimeout(), () -> {
            recording.syncPgjdbc();
            return prepared.executeLargeUpdate();
        }));
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
        return onReplica(sql, recording.current(), true, recording.on());
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
        PreparedStatement sent = asSent();
        boolean timed = engine.transactions().timesReads();
        long start = timed ? System.nanoTime() : 0;
        ResultSet rows = sent.executeQuery();
        if (timed) {
            engine.transactions().readTook(System.nanoTime() - start);
        }
        if (recording.on()) {
            engine.queried(description(), recording.current(), rows);
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
            if (rows && recording.on() && leadingKind == StatementDescription.Kind.SELECT) {
                engine.queried(description(), recording.current(), prepared.getResultSet());
            }
            return rows;
        }
        answered(decision);
        return false;
    }

    // ---- batches ----

    @Override
    public void addBatch() throws SQLException {
        recording.addBatch();
    }

    @Override
    public void clearBatch() throws SQLException {
        prepared.clearBatch();
        recording.resetBatch();
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
            if (!recording.hasRows() || prepared.isClosed()) {
                engine.beforeUnrecordedBatch(
                        sql, recording.stoppedReason(), recording.passedThroughRows(), !prepared.isClosed());
                return runInPgjdbc();
            }
            List<Bind[]> rows = recording.takeRows();
            Engine.BatchResult result = engine.batch(this, rows);
            coalescedKeys.keep(result.outcome(), this);
            return result.counts();
        } finally {
            recording.resetBatch();
        }
    }

    /** Runs recorded rows on pgjdbc's own batch ({@link ParameterRecording#handToPgjdbc}). */
    @Override
    public long[] runAsSent(List<Bind[]> rows) throws SQLException {
        recording.handToPgjdbc(rows);
        return runInPgjdbc();
    }

    private long[] runInPgjdbc() throws SQLException {
        return large ? prepared.executeLargeBatch() : BatchExecutor.widen(prepared.executeBatch());
    }

    /** pgjdbc's rendering, of the recorded rows too ({@link ParameterRecording#render}). */
    @Override
    void beforePgjdbcInHand() throws SQLException {
        recording.handOver();
    }

    @Override
    public String toString() {
        recording.syncQuietly();
        return recording.render(delegate);
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        ResultSet keys = coalescedKeys.get();
        return keys != null ? keys : super.getGeneratedKeys();
    }

    @Override
    public void close() throws SQLException {
        coalescedKeys.forget();
        super.close();
    }

    /** pgjdbc describes the statement with the types of the values set so far: they reach it first. */
    @Override
    public java.sql.ResultSetMetaData getMetaData() throws SQLException {
        recording.syncPgjdbc();
        return super.getMetaData();
    }

    /** As {@link #getMetaData}: the parameter types pgjdbc reports include those of the values set. */
    @Override
    public java.sql.ParameterMetaData getParameterMetaData() throws SQLException {
        recording.syncPgjdbc();
        return super.getParameterMetaData();
    }

    @Override
    public void clearParameters() throws SQLException {
        prepared.clearParameters();
        recording.parametersCleared();
    }

    // ---- setters: to pgjdbc and recorded; the common ones, past the rows handed to pgjdbc, only recorded ----

    @Override
    public void setNull(int parameterIndex, int sqlType) throws SQLException {
        recording.set(parameterIndex, Bind.ofNull(sqlType), () -> prepared.setNull(parameterIndex, sqlType));
    }

    @Override
    public void setNull(int parameterIndex, int sqlType, String typeName) throws SQLException {
        prepared.setNull(parameterIndex, sqlType, typeName);
        recording.record(parameterIndex, Bind.ofNull(sqlType, typeName));
    }

    @Override
    public void setBoolean(int parameterIndex, boolean x) throws SQLException {
        recording.set(parameterIndex, Bind.ofBoolean(x), () -> prepared.setBoolean(parameterIndex, x));
    }

    @Override
    public void setByte(int parameterIndex, byte x) throws SQLException {
        prepared.setByte(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofByte(x));
    }

    @Override
    public void setShort(int parameterIndex, short x) throws SQLException {
        recording.set(parameterIndex, Bind.ofShort(x), () -> prepared.setShort(parameterIndex, x));
    }

    @Override
    public void setInt(int parameterIndex, int x) throws SQLException {
        recording.set(parameterIndex, Bind.ofInt(x), () -> prepared.setInt(parameterIndex, x));
    }

    @Override
    public void setLong(int parameterIndex, long x) throws SQLException {
        recording.set(parameterIndex, Bind.ofLong(x), () -> prepared.setLong(parameterIndex, x));
    }

    @Override
    public void setFloat(int parameterIndex, float x) throws SQLException {
        recording.set(parameterIndex, Bind.ofFloat(x), () -> prepared.setFloat(parameterIndex, x));
    }

    @Override
    public void setDouble(int parameterIndex, double x) throws SQLException {
        recording.set(parameterIndex, Bind.ofDouble(x), () -> prepared.setDouble(parameterIndex, x));
    }

    @Override
    public void setBigDecimal(int parameterIndex, BigDecimal x) throws SQLException {
        recording.set(parameterIndex, Bind.ofBigDecimal(x), () -> prepared.setBigDecimal(parameterIndex, x));
    }

    @Override
    public void setString(int parameterIndex, String x) throws SQLException {
        recording.set(parameterIndex, Bind.ofString(x), () -> prepared.setString(parameterIndex, x));
    }

    @Override
    public void setNString(int parameterIndex, String value) throws SQLException {
        prepared.setNString(parameterIndex, value);
        recording.record(parameterIndex, Bind.ofNString(value));
    }

    @Override
    public void setBytes(int parameterIndex, byte[] x) throws SQLException {
        prepared.setBytes(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofBytes(x));
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x) throws SQLException {
        prepared.setDate(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofDate(x, null));
    }

    @Override
    public void setDate(int parameterIndex, java.sql.Date x, Calendar cal) throws SQLException {
        prepared.setDate(parameterIndex, x, cal);
        recording.record(parameterIndex, Bind.ofDate(x, cal));
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x) throws SQLException {
        prepared.setTime(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofTime(x, null));
    }

    @Override
    public void setTime(int parameterIndex, java.sql.Time x, Calendar cal) throws SQLException {
        prepared.setTime(parameterIndex, x, cal);
        recording.record(parameterIndex, Bind.ofTime(x, cal));
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x) throws SQLException {
        recording.set(parameterIndex, Bind.ofTimestamp(x, null), () -> prepared.setTimestamp(parameterIndex, x));
    }

    @Override
    public void setTimestamp(int parameterIndex, java.sql.Timestamp x, Calendar cal) throws SQLException {
        prepared.setTimestamp(parameterIndex, x, cal);
        recording.record(parameterIndex, Bind.ofTimestamp(x, cal));
    }

    @Override
    public void setArray(int parameterIndex, Array x) throws SQLException {
        prepared.setArray(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofArray(x));
    }

    @Override
    public void setURL(int parameterIndex, URL x) throws SQLException {
        prepared.setURL(parameterIndex, x);
        recording.record(parameterIndex, Bind.ofUrl(x));
    }

    /** A Blob or Clob value makes pgjdbc create a large object at once (see TransactionBuffering#beforeLargeObject). */
    private void beforeObject(Object x) throws SQLException {
        if (x instanceof java.sql.Blob || x instanceof java.sql.Clob) {
            engine.transactions().beforeLargeObject();
        }
    }

    @Override
    public void setObject(int parameterIndex, Object x) throws SQLException {
        Bind bind = !recording.on() ? null : recording.keepable(Bind.ofObject(x));
        beforeObject(x);
        prepared.setObject(parameterIndex, x);
        recording.record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType) throws SQLException {
        Bind bind = !recording.on() ? null : recording.keepable(Bind.ofObject(x, targetSqlType));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType);
        recording.record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, int targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = !recording.on() ? null : recording.keepable(Bind.ofObject(x, targetSqlType, scaleOrLength));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        recording.record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType) throws SQLException {
        Bind bind = !recording.on() ? null : recording.keepable(Bind.ofObject(x, targetSqlType));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType);
        recording.record(parameterIndex, bind);
    }

    @Override
    public void setObject(int parameterIndex, Object x, SQLType targetSqlType, int scaleOrLength) throws SQLException {
        Bind bind = !recording.on() ? null : recording.keepable(Bind.ofObject(x, targetSqlType, scaleOrLength));
        beforeObject(x);
        prepared.setObject(parameterIndex, x, targetSqlType, scaleOrLength);
        recording.record(parameterIndex, bind);
    }

    @Override
    void unkeptValue() throws SQLException {
        recording.unkeptValue();
    }

    @Override
    void beforeLargeObject() throws SQLException {
        engine.transactions().beforeLargeObject();
    }
}
