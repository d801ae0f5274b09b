package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.BatchPlanner.InsertMember;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Plain {@code INSERT ... VALUES (tuple)} batches (no ON CONFLICT): COPY where the settings' {@link CopyChoice} says it
 * pays and COPY stores what the INSERTs would ({@link CopyForm}), else the unnest form when every parameter's type is
 * known (one SQL text for any row count, the rows as one array per parameter, chunks of
 * {@code maxRowsPerStatement} rows), else the tuple repeated within the row and bind-parameter limits. Each
 * statement checks its own row count, unless the application asked for generated keys, or the batch runs inside the
 * guard savepoint, where its update count is checked instead ({@link Decoding#COUNTED}). Pure: no I/O.
 */
final class InsertPlanner {

    private InsertPlanner() {}

    /** Plans a batch the dispatcher ({@link BatchPlanner#plan}) accepted; {@code returningSuffix} as there. */
    static BatchPlan plan(
            StatementDescription insert,
            List<Bind[]> rows,
            TableInfo table,
            String returningSuffix,
            BatchPlanner.Settings settings) {
        if (returningSuffix == null && settings.copy().pays(rows.size(), insert.parameterCount())) {
            CopyForm copy = CopyForm.of(insert, rows, table, settings.session(), new String[1]);
            if (copy != null) {
                return BatchPlan.copy(copy);
            }
        }
        Decoding decoding = returningSuffix != null
                ? Decoding.RETURNED_ROWS
                : insert.hasReturning()
                        ? Decoding.RETURNED_ROWS_DISCARDED
                        : settings.guarded() ? Decoding.COUNTED : Decoding.ONE_PER_ROW;
        String[] casts = Casts.insertCasts(insert, rows, table, settings.session());
        if (casts != null) {
            BatchPlan unnest = unnestPlan(
                    insert, rows, casts, returningSuffix, decoding, settings.maxRowsPerStatement(), settings.session());
            if (unnest != null) {
                return unnest;
            }
        }
        int chunkRows = RowGroups.rowsPerStatement(settings.maxRowsPerStatement(), insert.parameterCount(), 0);
        List<Step> steps = new ArrayList<>();
        for (int[] chunk : RowGroups.chunks(rows.size(), chunkRows)) {
            String sql = Rewriter.insertValues(insert, chunk.length, returningSuffix);
            if (checkedInStatement(decoding)) {
                sql = Rewriter.countChecked(returningOne(insert, sql), chunk.length);
            }
            steps.add(new Step(sql, chunk, decoding));
        }
        return new BatchPlan("insert-values", steps, null);
    }

    /**
     * One SQL text for every chunk: the rows travel as arrays, the expected count as a parameter; {@code null} when
     * a value cannot travel in an array.
     */
    private static BatchPlan unnestPlan(
            StatementDescription insert,
            List<Bind[]> rows,
            String[] casts,
            String returningSuffix,
            Decoding decoding,
            int maxRows,
            SessionFacts session) {
        boolean[] nativeArrays = Casts.nativeArrays(rows, casts);
        String sql = checkedInStatement(decoding) // both texts kept: a batch of a statement seen before builds none
                ? Rewriter.countChecked(Rewriter.insertUnnest(
                        insert, casts, nativeArrays, insert.hasReturning() ? null : RETURNING_ONE))
                : Rewriter.insertUnnest(insert, casts, nativeArrays, returningSuffix);
        List<Step> steps = new ArrayList<>();
        for (int[] chunk : RowGroups.chunks(rows.size(), maxRows)) {
            Object[][] arrays = Casts.encodeArrays(rows, chunk, casts, nativeArrays, session);
            if (arrays == null) {
                return null;
            }
            Bind[] tail = checkedInStatement(decoding) ? new Bind[] {Bind.ofLong(chunk.length)} : new Bind[0];
            steps.add(new Step(sql, chunk, decoding, 0, tail, null, arrays));
        }
        return new BatchPlan("insert-unnest", steps, null);
    }

    /**
     * Whether the statement checks its own row count ({@code Rewriter.countChecked}): every form but the one that returns
     * the application's generated keys (one row per inserted row) and the one inside the guard savepoint, whose update
     * count is checked ({@link Decoding#COUNTED}).
     */
    private static boolean checkedInStatement(Decoding decoding) {
        return decoding != Decoding.RETURNED_ROWS && decoding != Decoding.COUNTED;
    }

    /** What a count-checked INSERT without a RETURNING of its own returns: one column per inserted row. */
    private static final String RETURNING_ONE = "\nRETURNING 1";

    /** The INSERT with a RETURNING for its count check: its own, else {@code RETURNING 1}. */
    private static String returningOne(StatementDescription insert, String sql) {
        return insert.hasReturning() ? sql : sql + RETURNING_ONE;
    }

    /** See {@link BatchPlanner#insertMembers}. */
    static List<InsertMember> members(
            StatementDescription insert, List<Bind[]> rows, TableInfo table, SessionFacts session, int maxRows) {
        int perRow = insert.parameterCount();
        if (rows.size() == 1) {
            return new ArrayList<>(List.of(
                    new InsertMember(insert.text(), Arrays.asList(rows.get(0)).subList(0, perRow), 1)));
        }
        String[] casts = session.standardConformingStrings() ? Casts.insertCasts(insert, rows, table, session) : null;
        List<InsertMember> members = casts == null ? List.of() : unnestMembers(insert, rows, casts, maxRows, session);
        if (!members.isEmpty()) {
            return members;
        }
        members = new ArrayList<>();
        for (int[] chunk : RowGroups.chunks(rows.size(), RowGroups.rowsPerStatement(maxRows, perRow, 0))) {
            List<Bind> parameters = new ArrayList<>(chunk.length * perRow);
            for (int r : chunk) {
                parameters.addAll(Arrays.asList(rows.get(r)).subList(0, perRow));
            }
            members.add(new InsertMember(Rewriter.insertValues(insert, chunk.length, null), parameters, chunk.length));
        }
        return members;
    }

    /** The unnest form's members, one per chunk of {@code maxRows}; empty when a value cannot travel in an array. */
    private static List<InsertMember> unnestMembers(
            StatementDescription insert, List<Bind[]> rows, String[] casts, int maxRows, SessionFacts session) {
        boolean[] nativeArrays = Casts.nativeArrays(rows, casts);
        String sql = Rewriter.insertUnnest(insert, casts, nativeArrays, null);
        List<InsertMember> members = new ArrayList<>();
        for (int[] chunk : RowGroups.chunks(rows.size(), maxRows)) {
            Object[][] arrays = Casts.encodeArrays(rows, chunk, casts, nativeArrays, session);
            if (arrays == null) {
                return List.of();
            }
            List<Bind> parameters = new ArrayList<>(arrays.length);
            for (Object[] array : arrays) {
                parameters.add(Bind.ofEncodedArray(array));
            }
            members.add(new InsertMember(sql, parameters, chunk.length));
        }
        return members;
    }
}
