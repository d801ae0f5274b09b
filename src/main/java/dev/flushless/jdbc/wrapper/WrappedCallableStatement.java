package dev.flushless.jdbc.wrapper;

import java.sql.CallableStatement;

/**
 * A {@link CallableStatement} handed out by {@link WrappedConnection}: executions and setters behave as a
 * {@link WrappedPreparedStatement}'s (a call is never coalesced or buffered), the methods it adds pass through
 * ({@link CallableStatementDelegation}).
 */
public class WrappedCallableStatement extends CallableStatementDelegation {

    WrappedCallableStatement(CallableStatement delegate, WrappedConnection connection, String sql) {
        super(delegate, connection, sql);
    }
}
