package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.batch.BatchExecutor;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * The generated keys of a {@link WrappedPreparedStatement}'s last coalesced batch, which {@code getGeneratedKeys()}
 * answers instead of pgjdbc until the statement's next execution or close.
 */
final class CoalescedKeys {

    /** The keys, or {@code null}. */
    private ResultSet keys;

    /** The keys of the last coalesced batch, or {@code null}: pgjdbc's own answer. */
    ResultSet get() {
        return keys;
    }

    /** Closes and forgets the keys (the next execution, or close). */
    void forget() throws SQLException {
        if (keys != null) {
            keys.close();
            keys = null;
        }
    }

    /** Keeps the rows a coalesced batch of {@code statement} returned ({@code outcome}), if it returned any. */
    void keep(BatchExecutor.Outcome outcome, WrappedPreparedStatement statement) throws SQLException {
        if (outcome != null && !outcome.returned().isEmpty()) {
            keys = wroteNothing(outcome.counts())
                    ? noKeys(outcome, statement)
                    : new CombinedResultSet(outcome.returned(), outcome.owners(), statement);
        }
    }

    private static boolean wroteNothing(long[] counts) {
        for (long count : counts) {
            if (count != 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * The generated keys of a batch in which no row wrote (an upsert batch whose every row hit DO NOTHING, or a DO
     * UPDATE ... WHERE that matched none), as pgjdbc gives them: it keeps the RETURNING rows of executions that
     * changed rows only, and without any it returns an empty result set with no columns, not the statements' empty
     * RETURNING result with the key columns (an application may read its metadata).
     */
    private static ResultSet noKeys(BatchExecutor.Outcome outcome, WrappedPreparedStatement statement)
            throws SQLException {
        for (ResultSet returned : outcome.returned()) {
            returned.close();
        }
        for (Statement owner : outcome.owners()) {
            owner.close();
        }
        return statement.wrap(statement
                .prepared
                .unwrap(org.postgresql.core.BaseStatement.class)
                .createDriverResultSet(new org.postgresql.core.Field[0], new java.util.ArrayList<>()));
    }
}
