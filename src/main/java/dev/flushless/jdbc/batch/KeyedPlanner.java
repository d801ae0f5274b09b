package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code UPDATE t SET ... WHERE col = ? AND ...} and {@code DELETE FROM t WHERE col = ? AND ...} batches joined to
 * their rows (unnested arrays where every value can travel in one, else a VALUES list), each row's parameters cast
 * to the type the original statement gave them, each statement returning the ordinals of the rows that changed
 * something. Rows that may touch the same table row go to later waves (later statements). Pure: no I/O.
 */
final class KeyedPlanner {

    /**
     * Fewest rows joined as unnested arrays; smaller batches are joined to a VALUES list. PostgreSQL's plan cache
     * compares a prepared statement's generic plan with its custom plans, and a generic plan estimates a set-returning
     * function over an array parameter at 10 rows, so for fewer rows the join to {@code unnest($n)} costs more in the
     * generic plan than in every custom plan, and the server plans the statement anew at each execution (about 0.1 ms
     * for a keyed UPDATE, more than executing it; measured with {@code pg_prepared_statements.custom_plans}). A VALUES
     * list of a fixed length estimates its own rows, so its generic plan is chosen after pgjdbc's fifth execution and
     * kept; each length below this is one more statement text, at most eight per statement.
     */
    static final int UNNEST_MIN_ROWS = 10;

    private final StatementDescription dml;
    private final List<Bind[]> rows;
    private final TableInfo table;
    private final SessionFacts session;
    /** Per parameter: the column it is compared with or assigned to, and whether it is inside a SET expression. */
    private final ColumnInfo[] parameterColumns;

    private final boolean[] inExpression;
    private final ColumnInfo[] keyColumns;
    private final String[] casts;

    private KeyedPlanner(StatementDescription dml, List<Bind[]> rows, TableInfo table, SessionFacts session) {
        this.dml = dml;
        this.rows = rows;
        this.table = table;
        this.session = session;
        this.parameterColumns = new ColumnInfo[dml.parameterCount()];
        this.inExpression = new boolean[dml.parameterCount()];
        this.keyColumns = new ColumnInfo[dml.keys().size()];
        this.casts = new String[dml.parameterCount()];
    }

    /** Plans a batch the dispatcher ({@link BatchPlanner#plan}) accepted (no generated keys). */
    static BatchPlan plan(
            StatementDescription dml, List<Bind[]> rows, TableInfo table, BatchPlanner.Settings settings) {
        if (!settings.session().known()) {
            return BatchPlan.fallback(FallbackReason.NOT_PGJDBC);
        }
        KeyedPlanner planner = new KeyedPlanner(dml, rows, table, settings.session());
        Object[] rowKeys = new Object[rows.size()];
        Fallback problem = PlanChecks.first(
                () -> PlanChecks.reservedColumn(table),
                () -> uniqueUpdateSmall(dml, rows.size(), table, settings.uniqueUpdateMinRows()),
                planner::setColumnsProblem,
                planner::tooLongProblem,
                planner::keyColumnsProblem,
                planner::castsProblem,
                () -> planner.rowKeysProblem(rowKeys));
        if (problem != null) {
            return BatchPlan.fallback(problem);
        }
        List<List<Integer>> waves = waves(rowKeys);
        List<Rewriter.UniqueCheck> checks = new ArrayList<>();
        if (dml.kind() == StatementDescription.Kind.UPDATE) {
            Fallback unmodelled = PlanChecks.uniquenessProblem(
                    dml.assignments().stream().map(Assignment::column).toList(), table, waves.size() > 1, checks);
            if (unmodelled != null) {
                return BatchPlan.fallback(unmodelled);
            }
        }
        String kind = dml.kind() == StatementDescription.Kind.UPDATE ? "update-join" : "delete-using";
        List<Step> unnest = rows.size() < settings.unnestMinRows()
                ? null
                : planner.unnestSteps(waves, checks, settings.maxRowsPerStatement());
        return unnest != null
                ? new BatchPlan(kind + "-unnest", unnest, null)
                : new BatchPlan(kind, planner.valuesSteps(waves, checks, settings.maxRowsPerStatement()), null);
    }

