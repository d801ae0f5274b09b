package dev.flushless.jdbc.wrapper;

import java.sql.*;

/**
 * The {@link DatabaseMetaData} of a {@link WrappedConnection}: returns the wrapping connection from
 * {@link #getConnection()} and wraps the result sets it returns; everything else passes through
 * ({@link DatabaseMetaDataDelegation}).
 *
 * <p>{@code getURL()} is pgjdbc's answer: the URL pgjdbc was given (the application's URL without {@code flushless:}
 * and without the {@code flushless.*} settings), as other wrappers (P6Spy, Testcontainers) return their delegate's.
 * Tools sniff it to recognise PostgreSQL (Liquibase's EnterpriseDB and CockroachDB checks need {@code jdbc:postgres});
 * Flyway and Liquibase only log it and never reconnect from it. See docs/semantics.md.
 */
public class WrappedDatabaseMetaData extends DatabaseMetaDataDelegation {

    private final WrappedConnection connection;

    WrappedDatabaseMetaData(DatabaseMetaData delegate, WrappedConnection connection) {
        super(delegate);
        this.connection = connection;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return connection;
    }

    /**
     * Wraps a metadata result set so that {@code getStatement().getConnection()} leads back to the wrapping
     * connection, never to the pgjdbc connection underneath.
     */
    @Override
    ResultSet wrap(ResultSet resultSet) throws SQLException {
        if (resultSet == null) {
            return null;
        }
        Statement statement = resultSet.getStatement();
        return statement == null
                ? new WrappedResultSet(resultSet, null)
                : new WrappedStatement(statement, connection).wrap(resultSet);
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        return iface.isInstance(this) ? iface.cast(this) : delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public String toString() {
        return delegate.toString(); // pgjdbc's own rendering
    }
}
