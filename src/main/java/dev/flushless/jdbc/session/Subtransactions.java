package dev.flushless.jdbc.session;

import java.sql.Connection;
import java.sql.SQLException;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The subtransactions the driver's own guard savepoints took in a connection's current transaction, and the rule
 * that caps them: once {@link #LIMIT} are taken, the transaction's later batches and writes run as sent.
 *
 * <p>Why: inside a transaction a coalesced batch or a flush of buffered writes runs under a savepoint of its own, so
 * that a failure can be undone and re-run as sent; a subtransaction that writes takes a transaction ID whether it is
 * released or not. PostgreSQL caches 64 such IDs per backend (PGPROC_MAX_CACHED_SUBXIDS); past them the backend is
 * marked overflowed until its transaction ends, and every other session's snapshot must then look IDs up in
 * {@code pg_subtrans}, the slowdown known from servers with long write transactions. Bare pgjdbc (without its
 * {@code autosave}) takes none, so the driver stops well below the cache's size and leaves room for the application's
 * own savepoints.
 */
public final class Subtransactions {

    /** Most guard savepoints the driver opens in one transaction. */
    public static final int LIMIT = 48;

    private int taken;
    /** Of {@link #taken}, the guards left open for an INSERT's update-count check ({@code OpenGuards}). */
    private int open;

    /** A guarded attempt ran inside a transaction (its savepoint took a subtransaction, released or not). */
    public void taken() {
        taken++;
    }

    /** A guard was left open in the current transaction. */
    public void leftOpen() {
        open++;
    }

    /** The guards left open in the current transaction. */
    public int open() {
        return open;
    }

    /**
     * Whether the current transaction of {@code connection} has taken {@link #LIMIT}; starts over when pgjdbc reports
     * no transaction open (one ended by a COMMIT the application sent as SQL).
     */
    public boolean exhausted(Connection connection) {
        if (taken < LIMIT) {
            return false;
        }
        try {
            if (connection.isWrapperFor(BaseConnection.class)
                    && connection.unwrap(BaseConnection.class).getTransactionState() == TransactionState.IDLE) {
                transactionEnded();
                return false;
            }
        } catch (SQLException e) {
            // a closed connection: its next use reports that
        }
        return true;
    }

    /**
     * The transaction ended (commit, rollback, autocommit switched on, close; or pgjdbc reports none open), and its
     * savepoints with it. Without this, a connection whose transactions begin with another statement than a batch (a
     * sequence fetch, an entity load) would count the savepoints of all its transactions.
     */
    public void transactionEnded() {
        taken = 0;
        open = 0;
    }
}