    /**
     * The unique-update rule ({@code flushless.uniqueUpdateMinRows}): why an UPDATE batch of {@code rows} rows that
     * sets a column of a unique key runs as sent, or {@code null}. Coalesced, it needs the in-order unique check
     * ({@link Rewriter#keyedUpdateInOrderUnnest}: a second join reading the rows' old values, and a grouping), which
     * in a small batch costs more than the single-row statements it replaces (pgjdbc sends up to 250 of them in one
     * round trip, so no round trip is saved either). Checked before any per-row work, so that the batch costs little
     * more than pgjdbc's own.
     */
    static Fallback uniqueUpdateSmall(StatementDescription dml, int rows, TableInfo table, int minRows) {
        if (dml.kind() != StatementDescription.Kind.UPDATE || rows >= minRows) {
            return null;
        }
        List<dev.flushless.jdbc.session.TableCatalog.UniqueKey> touched = table.uniqueKeysTouching(
                dml.assignments().stream().map(Assignment::column).toList());
        return touched.isEmpty()
                ? null
                : FallbackReason.UNIQUE_UPDATE_SMALL.because(
                        String.join(", ", touched.get(0).columns()), rows, minRows);
    }

    /**
     * A buffered keyed UPDATE ({@code flushless.mode=transaction}) as members of a flush's CTE chain: one member per
     * chunk of each wave (a row whose key an earlier row has goes to a later wave, so no member changes a row twice),
     * joined to its rows as an unnested array where every value can travel in one, else to a VALUES list; each member
     * is an UPDATE without RETURNING (the chain adds it and checks the count). The application's own text for a single
     * row. Empty when the rows cannot be joined (a type not modelled): the caller then sends each row as its own member.
     */
    static List<BatchPlanner.InsertMember> members(
            StatementDescription dml, List<Bind[]> rows, TableInfo table, SessionFacts session, int maxRows) {
        int perRow = dml.parameterCount();
        if (rows.size() == 1) {
            return List.of(new BatchPlanner.InsertMember(
                    dml.text(), java.util.Arrays.asList(rows.get(0)).subList(0, perRow), 1));
        }
        if (!session.known() || !session.standardConformingStrings()) {
            return List.of();
        }
        KeyedPlanner planner = new KeyedPlanner(dml, rows, table, session);
        Object[] rowKeys = new Object[rows.size()];
        Fallback problem = PlanChecks.first(
                () -> PlanChecks.reservedColumn(table),
                planner::setColumnsProblem,
                planner::keyColumnsProblem,
                planner::castsProblem,
                () -> planner.rowKeysProblem(rowKeys));
        if (problem != null) {
            return List.of();
        }
        List<BatchPlanner.InsertMember> members = new ArrayList<>();
        boolean[] nativeArrays = Casts.nativeArrays(rows, planner.casts);
        String unnestSql = Rewriter.keyedMemberUnnest(dml, planner.casts, nativeArrays);
        for (List<Integer> wave : waves(rowKeys)) {
            for (int[] chunk : RowGroups.chunks(wave, RowGroups.rowsPerStatement(maxRows, perRow, 0))) {
                Object[][] arrays = chunk.length >= UNNEST_MIN_ROWS
                        ? Casts.encodeArrays(rows, chunk, planner.casts, nativeArrays, session)
                        : null;
                List<Bind> parameters = new ArrayList<>();
                String sql;
                if (arrays != null) {
                    for (Object[] array : arrays) {
                        parameters.add(Bind.ofEncodedArray(array));
                    }
                    sql = unnestSql;
                } else {
                    for (int r : chunk) {
                        parameters.addAll(java.util.Arrays.asList(rows.get(r)).subList(0, perRow));
                    }
                    sql = Rewriter.keyedMember(dml, chunk.length, planner.casts);
                }
                members.add(new BatchPlanner.InsertMember(sql, parameters, chunk.length));
            }
        }
        return members;
    }

