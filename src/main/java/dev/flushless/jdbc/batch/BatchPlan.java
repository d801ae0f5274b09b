package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import java.util.List;

/**
 * How one JDBC batch runs: the statements to send (all in one round trip) and how each statement's result
 * maps back to the batch's rows. Either {@link #statements()} is non-empty, or {@link #fallbackReason()}
 * says why the batch runs as the application sent it.
 */
public record BatchPlan(String rewriteKind, List<Step> statements, Fallback fallback, Fallback note, CopyForm copy) {

    /** A plan without a note. */
    public BatchPlan(String rewriteKind, List<Step> statements, Fallback fallback) {
        this(rewriteKind, statements, fallback, null, null);
    }

    /** The plan that sends the batch as {@code copy} ({@link CopyExecutor}); its one step names the COPY and its rows. */
    static BatchPlan copy(CopyForm copy) {
        int[] rows = new int[copy.rows()];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = i;
        }
        return new BatchPlan(COPY_KIND, List.of(new Step(copy.sql(), rows, Decoding.ONE_PER_ROW)), null, null, copy);
    }

    /** The rewrite kind of a batch sent as COPY. */
    public static final String COPY_KIND = "insert-copy";

    /** True when the batch is sent as COPY ({@link #copy()}). */
    public boolean isCopy() {
        return copy != null;
    }

    /** This plan with {@code note}: why it is not the form asked for (counted with the batch's rows). */
    public BatchPlan withNote(Fallback note) {
        return new BatchPlan(rewriteKind, statements, fallback, note, copy);
    }

    /** The text of {@link #fallback()} (may quote the SQL; explain and the DEBUG log), or {@code null}. */
    public String fallbackReason() {
        return fallback == null ? null : fallback.text();
    }

    /** True for the anti-join form of ON CONFLICT. */
    public boolean isAntiJoin() {
        return rewriteKind != null && rewriteKind.endsWith("-antijoin");
    }

    /** True for multi-row {@code INSERT ... ON CONFLICT} statements (YugabyteDB may flush them once per row). */
    public boolean isNativeOnConflict() {
        return rewriteKind != null && rewriteKind.startsWith("upsert-") && !isAntiJoin();
    }

    /**
     * The YugabyteDB flushes this plan's statements are estimated to cost under {@code model}: per statement, one per
     * 3072 rows, at least one; one per row for a native ON CONFLICT statement where the release does not batch it. The
     * driver's report and {@code explain} both count with this.
     */
    public long estimatedFlushes(YugabyteFlushModel model) {
        long flushes = 0;
        for (Step step : statements) {
            int rows = Math.max(1, step.rows().length);
            flushes += isNativeOnConflict() ? model.onConflictStatement(rows) : model.writeStatement(rows);
        }
        return flushes;
    }

    /** How a statement's result becomes per-row update counts. */
    public enum Decoding {
        /**
         * A multi-row INSERT wrapped in a count check ({@code Rewriter.countChecked}): every row inserted
         * exactly one row, or the statement failed.
         */
        ONE_PER_ROW,
        /** A multi-row INSERT with RETURNING: one returned row per inserted row, kept for the application. */
        RETURNED_ROWS,
        /**
         * A count-checked multi-row INSERT with the application's own RETURNING but no generated-keys
         * request: pgjdbc discards such rows in a batch and reports 0 per row, so this does too.
         */
        RETURNED_ROWS_DISCARDED,
        /** An UPDATE/DELETE joined to its rows: the result lists the ordinal of the row behind every changed row. */
        ORDINALS,
        /** As {@link #ORDINALS}, the ordinals aggregated into one array in one row. */
        ORDINAL_ARRAY,
        /**
         * As {@link #ORDINAL_ARRAY} for rows that each match at most one table row (their keys cover a unique key):
         * one row of {@code count, max(ordinal), ordinals}, the array left out (NULL) when the count equals the
         * largest ordinal, i.e. rows 1 to max changed one row each and the rest none.
         */
        ORDINAL_PREFIX_OR_ARRAY,
        /**
         * A multi-row INSERT ... ON CONFLICT returning its conflict-target columns for the rows it wrote: walked
         * in order against the batch rows' keys, a returned row means 1, a missing one 0.
         */
        ALIGNED,
        /** As {@link #ALIGNED}, with the returned rows kept as the application's generated keys. */
        ALIGNED_RETURNED,
        /** A CTE chain of a Statement batch's members: one row, one count column per member, in member order. */
        CHAIN_COUNTS,
        /** One Statement batch member sent as written: its own update count. */
        UPDATE_COUNT,
        /**
         * A plain multi-row INSERT (no RETURNING, no count check in the statement) run inside the guard savepoint
         * ({@link BatchPlanner.Settings#withGuard}): its update count must equal its rows, one per row; any other count
         * (a trigger or rule added by another session after the catalog was read, which skipped or redirected rows)
         * fails the run, and the guard undoes it before the re-run as sent. It spares the server the CTE that
         * {@link #ONE_PER_ROW}'s in-statement check collects every inserted row into (15% of a 1,000-row INSERT's
         * server time), which is needed only where nothing could undo a wrong count (autocommit).
         */
        COUNTED
    }

    /**
     * One statement of the plan: its SQL text, the batch rows (or Statement batch members) it covers, in
     * order, and how to decode its result.
     */
    public record Step(
            String sql,
            int[] rows,
            Decoding decoding,
            int rowParameters,
            Bind[] tail,
            Alignment alignment,
            Object[][] arrays) {

        /** A step binding every parameter of each row (or none, for a Statement batch). */
        public Step(String sql, int[] rows, Decoding decoding) {
            this(sql, rows, decoding, -1, new Bind[0], null, null);
        }

        /**
         * Bind parameters this step sends: one array (text, or integers) per row parameter ({@link #arrays()} form), or the
         * row parameters of every row; then the tail.
         */
        public long parameterCount(int parametersPerRow) {
            long perStatement = arrays != null
                    ? arrays.length
                    : (long) rows.length * (rowParameters >= 0 ? rowParameters : parametersPerRow);
            return perStatement + tail.length;
        }
    }

    /**
     * For {@link Decoding#ALIGNED}: the returned columns to read and, per row of the step, the key it must
     * match (canonical values, {@code null} for SQL NULL).
     */
    public record Alignment(TableCatalog.ColumnInfo[] columns, Object[][] keys) {}

    /** A plan that runs the batch as sent, for {@code reason}. */
    public static BatchPlan fallback(Fallback reason) {
        return new BatchPlan(null, List.of(), reason);
    }

    /** A plan that runs the batch as sent, for {@code reason} with {@code details}. */
    public static BatchPlan fallback(FallbackReason reason, Object... details) {
        return fallback(reason.because(details));
    }

    public boolean isFallback() {
        return fallback != null;
    }
}
