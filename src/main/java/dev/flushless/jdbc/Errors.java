package dev.flushless.jdbc;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/**
 * The one place that builds the SQLExceptions Flushless raises itself, each with its SQLState from pgjdbc's
 * {@link PSQLState} (or, where pgjdbc has no constant, one named here), so that no SQLState is written as a literal
 * elsewhere. Every message names what went wrong and what to do; the callers write it.
 *
 * <p>Internal to the driver: applications see the exceptions' classes, messages and SQLStates, not this class.
 */
public final class Errors {

    /**
     * {@code internal_error}, class XX (Internal Error) of the PostgreSQL error codes
     * (https://www.postgresql.org/docs/current/errcodes-appendix.html), which pgjdbc's {@link PSQLState} lacks: a
     * result the driver cannot explain, such as a coalesced statement's rows or count not matching its batch.
     */
    public static final String INTERNAL_ERROR = "XX000";

    /**
     * Class 08, {@code connection_exception}, of the PostgreSQL error codes (as above): every SQLState in it means
     * the connection is gone or was never there.
     */
    private static final String CONNECTION_EXCEPTION_CLASS = "08";

    /**
     * {@code lock_not_available} (55P03) of the PostgreSQL error codes, which pgjdbc's {@link PSQLState} lacks: a lock
     * was not granted within {@code lock_timeout}, or at once for {@code NOWAIT}.
     */
    public static final String LOCK_NOT_AVAILABLE = "55P03";

    /** Class 40, {@code transaction_rollback} (serialization failure 40001, deadlock 40P01, ...). */
    private static final String TRANSACTION_ROLLBACK_CLASS = "40";

    private Errors() {}

    /** {@link PSQLState#CONNECTION_UNABLE_TO_CONNECT} (08001): no connection could be opened. */
    public static SQLException cannotConnect(String message) {
        return new SQLException(message, PSQLState.CONNECTION_UNABLE_TO_CONNECT.getState());
    }

    /**
     * The loss of a connection while another caller's work ran on it: the state of {@code cause}, or
     * {@link PSQLState#CONNECTION_FAILURE} (08006) when it has none; {@code cause} as the cause.
     */
    public static SQLException connectionLost(String message, SQLException cause) {
        return new SQLException(
                message,
                cause.getSQLState() != null ? cause.getSQLState() : PSQLState.CONNECTION_FAILURE.getState(),
                cause);
    }

    /** {@link PSQLState#NOT_IMPLEMENTED} (0A000, {@code feature_not_supported}). */
    public static SQLException notSupported(String message) {
        return new SQLException(message, PSQLState.NOT_IMPLEMENTED.getState());
    }

    /**
     * {@link PSQLState#INVALID_PARAMETER_VALUE} (22023, {@code invalid_parameter_value}): an unknown or bad
     * {@code flushless.*} setting, the SQLState PostgreSQL gives a bad {@code SET} value.
     */
    /** The SQLState of {@link #invalidSetting} (22023). */
    public static final String INVALID_SETTING_STATE = PSQLState.INVALID_PARAMETER_VALUE.getState();

    public static SQLException invalidSetting(String message) {
        return new SQLException(message, PSQLState.INVALID_PARAMETER_VALUE.getState());
    }

    /** {@link PSQLState#IN_FAILED_SQL_TRANSACTION} (25P02): the transaction failed earlier, {@code cause}. */
    public static SQLException inFailedTransaction(String message, SQLException cause) {
        return new SQLException(message, PSQLState.IN_FAILED_SQL_TRANSACTION.getState(), cause);
    }

    /** {@link #INTERNAL_ERROR} (XX000). */
    public static SQLException internal(String message) {
        return new SQLException(message, INTERNAL_ERROR);
    }

    /** {@link #INTERNAL_ERROR} (XX000), with {@code cause}. */
    public static SQLException internal(String message, Throwable cause) {
        return new SQLException(message, INTERNAL_ERROR, cause);
    }

    /** {@link PSQLState#UNEXPECTED_ERROR} (99999, pgjdbc's own state for what should not happen). */
    public static SQLException unexpected(String message) {
        return new SQLException(message, PSQLState.UNEXPECTED_ERROR.getState());
    }

    /** {@link PSQLState#UNEXPECTED_ERROR} (99999), with {@code cause}. */
    public static SQLException unexpected(String message, Throwable cause) {
        return new SQLException(message, PSQLState.UNEXPECTED_ERROR.getState(), cause);
    }

    /** A new exception for {@code cause}, with its SQLState (and no error code), {@code cause} as the cause. */
    public static SQLException keepingState(String message, SQLException cause) {
        return new SQLException(message, cause.getSQLState(), cause);
    }

    /** A {@link BatchUpdateException} with {@code state}, the update counts and the error code of {@code cause}. */
    public static BatchUpdateException batchFailed(
            String message, PSQLState state, int[] updateCounts, SQLException cause) {
        return new BatchUpdateException(message, state.getState(), cause.getErrorCode(), updateCounts, cause);
    }

    /** pgjdbc's own exception class, where Flushless gives the error pgjdbc gives for the same call. */
    public static PSQLException asPgjdbc(String message, PSQLState state) {
        return new PSQLException(message, state);
    }

    /**
     * Whether {@code sqlState} is an error under contention: class 40 ({@code transaction_rollback}: serialization
     * failure 40001, deadlock 40P01), {@link #LOCK_NOT_AVAILABLE} (55P03) or {@link PSQLState#QUERY_CANCELED} (57014:
     * {@code statement_timeout}, or a cancel). Such an error ends the application's work exactly as under bare pgjdbc:
     * the transaction it hit is aborted (PostgreSQL keeps a transaction that failed so until it ends), so re-running
     * the work as sent cannot succeed there and would only add round trips and lock time; and no DDL happened, so
     * it says nothing about cached catalog facts. Flushless raises it as it is.
     */
    public static boolean isContention(String sqlState) {
        return sqlState != null
                && (sqlState.startsWith(TRANSACTION_ROLLBACK_CLASS)
                        || LOCK_NOT_AVAILABLE.equals(sqlState)
                        || PSQLState.QUERY_CANCELED.getState().equals(sqlState));
    }

    /**
     * Whether an error of a coalesced statement may come from catalog facts that went stale (DDL by another session):
     * class 42 (an undefined or changed column, table, type or function; a datatype mismatch), class 0A (a cached
     * plan whose result type changed), class XX (a count check that failed: a trigger or rule added). Only then are
     * the cached facts read again. Errors of the data (class 22, 23), of contention ({@link #isContention}) or of the
     * connection say nothing about the table's definition.
     */
    public static boolean mayComeFromStaleCatalog(String sqlState) {
        return sqlState == null || sqlState.startsWith("42") || sqlState.startsWith("0A") || sqlState.startsWith("XX");
    }

    /** Whether {@code sqlState} is of class 08 ({@code connection_exception}): the connection is gone. */
    public static boolean isConnectionException(String sqlState) {
        return sqlState != null && sqlState.startsWith(CONNECTION_EXCEPTION_CLASS);
    }
}