    /** Finds the SET columns of the parameters assigned to them. */
    private Fallback setColumnsProblem() {
        for (Assignment assignment : dml.assignments()) {
            ColumnInfo column = table.column(assignment.column());
            if (column == null) {
                return FallbackReason.COLUMN_NOT_FOUND.because("SET column not found: " + assignment.column());
            }
            if (assignment.isParameter()) {
                parameterColumns[assignment.parameter()] = column;
                inExpression[assignment.parameter()] = assignment.inExpression();
            }
        }
        return null;
    }

    /**
     * Why a SET value is too long for its {@code varchar(n)}/{@code char(n)} column, or {@code null}. Run as sent,
     * PostgreSQL applies the column's length to a bound SET value when it plans the statement (pgjdbc's first
     * executions get custom plans), so the UPDATE fails with 22001 even when no row matches; coalesced, the value
     * comes from a joined row and is checked only for rows that are updated. Such a batch runs as sent.
     */
    private Fallback tooLongProblem() {
        for (int p = 0; p < parameterColumns.length; p++) {
            ColumnInfo column = parameterColumns[p];
            if (column == null || inExpression[p] || column.maxLength() < 0) {
                continue;
            }
            for (Bind[] row : rows) {
                if (row[p].value() instanceof String text
                        && text.codePointCount(0, text.length()) > column.maxLength()) {
                    return FallbackReason.VALUE_TOO_LONG.because(
                            "a SET value is longer than " + column.typeName() + "(" + column.maxLength() + ")");
                }
            }
        }
        return null;
    }

    /** Finds the WHERE columns of the key parameters. */
    private Fallback keyColumnsProblem() {
        String missing = Keys.missingColumn(dml.keys(), table, keyColumns);
        if (missing != null) {
            return FallbackReason.COLUMN_NOT_FOUND.because("WHERE column not found: " + missing);
        }
        for (int k = 0; k < keyColumns.length; k++) {
            parameterColumns[dml.keys().get(k).parameter()] = keyColumns[k];
        }
        return null;
    }

