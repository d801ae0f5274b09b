package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * INSERT ... ON CONFLICT (keys) DO NOTHING | DO UPDATE as multi-row statements (the native form) whose RETURNING of
 * the key columns tells which rows wrote (1) and which did not (0). Rows are processed, and returned, in VALUES
 * order, so a key repeated in the batch behaves as in sequential execution: with DO NOTHING the first occurrence
 * wins; DO UPDATE may not touch a row twice in one statement, so repeats go to later waves. Parameters in the DO
 * UPDATE clause are bound once per statement, so rows are grouped by their values. Pure: no I/O.
 */
final class UpsertPlanner {

    /** What each statement returns: the text appended to it ({@code null}: its own RETURNING), and how it is read. */
    private record Returning(String suffix, Decoding decoding) {}

    private UpsertPlanner() {}

    /** Plans a batch the dispatcher ({@link BatchPlanner#plan}) accepted; {@code returningSuffix} as there. */
    static BatchPlan plan(
            StatementDescription insert,
            List<Bind[]> rows,
            TableInfo table,
            String returningSuffix,
            BatchPlanner.Settings settings) {
        boolean doUpdate = insert.onConflict() == StatementDescription.OnConflict.DO_UPDATE;
        List<KeyColumn> keys = insert.conflictKeys();
        ColumnInfo[] keyColumns = new ColumnInfo[keys.size()];
        String missing = Keys.missingColumn(keys, table, keyColumns);
        if (missing != null) {
            return BatchPlan.fallback(FallbackReason.COLUMN_NOT_FOUND, "ON CONFLICT column not found: " + missing);
        }
        Object[][] rowKeys = new Object[rows.size()][];
        String[] names = Arrays.stream(keyColumns).map(ColumnInfo::name).toArray(String[]::new);
        Fallback notModelled = Keys.conflictRowKeys(
                rows, keys, keyColumns, names, (value, k) -> Keys.alignmentKey(value, keyColumns[k]), rowKeys);
        if (notModelled != null) {
            return BatchPlan.fallback(notModelled);
        }
        Returning returning = returning(insert, returningSuffix);
        if (returning == null) {
            return BatchPlan.fallback(FallbackReason.UPSERT_KEYS_NOT_TARGET);
        }
        List<Step> steps =
                steps(insert, rows, table, settings, returning, new BatchPlan.Alignment(keyColumns, rowKeys));
        Fallback outOfOrder = RowGroups.inBatchOrder(steps) ? null : outOfOrderProblem(insert, table, returning);
        if (outOfOrder != null) {
            return BatchPlan.fallback(outOfOrder);
        }
        boolean unnested = steps.stream().allMatch(step -> step.arrays() != null);
        return new BatchPlan(
                (doUpdate ? "upsert-do-update" : "upsert-do-nothing") + (unnested ? "-unnest" : ""), steps, null);
    }

    /**
     * What the statements return: the generated keys the application asked for (which must include the conflict
     * columns, to tell the rows apart), its own RETURNING, or the conflict columns; {@code null} for generated keys
     * without the conflict columns.
     */
    private static Returning returning(StatementDescription insert, String returningSuffix) {
        List<KeyColumn> keys = insert.conflictKeys();
        if (returningSuffix != null) {
            if (insert.hasReturning() || !returningSuffix.contains("*") && !namesAll(returningSuffix, keys)) {
                return null;
            }
            return new Returning(returningSuffix, Decoding.ALIGNED_RETURNED);
        }
        if (insert.hasReturning()) {
            return new Returning(null, Decoding.RETURNED_ROWS_DISCARDED); // pgjdbc reports 0 per row and drops the rows
        }
        StringBuilder suffix = new StringBuilder("\nRETURNING ");
        for (int k = 0; k < keys.size(); k++) {
            suffix.append(k > 0 ? ", " : "").append(quote(keys.get(k).column()));
        }
        return new Returning(suffix.toString(), Decoding.ALIGNED);
    }

