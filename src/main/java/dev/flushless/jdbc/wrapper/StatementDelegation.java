package dev.flushless.jdbc.wrapper;

import java.sql.*;

/**
 * Pass-through for a {@link Statement} and pgjdbc's {@code PGStatement}: every method calls the wrapped
 * object's. Generated from the {@code java.sql} interface by {@code DelegationSources} (test sources); do not
 * edit: regenerate with {@code mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true}.
 */
@SuppressWarnings("deprecation")
abstract class StatementDelegation implements Statement, org.postgresql.PGStatement {

    final Statement delegate;

    StatementDelegation(Statement delegate) {
        this.delegate = delegate;
    }

    /** pgjdbc's own object underneath (the calls of {@code PGStatement} go to it). */
    abstract org.postgresql.PGStatement pgStatement();

    @Override
    public void addBatch(String p1) throws SQLException {
        delegate.addBatch(p1);
    }

    @Override
    public void cancel() throws SQLException {
        delegate.cancel();
    }

    @Override
    public void clearBatch() throws SQLException {
        delegate.clearBatch();
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
    public void closeOnCompletion() throws SQLException {
        delegate.closeOnCompletion();
    }

    @Override
    public String enquoteIdentifier(String p1, boolean p2) throws SQLException {
        return delegate.enquoteIdentifier(p1, p2);
    }

    @Override
    public String enquoteLiteral(String p1) throws SQLException {
        return delegate.enquoteLiteral(p1);
    }

    @Override
    public String enquoteNCharLiteral(String p1) throws SQLException {
        return delegate.enquoteNCharLiteral(p1);
    }

    @Override
    public boolean execute(String p1) throws SQLException {
        return delegate.execute(p1);
    }

    @Override
    public boolean execute(String p1, int[] p2) throws SQLException {
        return delegate.execute(p1, p2);
    }

    @Override
    public boolean execute(String p1, String[] p2) throws SQLException {
        return delegate.execute(p1, p2);
    }

    @Override
    public boolean execute(String p1, int p2) throws SQLException {
        return delegate.execute(p1, p2);
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return delegate.executeBatch();
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        return delegate.executeLargeBatch();
    }

    @Override
    public long executeLargeUpdate(String p1) throws SQLException {
        return delegate.executeLargeUpdate(p1);
    }

    @Override
    public long executeLargeUpdate(String p1, int[] p2) throws SQLException {
        return delegate.executeLargeUpdate(p1, p2);
    }

    @Override
    public long executeLargeUpdate(String p1, String[] p2) throws SQLException {
        return delegate.executeLargeUpdate(p1, p2);
    }

    @Override
    public long executeLargeUpdate(String p1, int p2) throws SQLException {
        return delegate.executeLargeUpdate(p1, p2);
    }

    @Override
    public ResultSet executeQuery(String p1) throws SQLException {
        return delegate.executeQuery(p1);
    }

    @Override
    public int executeUpdate(String p1) throws SQLException {
        return delegate.executeUpdate(p1);
    }

    @Override
    public int executeUpdate(String p1, int[] p2) throws SQLException {
        return delegate.executeUpdate(p1, p2);
    }

    @Override
    public int executeUpdate(String p1, String[] p2) throws SQLException {
        return delegate.executeUpdate(p1, p2);
    }

    @Override
    public int executeUpdate(String p1, int p2) throws SQLException {
        return delegate.executeUpdate(p1, p2);
    }

    @Override
    public Connection getConnection() throws SQLException {
        return delegate.getConnection();
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return delegate.getFetchDirection();
    }

    @Override
    public int getFetchSize() throws SQLException {
        return delegate.getFetchSize();
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return delegate.getGeneratedKeys();
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
        return delegate.getLargeMaxRows();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        return delegate.getLargeUpdateCount();
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
        return delegate.getMaxFieldSize();
    }

    @Override
    public int getMaxRows() throws SQLException {
        return delegate.getMaxRows();
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        return delegate.getMoreResults();
    }

    @Override
    public boolean getMoreResults(int p1) throws SQLException {
        return delegate.getMoreResults(p1);
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        return delegate.getQueryTimeout();
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        return delegate.getResultSet();
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return delegate.getResultSetConcurrency();
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return delegate.getResultSetHoldability();
    }

    @Override
    public int getResultSetType() throws SQLException {
        return delegate.getResultSetType();
    }

    @Override
    public int getUpdateCount() throws SQLException {
        return delegate.getUpdateCount();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return delegate.isCloseOnCompletion();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public boolean isPoolable() throws SQLException {
        return delegate.isPoolable();
    }

    @Override
    public boolean isSimpleIdentifier(String p1) throws SQLException {
        return delegate.isSimpleIdentifier(p1);
    }

    @Override
    public boolean isWrapperFor(Class<?> p1) throws SQLException {
        return delegate.isWrapperFor(p1);
    }

    @Override
    public void setCursorName(String p1) throws SQLException {
        delegate.setCursorName(p1);
    }

    @Override
    public void setEscapeProcessing(boolean p1) throws SQLException {
        delegate.setEscapeProcessing(p1);
    }

    @Override
    public void setFetchDirection(int p1) throws SQLException {
        delegate.setFetchDirection(p1);
    }

    @Override
    public void setFetchSize(int p1) throws SQLException {
        delegate.setFetchSize(p1);
    }

    @Override
    public void setLargeMaxRows(long p1) throws SQLException {
        delegate.setLargeMaxRows(p1);
    }

    @Override
    public void setMaxFieldSize(int p1) throws SQLException {
        delegate.setMaxFieldSize(p1);
    }

    @Override
    public void setMaxRows(int p1) throws SQLException {
        delegate.setMaxRows(p1);
    }

    @Override
    public void setPoolable(boolean p1) throws SQLException {
        delegate.setPoolable(p1);
    }

    @Override
    public void setQueryTimeout(int p1) throws SQLException {
        delegate.setQueryTimeout(p1);
    }

    @Override
    public <T> T unwrap(Class<T> p1) throws SQLException {
        return delegate.unwrap(p1);
    }

    @Override
    public boolean getAdaptiveFetch() {
        return pgStatement().getAdaptiveFetch();
    }

    @Override
    public long getLastOID() throws SQLException {
        return pgStatement().getLastOID();
    }

    @Override
    public int getPrepareThreshold() {
        return pgStatement().getPrepareThreshold();
    }

    @Override
    public boolean isUseServerPrepare() {
        return pgStatement().isUseServerPrepare();
    }

    @Override
    public void setAdaptiveFetch(boolean p1) {
        pgStatement().setAdaptiveFetch(p1);
    }

    @Override
    public void setPrepareThreshold(int p1) throws SQLException {
        pgStatement().setPrepareThreshold(p1);
    }

    @Override
    public void setUseServerPrepare(boolean p1) throws SQLException {
        pgStatement().setUseServerPrepare(p1);
    }
}
