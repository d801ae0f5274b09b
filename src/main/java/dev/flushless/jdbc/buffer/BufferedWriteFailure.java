package dev.flushless.jdbc.buffer;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.postgresql.util.PSQLException;

/**
 * The error of a buffered write ({@code flushless.mode=transaction}), raised by the later call that sent it (documented
 * deviation 1) in the class pgjdbc raised it in, so that code and frameworks that look at the class, the SQLState or
 * the server's details see pgjdbc's own: a {@link PSQLException} with the server's {@code ServerErrorMessage} for a
 * single execution, a {@link BatchUpdateException} with pgjdbc's update counts and its chain of next exceptions for a
 * batch. The message says which buffered write failed and when it was sent; the cause is the server's exception.
 */
public final class BufferedWriteFailure {

    private BufferedWriteFailure() {}

    /** A single buffered execution that failed on the server. */
    public static final class ServerError extends PSQLException {
        private static final long serialVersionUID = 1L;
        private final String context;
        private final String after;

        ServerError(String context, String after, PSQLException server) {
            super(server.getServerErrorMessage());
            this.context = context;
            this.after = after;
            initCause(server);
        }

        @Override
        public String getMessage() {
            return context + super.getMessage() + after;
        }
    }

    /** A buffered batch that failed: pgjdbc's counts and next exceptions, as its {@code executeBatch()} gave them. */
    public static final class BatchError extends BatchUpdateException {
        private static final long serialVersionUID = 1L;

        BatchError(String message, BatchUpdateException pgjdbc, SQLException server) {
            super(message, pgjdbc.getSQLState(), pgjdbc.getErrorCode(), pgjdbc.getLargeUpdateCounts(), server);
            if (pgjdbc.getNextException() != null) {
                setNextException(pgjdbc.getNextException());
            }
        }
    }

    /**
     * The error to raise for {@code failure} of a buffered write: {@code context} in front of pgjdbc's message, pgjdbc's
     * class and details kept.
     */
    static SQLException of(String context, String after, SQLException failure) {
        if (failure instanceof BatchUpdateException batch) {
            SQLException server = batch.getNextException() != null ? batch.getNextException() : batch;
            return new BatchError(context + server.getMessage() + after, batch, server);
        }
        if (failure instanceof PSQLException pg && pg.getServerErrorMessage() != null) {
            return new ServerError(context, after, pg);
        }
        return new SQLException(
                context + failure.getMessage() + after, failure.getSQLState(), failure.getErrorCode(), failure);
    }
}