    /**
     * The statements: waves (DO UPDATE: a key at most once per statement), then groups of equal DO UPDATE parameter
     * values, in chunks within the limits; each in the unnest form where its values can travel in arrays.
     * {@code all} holds every row's key, each step gets its rows' keys.
     */
    private static List<Step> steps(
            StatementDescription insert,
            List<Bind[]> rows,
            TableInfo table,
            BatchPlanner.Settings settings,
            Returning returning,
            BatchPlan.Alignment all) {
        boolean doUpdate = insert.onConflict() == StatementDescription.OnConflict.DO_UPDATE;
        int rowParameters = insert.rowParameterCount();
        int chunkRows = RowGroups.rowsPerStatement(
                settings.maxRowsPerStatement(), rowParameters, insert.parameterCount() - rowParameters);
        String[] casts = Casts.insertCasts(insert, rows, table, settings.session());
        boolean[] nativeArrays = casts == null ? null : Casts.nativeArrays(rows, casts);
        List<Step> steps = new ArrayList<>();
        for (List<Integer> members :
                RowGroups.upsertGroups(insert, rows, doUpdate ? all.keys() : null, rowParameters)) {
            Bind[] tail = Arrays.copyOfRange(rows.get(members.get(0)), rowParameters, insert.parameterCount());
            for (int[] chunk : RowGroups.chunks(members, chunkRows)) {
                Object[][] chunkKeys = new Object[chunk.length][];
                for (int i = 0; i < chunk.length; i++) {
                    chunkKeys[i] = all.keys()[chunk[i]];
                }
                Object[][] arrays =
                        casts == null ? null : Casts.encodeArrays(rows, chunk, casts, nativeArrays, settings.session());
                String sql = arrays != null
                        ? Rewriter.insertUnnest(insert, casts, nativeArrays, returning.suffix())
                        : Rewriter.insertValues(insert, chunk.length, returning.suffix());
                steps.add(new Step(
                        sql,
                        chunk,
                        returning.decoding(),
                        arrays != null ? 0 : rowParameters,
                        tail,
                        new BatchPlan.Alignment(all.columns(), chunkKeys),
                        arrays));
            }
        }
        return steps;
    }

    /** Why statements out of batch order (a repeated key, or grouped DO UPDATE parameters) would differ, or {@code null}. */
    private static Fallback outOfOrderProblem(StatementDescription insert, TableInfo table, Returning returning) {
        if (returning.decoding() == Decoding.ALIGNED_RETURNED) {
            return FallbackReason.UPSERT_OUT_OF_ORDER.because(
                    "generated keys of an upsert whose rows need statements out of batch order");
        }
        // ON CONFLICT draws a sequence default for every proposed row: out of batch order, other rows get the ids
        if (table.drawsFromSequences()) {
            return FallbackReason.UPSERT_OUT_OF_ORDER.because("upsert rows need statements out of batch order and the"
                    + " table draws from a sequence: rows would get other ids than row by row");
        }
        Fallback unmodelled =
                PlanChecks.uniquenessProblem(insert.conflictUpdatedColumns(), table, true, new ArrayList<>());
        return unmodelled == null ? null : FallbackReason.UPSERT_OUT_OF_ORDER.because("upsert " + unmodelled.text());
    }

    /**
     * Whether the generated-key columns pgjdbc appends ({@code returningSuffix}, "\nRETURNING a, b" with each name
     * quoted or, with pgjdbc's {@code quoteReturningIdentifiers=false}, as the application wrote it) name every conflict
     * column exactly: the rows are told apart by those columns' values. A name that merely contains a conflict column's
     * name ({@code uuid} for {@code id}) does not count.
     */
    static boolean namesAll(String returningSuffix, List<KeyColumn> keys) {
        java.util.Set<String> returned = returnedNames(returningSuffix);
        for (KeyColumn key : keys) {
            if (returned == null || !returned.contains(key.column())) {
                return false;
            }
        }
        return true;
    }

    /**
     * The column names a RETURNING suffix of pgjdbc's returns, as PostgreSQL resolves them (unquoted names folded to
     * lower case), or {@code null} when an item is not a plain or quoted identifier.
     */
    private static java.util.Set<String> returnedNames(String returningSuffix) {
        String list = returningSuffix.substring(returningSuffix.indexOf("RETURNING ") + "RETURNING ".length());
        java.util.Set<String> names = new java.util.HashSet<>();
        int i = 0;
        while (i < list.length()) {
            StringBuilder name = new StringBuilder();
            if (list.charAt(i) == '"') {
                i++;
                while (i < list.length()) {
                    char c = list.charAt(i++);
                    if (c == '"') {
                        if (i < list.length() && list.charAt(i) == '"') {
                            name.append('"');
                            i++;
                            continue;
                        }
                        break;
                    }
                    name.append(c);
                }
            } else {
                int end = list.indexOf(", ", i);
                String item = list.substring(i, end < 0 ? list.length() : end).strip();
                if (!item.matches("[A-Za-z_][A-Za-z0-9_$]*")) {
                    return null;
                }
                name.append(item.toLowerCase(java.util.Locale.ROOT));
                i = end < 0 ? list.length() : end;
            }
            names.add(name.toString());
            if (list.startsWith(", ", i)) {
                i += 2;
            } else if (i < list.length()) {
                return null;
            }
        }
        return names;
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }
}