    /** Chooses every parameter's cast ({@link Casts#decideCast}, {@link Casts#decideTypedCast} inside expressions). */
    private Fallback castsProblem() {
        for (int p = 0; p < casts.length; p++) {
            if (parameterColumns[p] == null) {
                return FallbackReason.PARAMETER_NOT_MATCHED.because(p + 1);
            }
            Fallback problem = inExpression[p]
                    ? Casts.decideTypedCast(p, rows, session, casts)
                    : Casts.decideCast(p, parameterColumns[p], rows, session, casts);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    /**
     * Each row's key among the rows that may touch the same table row, into {@code rowKeys} ({@code null} for a row
     * that matches nothing). Two rows can touch the same table row only if they agree on every key column the SET
     * list leaves unchanged (a changed key column, such as an optimistic-lock version, is matched against the value
     * left by the earlier row). Returns why a key value's equality is not modelled, or {@code null}.
     */
    private Fallback rowKeysProblem(Object[] rowKeys) {
        boolean[] conflictKey = new boolean[keyColumns.length];
        int conflictKeys = 0;
        for (int k = 0; k < keyColumns.length; k++) {
            String name = dml.keys().get(k).column();
            conflictKey[k] =
                    dml.assignments().stream().noneMatch(a -> a.column().equals(name));
            conflictKeys += conflictKey[k] ? 1 : 0;
        }
        for (int r = 0; r < rowKeys.length; r++) {
            Fallback problem = rowKey(rows.get(r), conflictKey, conflictKeys, rowKeys, r);
            if (problem != null) {
                return problem;
            }
        }
        return null;
    }

    private Fallback rowKey(Bind[] row, boolean[] conflictKey, int conflictKeys, Object[] rowKeys, int r) {
        // one conflict column: its canonical value is the key (no list per row); several: a list of them
        List<Object> key = conflictKeys > 1 ? new ArrayList<>(conflictKeys) : null;
        Object single = null;
        for (int k = 0; k < keyColumns.length; k++) {
            Bind bind = row[dml.keys().get(k).parameter()];
            if (bind.isNull()) {
                rowKeys[r] = null; // column = NULL is never true: the row changes nothing
                return null;
            }
            if (!conflictKey[k]) {
                continue;
            }
            Object canonical = Keys.canonicalKey(bind.value(), keyColumns[k]);
            if (canonical == null) {
                return Keys.notModelled("key column", keyColumns[k].name(), keyColumns[k], bind.value());
            }
            if (key != null) {
                key.add(canonical);
            } else {
                single = canonical;
            }
        }
        rowKeys[r] = key != null ? key : single != null ? single : List.of();
        return null;
    }

    /**
     * The rows by wave: within one statement a row can be changed only once, and a later row must see an earlier
     * row's change, so a row whose key an earlier row has goes to the wave after that row's.
     */
    private static List<List<Integer>> waves(Object[] rowKeys) {
        List<List<Integer>> waves = new ArrayList<>();
        Map<Object, Integer> seen = new HashMap<>(rowKeys.length * 2);
        for (int r = 0; r < rowKeys.length; r++) {
            int wave = 0;
            if (rowKeys[r] != null) {
                Integer previous = seen.put(rowKeys[r], 0);
                if (previous != null) {
                    wave = previous + 1;
                    seen.put(rowKeys[r], wave);
                }
            }
            while (waves.size() <= wave) {
                waves.add(new ArrayList<>());
            }
            waves.get(wave).add(r);
        }
        return waves;
    }

    /** The unnest form's steps, chunks of {@code maxRows} per wave; {@code null} when a value cannot travel in an array. */
    private List<Step> unnestSteps(List<List<Integer>> waves, List<Rewriter.UniqueCheck> checks, int maxRows) {
        boolean[] nativeArrays = Casts.nativeArrays(rows, casts);
        boolean oneRowPerKey =
                table.atMostOneRow(dml.keys().stream().map(KeyColumn::column).toList());
        String sql = !checks.isEmpty()
                ? Rewriter.keyedUpdateInOrderUnnest(dml, casts, nativeArrays, checks)
                : oneRowPerKey
                        ? Rewriter.keyedDmlUnnestCounted(dml, casts, nativeArrays)
                        : Rewriter.keyedDmlUnnest(dml, casts, nativeArrays);
        Decoding decoding =
                checks.isEmpty() && oneRowPerKey ? Decoding.ORDINAL_PREFIX_OR_ARRAY : Decoding.ORDINAL_ARRAY;
        List<Step> steps = new ArrayList<>();
        for (List<Integer> wave : waves) {
            for (int[] chunk : RowGroups.chunks(wave, maxRows)) {
                Object[][] arrays = Casts.encodeArrays(rows, chunk, casts, nativeArrays, session);
                if (arrays == null) {
                    return null;
                }
                steps.add(new Step(sql, chunk, decoding, 0, new Bind[0], null, arrays));
            }
        }
        return steps;
    }

    /** The VALUES form's steps, chunks within the row and bind-parameter limits per wave. */
    private List<Step> valuesSteps(List<List<Integer>> waves, List<Rewriter.UniqueCheck> checks, int maxRows) {
        int chunkRows = RowGroups.rowsPerStatement(maxRows, dml.parameterCount(), 0);
        List<Step> steps = new ArrayList<>();
        for (List<Integer> wave : waves) {
            for (int[] chunk : RowGroups.chunks(wave, chunkRows)) {
                steps.add(
                        checks.isEmpty()
                                ? new Step(Rewriter.keyedDml(dml, chunk.length, casts), chunk, Decoding.ORDINALS)
                                : new Step(
                                        Rewriter.keyedUpdateInOrder(dml, chunk.length, casts, checks),
                                        chunk,
                                        Decoding.ORDINAL_ARRAY));
            }
        }
        return steps;
    }
}
