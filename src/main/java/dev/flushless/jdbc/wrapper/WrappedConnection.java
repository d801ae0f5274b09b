package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.TableCatalog;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.*;
import java.util.Calendar;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Executor;

/**
 * The connection an application receives from Flushless: it delegates every call to the wrapped
 * (pgjdbc) connection and hands out statements and metadata that lead back to this wrapper, so the
 * application never holds an unwrapped object by accident. {@link #unwrap} with a pgjdbc type reaches
 * the pgjdbc connection (CopyManager, LISTEN/NOTIFY, large objects).
 */
public class WrappedConnection implements FlushlessConnection {

    private static volatile SqlAnalyzer sharedAnalyzer;

    final Connection delegate;
    private final FlushlessConfig config;
    final FlushlessStats stats = FlushlessStats.forConnection();
    final TableCatalog catalog = new TableCatalog();
    final SqlAnalyzer analyzer;
    /** {@code mode=transaction}'s write buffer and flush points (inactive in the other modes). */
    final TransactionBuffering transactions;
    private WrappedDatabaseMetaData metaData;
    /** The server: YugabyteDB or not (from the version it reported; nothing sent). */
    final dev.flushless.jdbc.yugabyte.ServerFacts server;
    /** {@code flushless.followerReads} on YugabyteDB, {@code null} when off or ignored. */
    private final dev.flushless.jdbc.yugabyte.FollowerReads followerReads;

    public WrappedConnection(Connection delegate, FlushlessConfig config) throws SQLException {
        this.delegate = delegate;
        this.config = config;
        this.analyzer = analyzer(config);
        this.transactions = new TransactionBuffering(this, config.mode() == FlushlessConfig.Mode.TRANSACTION);
        this.server = dev.flushless.jdbc.yugabyte.ServerFacts.of(delegate);
        this.followerReads = dev.flushless.jdbc.yugabyte.FollowerReads.forConnection(config.followerReadsStalenessMs(),
                server);
        if (followerReads != null && delegate.isReadOnly()) {
            try {
                followerReads.readOnlyChanged(delegate, true);
            } catch (SQLException e) {
                delegate.close();
                throw e;
            }
        }
    }

    /**
     * Whether ON CONFLICT batches take the anti-join form: {@code flushless.onConflict=antijoin}, or {@code auto} on
     * a YugabyteDB release that does not batch ON CONFLICT itself (asked once, on YugabyteDB only).
     */
    boolean onConflictAntiJoin() {
        switch (config.onConflict()) {
            case ANTIJOIN:
                return true;
            case NATIVE:
                return false;
            default:
                return server.autoAntiJoin(delegate);
        }
    }

    /** The driver-wide analysis cache, sized by the first connection's {@code flushless.parseCacheSize}. */
    private static SqlAnalyzer analyzer(FlushlessConfig config) {
        SqlAnalyzer analyzer = sharedAnalyzer;
        if (analyzer == null) {
            synchronized (WrappedConnection.class) {
                if (sharedAnalyzer == null) {
                    sharedAnalyzer = new SqlAnalyzer(config.parseCacheSize());
                }
                analyzer = sharedAnalyzer;
            }
        }
        return analyzer;
    }

    /** The driver-wide analysis cache, or {@code null} before the first connection (tests check its bound). */
    static SqlAnalyzer sharedAnalyzer() {
        return sharedAnalyzer;
    }

    @Override
    public FlushlessConfig flushlessConfig() {
        return config;
    }

    @Override
    public FlushlessStats flushlessStats() {
        return stats;
    }

    /** True when batches of this connection are coalesced. */
    boolean coalescing() {
        return config.mode() != FlushlessConfig.Mode.OFF;
    }

    /**
     * Called with every SQL text the application runs through a plain Statement: DDL and session commands
     * (and anything not recognised, e.g. {@code DO} blocks) may change tables or {@code search_path}, so the
     * cached catalog facts are dropped.
     */
    void afterStatement(String sql) {
        if (invalidatesCatalog(SqlAnalyzer.leadingKind(sql))) {
            catalog.clear();
            sessionChanged();
        }
    }

    /**
     * Called before the application runs {@code sql} through a plain Statement: one scan of its leading
     * keyword both counts it and, after DDL or a session change, drops the cached catalog facts.
     */
    void executing(String sql) {
        StatementDescription.Kind kind = SqlAnalyzer.leadingKind(sql);
        if (invalidatesCatalog(kind)) {
            catalog.clear();
            sessionChanged();
        }
        stats.executed(kind.isWrite());
    }

    /** A JDBC call that may throw SQLException. */
    @FunctionalInterface
    interface SqlCall<T> {
        T call() throws SQLException;
    }

