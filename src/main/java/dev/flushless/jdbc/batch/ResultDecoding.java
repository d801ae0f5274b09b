package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Reads the results of one execution of {@link BatchExecutor} back into the batch's per-row update counts and
 * returned rows, step by step, by each step's {@link BatchPlan.Decoding}.
 */
final class ResultDecoding {

    private ResultDecoding() {}

    /**
     * An error while reading the results of an execution that the server completed: in autocommit that execution's
     * implicit transaction has committed, so it must not be taken for a failed, rolled-back attempt (a re-run as sent
     * would apply the batch twice).
     */
    static final class DecodeFailure extends SQLException {
        private static final long serialVersionUID = 1L;

        DecodeFailure(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
        }
    }

    /** Reads one step's result into {@code counts}; false when an INSERT's count differs from its row count. */
    static boolean decode(Step step, Statement statement, boolean isResultSet, long[] counts, List<ResultSet> returned)
            throws SQLException {
        int[] rows = step.rows();
        switch (step.decoding()) {
            case ONE_PER_ROW: {
                try (ResultSet rs = statement.getResultSet()) {
                    rs.next(); // the count check raised an error inside the statement if it was not rows.length
                }
                for (int row : rows) {
                    counts[row] = 1;
                }
                return true;
            }
            case COUNTED: {
                if (isResultSet) { // a rule added by another session turned the INSERT into a query
                    statement.getResultSet().close();
                    return false;
                }
                if (statement.getLargeUpdateCount() != rows.length) {
                    return false; // the guard undoes it (BatchExecutor)
                }
                for (int row : rows) {
                    counts[row] = 1;
                }
                return true;
            }
            case RETURNED_ROWS:
                return returnedRows(rows, statement, counts, returned);
            case RETURNED_ROWS_DISCARDED: {
                try (ResultSet rs = statement.getResultSet()) {
                    rs.next(); // count-checked as ONE_PER_ROW; counts stay 0, as pgjdbc reports them
                }
                return true;
            }
            case ALIGNED:
            case ALIGNED_RETURNED:
                return aligned(step, statement, counts, returned);
            case CHAIN_COUNTS: {
                try (ResultSet rs = statement.getResultSet()) {
                    rs.next();
                    for (int i = 0; i < rows.length; i++) {
                        counts[rows[i]] = rs.getLong(i + 1);
                    }
                }
                return true;
            }
            case UPDATE_COUNT: {
                if (isResultSet) {
                    statement.getResultSet().close();
                    counts[rows[0]] = 0;
                } else {
                    counts[rows[0]] = statement.getLargeUpdateCount();
                }
                return true;
            }
            case ORDINAL_ARRAY: {
                try (ResultSet rs = statement.getResultSet()) {
                    rs.next();
                    countOrdinals(rs.getArray(1), rows, counts);
                }
                return true;
            }
            case ORDINAL_PREFIX_OR_ARRAY:
                return ordinalPrefixOrArray(rows, statement, counts);
            case ORDINALS: {
                try (ResultSet rs = statement.getResultSet()) {
                    while (rs.next()) {
                        counts[rows[rs.getInt(1) - 1]]++;
                    }
                }
                return true;
            }
            default:
                throw new IllegalStateException(step.decoding().name());
        }
    }

    /** {@code RETURNED_ROWS}: the returned rows are kept for the application; false when fewer than the rows. */
    private static boolean returnedRows(int[] rows, Statement statement, long[] counts, List<ResultSet> returned)
            throws SQLException {
        ResultSet rs = statement.getResultSet();
        rs.last();
        int inserted = rs.getRow();
        rs.beforeFirst();
        returned.add(rs);
        for (int row : rows) {
            counts[row] = 1;
        }
        return inserted == rows.length;
    }

    /** {@code ALIGNED} and {@code ALIGNED_RETURNED}: counts from the returned keys ({@link #align}). */
    private static boolean aligned(Step step, Statement statement, long[] counts, List<ResultSet> returned)
            throws SQLException {
        ResultSet rs = statement.getResultSet();
        boolean aligned = align(step, rs, counts);
        if (step.decoding() == BatchPlan.Decoding.ALIGNED_RETURNED) {
            rs.beforeFirst();
            returned.add(rs);
        } else {
            rs.close();
        }
        if (!aligned) {
            throw Errors.internal("Flushless: the rows an ON CONFLICT statement returned do not match the batch"
                    + " rows in order; the batch is re-run as sent");
        }
        return true;
    }

    /** {@code ORDINAL_PREFIX_OR_ARRAY}: the ordinals that changed a row, or a prefix of rows that each changed one. */
    private static boolean ordinalPrefixOrArray(int[] rows, Statement statement, long[] counts) throws SQLException {
        try (ResultSet rs = statement.getResultSet()) {
            rs.next();
            java.sql.Array ordinals = rs.getArray(3);
            if (ordinals != null) {
                countOrdinals(ordinals, rows, counts);
            } else {
                long changed = rs.getLong(2); // rows 1..max each changed one row (count = max, ordinals distinct)
                for (int i = 0; i < changed; i++) {
                    counts[rows[i]] = 1;
                }
            }
        }
        return true;
    }

    /** Adds one to the count of the step row behind each 1-based ordinal of {@code ordinals} (NULL: none). */
    private static void countOrdinals(java.sql.Array ordinals, int[] rows, long[] counts) throws SQLException {
        if (ordinals != null) {
            for (Object ordinal : (Object[]) ordinals.getArray()) {
                counts[rows[((Number) ordinal).intValue() - 1]]++;
            }
        }
    }

    /**
     * Walks the batch rows and the returned keys together: rows are written, and returned, in VALUES order,
     * so a row wrote (count 1) exactly when the next returned key is its own; otherwise it did nothing (0).
     * False when returned keys are left over (they must all belong to rows of the step).
     */
    private static boolean align(Step step, ResultSet rs, long[] counts) throws SQLException {
        BatchPlan.Alignment alignment = step.alignment();
        int[] columns = new int[alignment.columns().length];
        for (int k = 0; k < columns.length; k++) {
            columns[k] = rs.findColumn(alignment.columns()[k].name());
        }
        int[] rows = step.rows();
        int i = 0;
        while (rs.next()) {
            Object[] returnedKey = new Object[columns.length];
            for (int k = 0; k < columns.length; k++) {
                Object value = rs.getObject(columns[k]);
                returnedKey[k] = value == null
                        ? null
                        : Keys.alignmentKey(value, alignment.columns()[k]);
            }
            while (i < rows.length && !java.util.Arrays.equals(alignment.keys()[i], returnedKey)) {
                counts[rows[i++]] = 0;
            }
            if (i == rows.length) {
                return false;
            }
            counts[rows[i++]] = 1;
        }
        while (i < rows.length) {
            counts[rows[i++]] = 0;
        }
        return true;
    }
}
