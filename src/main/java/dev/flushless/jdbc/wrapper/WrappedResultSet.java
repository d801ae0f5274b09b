package dev.flushless.jdbc.wrapper;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * A {@link ResultSet} returned by a {@link WrappedStatement}: returns that statement from
 * {@link #getStatement()}; everything else passes through ({@link ResultSetDelegation}).
 */
public class WrappedResultSet extends ResultSetDelegation {

    private final WrappedStatement statement;

    /** The result set calls go to ({@link CombinedResultSet} moves {@code delegate} from one part to the next). */
    WrappedResultSet(ResultSet delegate, WrappedStatement statement) {
        super(delegate);
        this.statement = statement;
    }

    @Override
    public Statement getStatement() throws SQLException {
        delegate.getStatement(); // keeps the delegate's closed-result-set check
        return statement;
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
