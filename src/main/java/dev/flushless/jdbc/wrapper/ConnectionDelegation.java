package dev.flushless.jdbc.wrapper;

import java.sql.*;

/**
 * Pass-through for a {@link Connection} and pgjdbc's {@code PGConnection}: every method calls the wrapped
 * object's. Generated from the {@code java.sql} interface by {@code DelegationSources} (test sources); do not
 * edit: regenerate with {@code mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true}.
 */
@SuppressWarnings("deprecation")
abstract class ConnectionDelegation implements Connection, org.postgresql.PGConnection {

    final Connection delegate;

    ConnectionDelegation(Connection delegate) {
        this.delegate = delegate;
    }

    /** pgjdbc's own object underneath (the calls of {@code PGConnection} go to it). */
    abstract org.postgresql.PGConnection pgConnection();

    @Override
    public void abort(java.util.concurrent.Executor p1) throws SQLException {
        delegate.abort(p1);
    }

    @Override
    public void beginRequest() throws SQLException {
        delegate.beginRequest();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public void close() throws SQLException {
        delegate.close();
    }

    @Override
    public void commit() throws SQLException {
        delegate.commit();
    }

    @Override
    public Array createArrayOf(String p1, Object[] p2) throws SQLException {
        return delegate.createArrayOf(p1, p2);
    }

    @Override
    public Blob createBlob() throws SQLException {
        return delegate.createBlob();
    }

    @Override
    public Clob createClob() throws SQLException {
        return delegate.createClob();
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
    public Statement createStatement() throws SQLException {
        return delegate.createStatement();
    }

    @Override
    public Statement createStatement(int p1, int p2) throws SQLException {
        return delegate.createStatement(p1, p2);
    }

    @Override
    public Statement createStatement(int p1, int p2, int p3) throws SQLException {
        return delegate.createStatement(p1, p2, p3);
    }

    @Override
    public Struct createStruct(String p1, Object[] p2) throws SQLException {
        return delegate.createStruct(p1, p2);
    }

    @Override
    public void endRequest() throws SQLException {
        delegate.endRequest();
    }

    @Override
    public boolean getAutoCommit() throws SQLException {
        return delegate.getAutoCommit();
    }

    @Override
    public String getCatalog() throws SQLException {
        return delegate.getCatalog();
    }

    @Override
    public java.util.Properties getClientInfo() throws SQLException {
        return delegate.getClientInfo();
    }

    @Override
    public String getClientInfo(String p1) throws SQLException {
        return delegate.getClientInfo(p1);
    }

    @Override
    public int getHoldability() throws SQLException {
        return delegate.getHoldability();
    }

    @Override
    public DatabaseMetaData getMetaData() throws SQLException {
        return delegate.getMetaData();
    }

    @Override
    public int getNetworkTimeout() throws SQLException {
        return delegate.getNetworkTimeout();
    }

    @Override
    public String getSchema() throws SQLException {
        return delegate.getSchema();
    }

    @Override
    public int getTransactionIsolation() throws SQLException {
        return delegate.getTransactionIsolation();
    }

    @Override
    public java.util.Map<String, Class<?>> getTypeMap() throws SQLException {
        return delegate.getTypeMap();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public boolean isReadOnly() throws SQLException {
        return delegate.isReadOnly();
    }

    @Override
    public boolean isValid(int p1) throws SQLException {
        return delegate.isValid(p1);
    }

    @Override
    public boolean isWrapperFor(Class<?> p1) throws SQLException {
        return delegate.isWrapperFor(p1);
    }

    @Override
    public String nativeSQL(String p1) throws SQLException {
        return delegate.nativeSQL(p1);
    }

    @Override
    public CallableStatement prepareCall(String p1) throws SQLException {
        return delegate.prepareCall(p1);
    }

    @Override
    public CallableStatement prepareCall(String p1, int p2, int p3) throws SQLException {
        return delegate.prepareCall(p1, p2, p3);
    }

    @Override
    public CallableStatement prepareCall(String p1, int p2, int p3, int p4) throws SQLException {
        return delegate.prepareCall(p1, p2, p3, p4);
    }

    @Override
    public PreparedStatement prepareStatement(String p1) throws SQLException {
        return delegate.prepareStatement(p1);
    }

    @Override
    public PreparedStatement prepareStatement(String p1, int[] p2) throws SQLException {
        return delegate.prepareStatement(p1, p2);
    }

    @Override
    public PreparedStatement prepareStatement(String p1, String[] p2) throws SQLException {
        return delegate.prepareStatement(p1, p2);
    }

    @Override
    public PreparedStatement prepareStatement(String p1, int p2) throws SQLException {
        return delegate.prepareStatement(p1, p2);
    }

    @Override
    public PreparedStatement prepareStatement(String p1, int p2, int p3) throws SQLException {
        return delegate.prepareStatement(p1, p2, p3);
    }

    @Override
    public PreparedStatement prepareStatement(String p1, int p2, int p3, int p4) throws SQLException {
        return delegate.prepareStatement(p1, p2, p3, p4);
    }

    @Override
    public void releaseSavepoint(Savepoint p1) throws SQLException {
        delegate.releaseSavepoint(p1);
    }

    @Override
    public void rollback() throws SQLException {
        delegate.rollback();
    }

    @Override
    public void rollback(Savepoint p1) throws SQLException {
        delegate.rollback(p1);
    }

    @Override
    public void setAutoCommit(boolean p1) throws SQLException {
        delegate.setAutoCommit(p1);
    }

    @Override
    public void setCatalog(String p1) throws SQLException {
        delegate.setCatalog(p1);
    }

    @Override
    public void setClientInfo(String p1, String p2) throws SQLClientInfoException {
        delegate.setClientInfo(p1, p2);
    }

    @Override
    public void setClientInfo(java.util.Properties p1) throws SQLClientInfoException {
        delegate.setClientInfo(p1);
    }

    @Override
    public void setHoldability(int p1) throws SQLException {
        delegate.setHoldability(p1);
    }

    @Override
    public void setNetworkTimeout(java.util.concurrent.Executor p1, int p2) throws SQLException {
        delegate.setNetworkTimeout(p1, p2);
    }

    @Override
    public void setReadOnly(boolean p1) throws SQLException {
        delegate.setReadOnly(p1);
    }

    @Override
    public Savepoint setSavepoint() throws SQLException {
        return delegate.setSavepoint();
    }

    @Override
    public Savepoint setSavepoint(String p1) throws SQLException {
        return delegate.setSavepoint(p1);
    }

    @Override
    public void setSchema(String p1) throws SQLException {
        delegate.setSchema(p1);
    }

    @Override
    public void setShardingKey(ShardingKey p1) throws SQLException {
        delegate.setShardingKey(p1);
    }

    @Override
    public void setShardingKey(ShardingKey p1, ShardingKey p2) throws SQLException {
        delegate.setShardingKey(p1, p2);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey p1, int p2) throws SQLException {
        return delegate.setShardingKeyIfValid(p1, p2);
    }

    @Override
    public boolean setShardingKeyIfValid(ShardingKey p1, ShardingKey p2, int p3) throws SQLException {
        return delegate.setShardingKeyIfValid(p1, p2, p3);
    }

    @Override
    public void setTransactionIsolation(int p1) throws SQLException {
        delegate.setTransactionIsolation(p1);
    }

    @Override
    public void setTypeMap(java.util.Map<String, Class<?>> p1) throws SQLException {
        delegate.setTypeMap(p1);
    }

    @Override
    public <T> T unwrap(Class<T> p1) throws SQLException {
        return delegate.unwrap(p1);
    }

    @Override
    public void addDataType(String p1, Class<? extends org.postgresql.util.PGobject> p2) throws SQLException {
        pgConnection().addDataType(p1, p2);
    }

    @Override
    public void addDataType(String p1, String p2) {
        pgConnection().addDataType(p1, p2);
    }

    @Override
    public void alterUserPassword(String p1, char[] p2, String p3) throws SQLException {
        pgConnection().alterUserPassword(p1, p2, p3);
    }

    @Override
    public void cancelQuery() throws SQLException {
        pgConnection().cancelQuery();
    }

    @Override
    public Array createArrayOf(String p1, Object p2) throws SQLException {
        return pgConnection().createArrayOf(p1, p2);
    }

    @Override
    public String escapeIdentifier(String p1) throws SQLException {
        return pgConnection().escapeIdentifier(p1);
    }

    @Override
    public String escapeLiteral(String p1) throws SQLException {
        return pgConnection().escapeLiteral(p1);
    }

    @Override
    public boolean getAdaptiveFetch() {
        return pgConnection().getAdaptiveFetch();
    }

    @Override
    public org.postgresql.jdbc.AutoSave getAutosave() {
        return pgConnection().getAutosave();
    }

    @Override
    public int getBackendPID() {
        return pgConnection().getBackendPID();
    }

    @Override
    public org.postgresql.copy.CopyManager getCopyAPI() throws SQLException {
        return pgConnection().getCopyAPI();
    }

    @Override
    public int getDefaultFetchSize() {
        return pgConnection().getDefaultFetchSize();
    }

    @Override
    public org.postgresql.fastpath.Fastpath getFastpathAPI() throws SQLException {
        return pgConnection().getFastpathAPI();
    }

    @Override
    public org.postgresql.largeobject.LargeObjectManager getLargeObjectAPI() throws SQLException {
        return pgConnection().getLargeObjectAPI();
    }

    @Override
    public org.postgresql.PGNotification[] getNotifications() throws SQLException {
        return pgConnection().getNotifications();
    }

    @Override
    public org.postgresql.PGNotification[] getNotifications(int p1) throws SQLException {
        return pgConnection().getNotifications(p1);
    }

    @Override
    public String getParameterStatus(String p1) {
        return pgConnection().getParameterStatus(p1);
    }

    @Override
    public java.util.Map<String, String> getParameterStatuses() {
        return pgConnection().getParameterStatuses();
    }

    @Override
    public org.postgresql.jdbc.PreferQueryMode getPreferQueryMode() {
        return pgConnection().getPreferQueryMode();
    }

    @Override
    public int getPrepareThreshold() {
        return pgConnection().getPrepareThreshold();
    }

    @Override
    public int getQueryTimeout() {
        return pgConnection().getQueryTimeout();
    }

    @Override
    public org.postgresql.replication.PGReplicationConnection getReplicationAPI() {
        return pgConnection().getReplicationAPI();
    }

    @Override
    public void setAdaptiveFetch(boolean p1) {
        pgConnection().setAdaptiveFetch(p1);
    }

    @Override
    public void setAutosave(org.postgresql.jdbc.AutoSave p1) {
        pgConnection().setAutosave(p1);
    }

    @Override
    public void setDefaultFetchSize(int p1) throws SQLException {
        pgConnection().setDefaultFetchSize(p1);
    }

    @Override
    public void setPrepareThreshold(int p1) {
        pgConnection().setPrepareThreshold(p1);
    }

    @Override
    public void setQueryTimeout(int p1) throws SQLException {
        pgConnection().setQueryTimeout(p1);
    }
}