    /**
     * After a coalesced batch was undone: forget the cached catalog facts (the table may have changed), count
     * the fallback, run the batch as sent and, when that succeeded, release the guard savepoint (a failure
     * has aborted the transaction, exactly as it would have without Flushless).
     */
    <T> T runAsSentAfterUndo(dev.flushless.jdbc.batch.BatchExecutor.Undone undone, int rows, SqlCall<T> asSent)
            throws SQLException {
        catalog.clear();
        stats.fallback("coalesced statement failed (SQLState " + undone.sqlCause().getSQLState() + "), re-run as sent",
                rows);
        T result = asSent.call();
        if (undone.guarded()) {
            dev.flushless.jdbc.batch.BatchExecutor.releaseGuard(delegate);
        }
        return result;
    }

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");

    /**
     * Counts a coalesced batch and logs it at DEBUG: the application's SQL, the first rewritten statement and
     * the row count (never bound values).
     */
    void coalesced(dev.flushless.jdbc.batch.BatchPlan plan, int rows, dev.flushless.jdbc.batch.BatchExecutor.Outcome outcome,
            long nanos, String applicationSql) {
        stats.rewrite(plan.rewriteKind(), rows, plan.statements().size(), outcome.statementsSent(), outcome.roundTrips(),
                nanos, estimatedFlushes(plan));
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(System.Logger.Level.DEBUG, "Flushless " + plan.rewriteKind() + ": " + rows + " rows as "
                    + plan.statements().size() + " statement(s) in " + outcome.roundTrips() + " round trip(s); "
                    + "application SQL: " + applicationSql + " ; sent: " + plan.statements().get(0).sql());
        }
    }

    /**
     * YugabyteDB flushes the statements of {@code plan} are estimated to cost ({@link
     * dev.flushless.jdbc.stats.YugabyteFlushModel}): per statement, one per 3072 rows, at least one; one per row for
     * a native ON CONFLICT statement where the release does not batch it.
     */
    long estimatedFlushes(dev.flushless.jdbc.batch.BatchPlan plan) {
        dev.flushless.jdbc.stats.YugabyteFlushModel model = server.flushModel();
        long flushes = 0;
        for (dev.flushless.jdbc.batch.BatchPlan.Step step : plan.statements()) {
            int rows = Math.max(1, step.rows().length);
            flushes += plan.isNativeOnConflict() ? model.onConflictStatement(rows) : model.writeStatement(rows);
        }
        return flushes;
    }

    /** The session fingerprint for group commit, or {@code null} until read (and after a session change). */
    private volatile String sessionFingerprint;

    /**
     * What must be equal for two connections' INSERTs to share a group commit: database, user, role and every
     * setting the session did not take from the server's defaults or configuration file (search_path,
     * TimeZone, DateStyle, isolation, ...; not application_name). Read once (one round trip) and again after
     * the application changes the session.
     */
    String sessionFingerprint() throws SQLException {
        String fingerprint = sessionFingerprint;
        if (fingerprint == null) {
            try (Statement s = delegate.createStatement();
                 ResultSet rs = s.executeQuery("SELECT current_database() || '|' || current_user || '|' || session_user"
                         + " || '|' || coalesce((SELECT string_agg(name || '=' || setting, ',' ORDER BY name)"
                         + " FROM pg_catalog.pg_settings WHERE source NOT IN ('default', 'override', 'configuration file')"
                         + " AND name <> 'application_name'), '')")) {
                rs.next();
                fingerprint = rs.getString(1);
            }
            sessionFingerprint = fingerprint;
        }
        return fingerprint;
    }

    /** The session may have changed (SET, setSchema, isolation ...): read the fingerprint again when needed. */
    void sessionChanged() {
        sessionFingerprint = null;
    }

    /** Group-commit lanes by SQL text for one session fingerprint (replaced when the fingerprint changes). */
    private record Lanes(String fingerprint, java.util.concurrent.ConcurrentHashMap<String, GroupCommit.Lane> bySql) {
    }

    private volatile Lanes lanes;

    /**
     * The group-commit lane of {@code sql} under this connection's session fingerprint, kept per connection so
     * that an execution does not build and hash the fingerprint-and-SQL key (a few hundred characters) again.
     */
    GroupCommit.Lane groupCommitLane(String sql) throws SQLException {
        String fingerprint = sessionFingerprint();
        Lanes current = lanes;
        if (current == null || current.fingerprint() != fingerprint || current.bySql().size() >= 256) {
            current = new Lanes(fingerprint, new java.util.concurrent.ConcurrentHashMap<>());
            lanes = current;
        }
        GroupCommit.Lane lane = current.bySql().get(sql);
        if (lane == null) {
            lane = GroupCommit.lane(fingerprint + '\u0000' + sql);
            current.bySql().put(sql, lane);
        }
        return lane;
    }

    static boolean invalidatesCatalog(StatementDescription.Kind kind) {
        return kind == StatementDescription.Kind.DDL || kind == StatementDescription.Kind.SESSION
                || kind == StatementDescription.Kind.OTHER;
    }

    @Override
    public Statement createStatement() throws SQLException {
        return new WrappedStatement(delegate.createStatement(), this);
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency) throws SQLException {
        return new WrappedStatement(delegate.createStatement(resultSetType, resultSetConcurrency), this);
    }

    @Override
    public Statement createStatement(int resultSetType, int resultSetConcurrency, int resultSetHoldability)
            throws SQLException {
        return new WrappedStatement(
                delegate.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability), this);
    }

    @Override
    public PreparedStatement prepareStatement(String sql) throws SQLException {
        return new WrappedPreparedStatement(delegate.prepareStatement(sql), this, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return new WrappedPreparedStatement(
                delegate.prepareStatement(sql, resultSetType, resultSetConcurrency), this, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int resultSetType, int resultSetConcurrency,
            int resultSetHoldability) throws SQLException {
        return new WrappedPreparedStatement(
                delegate.prepareStatement(sql, resultSetType, resultSetConcurrency, resultSetHoldability), this, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
        return new WrappedPreparedStatement(delegate.prepareStatement(sql, autoGeneratedKeys), this, sql,
                autoGeneratedKeys == Statement.RETURN_GENERATED_KEYS ? new String[] {"*"} : null);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
        return new WrappedPreparedStatement(delegate.prepareStatement(sql, columnIndexes), this, sql);
    }

    @Override
    public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
        return new WrappedPreparedStatement(delegate.prepareStatement(sql, columnNames), this, sql,
                columnNames == null || columnNames.length == 0 ? null : columnNames.clone());
    }

    @Override
    public CallableStatement prepareCall(String sql) throws SQLException {
        return new WrappedCallableStatement(delegate.prepareCall(sql), this, sql);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency)
            throws SQLException {
        return new WrappedCallableStatement(delegate.prepareCall(sql, resultSetType, resultSetConcurrency), this, sql);
    }

    @Override
    public CallableStatement prepareCall(String sql, int resultSetType, int resultSetConcurrency,
            int resultSetHoldability) throws SQLException {
        return new WrappedCallableStatement(
                delegate.prepareCall(sql, resultSetType, resultSetConcurrency, resultSetHoldability), this, sql);
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        DatabaseMetaData current = delegate.getMetaData();
        if (metaData == null || metaData.delegate != current) {
            metaData = new WrappedDatabaseMetaData(current, this);
        }
        return metaData;
    }

    /**
     * Closes the connection. In {@code mode=transaction} the buffered writes of an open transaction are sent
     * first (the server then rolls the uncommitted transaction back, as it would under bare pgjdbc); a failure
     * of that send is not reported, since nothing of the transaction could be kept anyway.
     */
    @Override
    public void close() throws SQLException {
        try {
            if (!delegate.isClosed()) {
                transactions.beforeConnectionCall("close()", false);
            }
        } catch (SQLException ignored) {
            // the transaction is discarded by closing; bare pgjdbc's close() would not report its errors either
        } finally {
            delegate.close();
        }
    }

    /**
     * Returns this wrapper for Flushless and JDBC interfaces it implements; anything else comes from pgjdbc.
     * Code holding the pgjdbc connection bypasses Flushless, so in {@code mode=transaction} the buffered writes
     * are sent and the server transaction opened first (CopyManager then sees, and joins, the transaction), and
     * the connection stops buffering for good: pgjdbc-level code checks pgjdbc's own autocommit setting and
     * writes past the buffer (large objects, COPY), whenever it runs.
     */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        transactions.handOut("unwrap(" + iface.getSimpleName() + ")");
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public String toString() {
        return "Flushless[" + config + "] wrapping " + delegate;
    }

    // ---- plain delegation below ----

    @Override
    public String nativeSQL(String sql) throws SQLException {
        return delegate.nativeSQL(sql);
    }

    @Override
    public void setAutoCommit(boolean autoCommit) throws SQLException {
        transactions.setAutoCommit(autoCommit);
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return transactions.getAutoCommit();
    }

    @Override
    public void commit() throws SQLException {
        transactions.commit();
    }

    @Override
    public void rollback() throws SQLException {
        transactions.rollback();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public void setReadOnly(boolean readOnly) throws SQLException {
        transactions.beforeConnectionCall("setReadOnly()", false);
        delegate.setReadOnly(readOnly);
        sessionChanged();
        if (followerReads != null) {
            followerReads.readOnlyChanged(delegate, readOnly);
        }
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return delegate.isReadOnly();
    }

    @Override
    public void setCatalog(String catalog) throws SQLException {
        transactions.beforeConnectionCall("setCatalog()", false);
        delegate.setCatalog(catalog);
        sessionChanged();
    }

    @Override
    public String getCatalog() throws SQLException {
        return delegate.getCatalog();
    }

    @Override
    public void setTransactionIsolation(int level) throws SQLException {
        transactions.beforeConnectionCall("setTransactionIsolation()", false);
        delegate.setTransactionIsolation(level);
        sessionChanged();
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return delegate.getTransactionIsolation();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public Map<String, Class<?>> getTypeMap() throws SQLException {
        return delegate.getTypeMap();
    }

    @Override
    public void setTypeMap(Map<String, Class<?>> map) throws SQLException {
        delegate.setTypeMap(map);
    }

    @Override
    public void setHoldability(int holdability) throws SQLException {
        delegate.setHoldability(holdability);
    }

    @Override
    public int getHoldability() throws SQLException {
        return delegate.getHoldability();
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        transactions.beforeConnectionCall("setSavepoint()", true);
        return delegate.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String name) throws SQLException {
        transactions.beforeConnectionCall("setSavepoint()", true);
        return delegate.setSavepoint(name);
    }

    @Override
    public void rollback(Savepoint savepoint) throws SQLException {
        transactions.beforeConnectionCall("rollback(Savepoint)", true);
        delegate.rollback(savepoint);
    }

    @Override
    public void releaseSavepoint(Savepoint savepoint) throws SQLException {
        transactions.beforeConnectionCall("releaseSavepoint()", true);
        delegate.releaseSavepoint(savepoint);
    }

    @Override
    public Clob createClob() throws SQLException {
        return delegate.createClob();
    }

    @Override
    public Blob createBlob() throws SQLException {
        return delegate.createBlob();
    }

    @Override
    public NClob createNClob() throws SQLException {
        return delegate.createNClob();
    }

    @Override
    public SQLXML createSQLXML() throws SQLException {
        return delegate.createSQLXML();
    }

    @Override
    public boolean isValid(int timeout) throws SQLException {
        return delegate.isValid(timeout);
    }

    @Override
    public void setClientInfo(String name, String value) throws SQLClientInfoException {
        delegate.setClientInfo(name, value);
    }

    @Override
    public void setClientInfo(Properties properties) throws SQLClientInfoException {
        delegate.setClientInfo(properties);
    }

    @Override
    public String getClientInfo(String name) throws SQLException {
        return delegate.getClientInfo(name);
    }

    @Override
    public Properties getClientInfo() throws SQLException {
        return delegate.getClientInfo();
    }

    @Override
    public Array createArrayOf(String typeName, Object[] elements) throws SQLException {
        return delegate.createArrayOf(typeName, elements);
    }

    @Override
    public Struct createStruct(String typeName, Object[] attributes) throws SQLException {
        return delegate.createStruct(typeName, attributes);
    }

    @Override
    public void setSchema(String schema) throws SQLException {
        transactions.beforeConnectionCall("setSchema()", true);
        delegate.setSchema(schema);
        sessionChanged();
    }

    @Override
    public String getSchema() throws SQLException {
        return delegate.getSchema();
    }

    @Override
    public void abort(Executor executor) throws SQLException {
        transactions.discard();
        delegate.abort(executor);
    }

    @Override
    public void setNetworkTimeout(Executor executor, int milliseconds) throws SQLException {
        delegate.setNetworkTimeout(executor, milliseconds);
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return delegate.getNetworkTimeout();
    }

    @Override
    public void beginRequest() throws SQLException {
        delegate.beginRequest();
    }

    @Override
    public void endRequest() throws SQLException {
        delegate.endRequest();
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, ShardingKey superShardingKey, int timeout) throws SQLException {
        return delegate.setShardingKeyIfValid(shardingKey, superShardingKey, timeout);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey shardingKey, int timeout) throws SQLException {
        return delegate.setShardingKeyIfValid(shardingKey, timeout);
    }

    @Override
    public void setShardingKey(ShardingKey shardingKey, ShardingKey superShardingKey) throws SQLException {
        delegate.setShardingKey(shardingKey, superShardingKey);
    }

    @Override
    public void setShardingKey(ShardingKey shardingKey) throws SQLException {
        delegate.setShardingKey(shardingKey);
    }
}
