package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.session.Session;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * pgjdbc's side of a {@code mode=transaction} connection's transaction: pgjdbc's own autocommit, which lags behind
 * the application's until something is sent ({@link TransactionBuffering}), the server transaction's state, and
 * pgjdbc's commit and rollback with the round trips the report counts as transaction control.
 */
final class ServerTransaction {

    private final Session session;

    ServerTransaction(Session session) {
        this.session = session;
    }

    private Connection delegate() {
        return session.delegate();
    }

    /** Opens the server transaction: pgjdbc sends BEGIN with its next statement (no round trip of its own). */
    void beginServerTransaction() throws SQLException {
        if (delegate().getAutoCommit()) {
            delegate().setAutoCommit(false);
        }
    }

    /** Puts pgjdbc back into autocommit after the transaction ended, so the next one can fuse its commit. */
    void endServerTransaction() throws SQLException {
        if (!delegate().getAutoCommit()) {
            delegate().setAutoCommit(true);
        }
    }

    void endServerTransactionQuietly() {
        try {
            endServerTransaction();
        } catch (SQLException ignored) {
            // the connection is broken; its next use reports that
        }
    }

    void commitInPgjdbc() throws SQLException {
        endInPgjdbc(true);
    }

    void rollbackInPgjdbc() throws SQLException {
        endInPgjdbc(false);
    }

    /**
     * pgjdbc's commit() or rollback(); its round trip is counted in the report when pgjdbc sends a COMMIT or ROLLBACK
     * (it does only with a server transaction open).
     */
    private void endInPgjdbc(boolean commit) throws SQLException {
        boolean sends = serverTransactionOpen();
        try {
            if (commit) {
                delegate().commit();
            } else {
                delegate().rollback();
            }
        } finally {
            if (sends) {
                session.stats().transactionControl();
            }
        }
    }

    /** True when pgjdbc has a server transaction open, so that ending it sends a COMMIT or ROLLBACK. */
    boolean serverTransactionOpen() {
        org.postgresql.core.TransactionState state = transactionState(delegate());
        return state != null && state != org.postgresql.core.TransactionState.IDLE;
    }

    /** True when pgjdbc has a server transaction open that has not failed. */
    boolean serverTransactionHealthy() {
        return transactionState(delegate()) == org.postgresql.core.TransactionState.OPEN;
    }

    /**
     * pgjdbc's {@code setAutoCommit}: switching autocommit on inside a transaction makes pgjdbc send COMMIT, a round
     * trip the report counts as transaction control.
     */
    void setAutoCommitInPgjdbc(boolean value) throws SQLException {
        boolean sends = value && serverTransactionOpen();
        try {
            delegate().setAutoCommit(value);
        } finally {
            if (sends) {
                session.stats().transactionControl();
            }
        }
    }

    boolean autosave() {
        try {
            return session.delegate().isWrapperFor(org.postgresql.PGConnection.class)
                    && session.delegate()
                                    .unwrap(org.postgresql.PGConnection.class)
                                    .getAutosave()
                            != org.postgresql.jdbc.AutoSave.NEVER;
        } catch (SQLException | RuntimeException e) {
            return false; // not pgjdbc: it has no autosave
        }
    }

    /** True when pgjdbc knows the server transaction is aborted (every statement fails until rollback). */
    static boolean transactionFailed(Connection delegate) {
        org.postgresql.core.TransactionState state = transactionState(delegate);
        return state == null || state == org.postgresql.core.TransactionState.FAILED; // not pgjdbc: do not buffer
    }

    /** pgjdbc's transaction state, or {@code null} when the delegate is not pgjdbc. */
    private static org.postgresql.core.TransactionState transactionState(Connection delegate) {
        try {
            return delegate.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState();
        } catch (SQLException | RuntimeException e) {
            return null;
        }
    }
}
