package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.IntStream;

/**
 * INSERT ... ON CONFLICT (keys) DO NOTHING | DO UPDATE in the anti-join form ({@link Rewriter#antiJoinDoNothing},
 * {@link Rewriter#antiJoinDoUpdate}): one statement per chunk (DO UPDATE: per wave of distinct keys, as the native
 * plan), each returning the ordinals of the rows it wrote. Only where it does exactly what ON CONFLICT does;
 * otherwise a fallback whose reason says why (the dispatcher then plans natively). Besides the native plan's
 * conditions: every row's values are parameters of known types (they are coerced to the columns' types for all
 * rows, as ON CONFLICT coerces every proposed row); the arbiter indexes compare keys as {@code =} does and treat
 * NULLs as distinct; nothing ON CONFLICT checks or draws for a row it then skips or updates is left out (CHECK
 * constraints, NOT NULL, sequence defaults, partition routing); DO UPDATE keys are compared exactly in Java. Pure.
 */
final class AntiJoinPlanner {

    private static final String NOT_IN_ARRAYS = "a value that cannot travel in an array";

    private final StatementDescription insert;
    private final List<Bind[]> rows;
    private final TableInfo table;
    private final ConflictFacts facts;
    private final SessionFacts session;
    private final boolean doUpdate;
    private final List<KeyColumn> keys;
    /** Filled by {@link #keyProblem}. */
    private final ColumnInfo[] keyColumns;
    /** Set by the checks, in order: each parameter's cast, its column's type with modifier, DO UPDATE's row keys. */
    private String[] casts;

    private String[] columnTypes;
    private Object[][] rowKeys;

    private AntiJoinPlanner(
            StatementDescription insert, List<Bind[]> rows, TableInfo table, BatchPlanner.Settings settings) {
        this.insert = insert;
        this.rows = rows;
        this.table = table;
        this.facts = settings.conflictFacts();
        this.session = settings.session();
        this.doUpdate = insert.onConflict() == StatementDescription.OnConflict.DO_UPDATE;
        this.keys = insert.conflictKeys();
        this.keyColumns = new ColumnInfo[keys.size()];
    }

    /**
     * Plans a batch the dispatcher ({@link BatchPlanner#plan}) accepted, with {@code settings.conflictFacts()}
     * ({@code null} when they could not be read); {@code returningSuffix} as there.
     */
    static BatchPlan plan(
            StatementDescription insert,
            List<Bind[]> rows,
            TableInfo table,
            String returningSuffix,
            BatchPlanner.Settings settings) {
        AntiJoinPlanner planner = new AntiJoinPlanner(insert, rows, table, settings);
        String problem = PlanChecks.first(
                () -> planner.requestProblem(returningSuffix),
                planner::tableProblem,
                planner::castsProblem,
                planner::arbiterProblem,
                planner::columnProblem,
                planner::keyProblem);
        if (problem != null) {
            return BatchPlan.fallback(FallbackReason.ANTI_JOIN_PROBLEM, problem);
        }
        return planner.doUpdate
                ? planner.doUpdatePlan(settings.maxRowsPerStatement())
                : planner.doNothingPlan(settings.maxRowsPerStatement());
    }

    /** Why what was asked for, or what is known, rules the form out. */
    private String requestProblem(String returningSuffix) {
        if (returningSuffix != null || insert.hasReturning()) {
            return "generated keys or RETURNING requested";
        }
        if (!session.known()) {
            return "the delegate connection is not pgjdbc: parameter types unknown";
        }
        return facts == null ? "the table's unique indexes and constraints could not be read" : null;
    }

    /** Why the table rules the form out: user code (even trusted), partitions, CHECK constraints, column names. */
    private String tableProblem() {
        Fallback barrier = table.barrier(false);
        if (barrier != null) {
            return barrier.text();
        }
        if (facts.inheritanceParent() || !"r".equals(facts.relkind())) {
            return "partitioned table or inheritance parent (ON CONFLICT routes every proposed row)";
        }
        if (facts.hasCheckConstraints()) {
            return "table has CHECK constraints (ON CONFLICT checks every proposed row)";
        }
        Fallback reserved = PlanChecks.reservedColumn(table);
        return reserved == null ? null : reserved.text();
    }

    private String castsProblem() {
        casts = Casts.insertCasts(insert, rows, table, session);
        if (casts == null || insert.parameterColumns() == null) {
            return "the VALUES tuple is not all parameters of known types";
        }
        return null;
    }

    /** Why the arbiter indexes could compare keys otherwise than {@code =} on the coerced values does. */
    private String arbiterProblem() {
        List<String> target = keys.stream().map(KeyColumn::column).toList();
        List<ConflictFacts.UniqueIndex> arbiters = facts.arbiters(target);
        if (arbiters.isEmpty()) {
            return "no unique index matches the ON CONFLICT target";
        }
        for (ConflictFacts.UniqueIndex arbiter : arbiters) {
            if (!arbiter.immediate()) {
                return "arbiter index " + arbiter.name() + " is deferrable";
            }
            if (arbiter.nullsNotDistinct()) {
                return "arbiter index " + arbiter.name() + " is NULLS NOT DISTINCT";
            }
            if (!arbiter.deterministicCollations() || !arbiter.defaultOpclasses()) {
                return "arbiter index " + arbiter.name()
                        + " has a nondeterministic collation or a non-default operator class";
            }
        }
        return null;
    }

    /** What ON CONFLICT evaluates for every proposed row, also one it skips or updates; sets {@link #columnTypes}. */
    private String columnProblem() {
        List<String> parameterColumns = insert.parameterColumns();
        columnTypes = new String[casts.length];
        for (ConflictFacts.ColumnFacts column : facts.columns().values()) {
            int parameter = parameterColumns.indexOf(column.name());
            String problem = parameter < 0 ? unsuppliedProblem(column) : coercionProblem(column, parameter, rows);
            if (problem != null) {
                return problem;
            }
            if (parameter >= 0) {
                columnTypes[parameter] = column.typeWithModifier();
            }
        }
        for (int p = 0; p < columnTypes.length; p++) {
            if (columnTypes[p] == null) {
                return "column " + parameterColumns.get(p) + " not found";
            }
        }
        return null;
    }

    /** Why ON CONFLICT would draw or reject something for a column the INSERT does not supply, or {@code null}. */
    private static String unsuppliedProblem(ConflictFacts.ColumnFacts column) {
        if (column.drawsFromSequence()) {
            return "column " + column.name() + " draws from a sequence for every proposed row";
        }
        if (column.notNull() && (!column.hasDefault() || column.generated())) {
            return "NOT NULL column " + column.name() + " is not supplied and has no default";
        }
        return null;
    }

    /**
     * Why coercing the values of {@code column} (filled by {@code parameter}) with an explicit cast could differ
     * from ON CONFLICT's assignment coercion, or {@code null}: only length coercions differ (an explicit cast to
     * {@code varchar(n)} truncates where assignment fails), so values longer than the length are not rewritten;
     * also a NULL bound to a NOT NULL column (ON CONFLICT rejects it even for a row it would skip).
     */
    private static String coercionProblem(ConflictFacts.ColumnFacts column, int parameter, List<Bind[]> rows) {
        String type = column.typeWithModifier();
        boolean lengthLimited =
                column.typmod() >= 0 && (type.startsWith("character varying(") || type.startsWith("character("));
        if (column.typmod() >= 0
                        && (type.startsWith("bit(")
                                || type.startsWith("bit varying(")
                                || lengthLimited && type.endsWith("]"))
                || column.lengthLimitedDomain()) {
            return "column " + column.name() + " (" + type + ") has a length an explicit cast would truncate to";
        }
        for (Bind[] row : rows) {
            Bind bind = row[parameter];
            if (bind.isNull()) {
                if (column.notNull()) {
                    return "NULL bound to NOT NULL column " + column.name();
                }
                continue;
            }
            if (lengthLimited) {
                Object text = ArrayEncoding.text(bind, dev.flushless.jdbc.session.SessionFacts.PGJDBC_DEFAULTS);
                if (!(text instanceof String s) || s.codePointCount(0, s.length()) > column.typmod() - 4) {
                    return "a value longer than column " + column.name() + " (" + type + ")";
                }
            }
        }
        return null;
    }

    /**
     * Finds the key columns; DO UPDATE: each row's keys as PostgreSQL compares them once coerced to the column,
     * exactly, for the types modelled (DO NOTHING compares and de-duplicates the coerced keys in SQL, with the index's
     * own equality).
     */
    private String keyProblem() {
        String missing = Keys.missingColumn(keys, table, keyColumns);
        if (missing != null) {
            return "ON CONFLICT column not found: " + missing;
        }
        String[] names = keys.stream().map(KeyColumn::column).toArray(String[]::new);
        rowKeys = new Object[doUpdate ? rows.size() : 0][];
        Fallback notModelled = Keys.conflictRowKeys(
                rows,
                keys,
                keyColumns,
                names,
                (value, k) -> Keys.exactKey(value, keyColumns[k], facts.column(names[k])),
                rowKeys);
        return notModelled == null ? null : notModelled.text();
    }

    private Rewriter.AntiJoin form(boolean[] nativeArrays) {
        int[] keyParameters = keys.stream().mapToInt(KeyColumn::parameter).toArray();
        String[] keyNames = keys.stream().map(KeyColumn::column).toArray(String[]::new);
        return new Rewriter.AntiJoin(casts, nativeArrays, columnTypes, keyParameters, keyNames);
    }

    private BatchPlan doNothingPlan(int maxRows) {
        boolean[] nativeArrays = Casts.nativeArrays(rows, casts);
        String sql = Rewriter.antiJoinDoNothing(insert, form(nativeArrays));
        List<Integer> all = IntStream.range(0, rows.size()).boxed().toList();
        List<Step> steps = new ArrayList<>();
        if (!addSteps(steps, sql, all, new Bind[0], nativeArrays, maxRows)) {
            return BatchPlan.fallback(FallbackReason.ANTI_JOIN_PROBLEM, NOT_IN_ARRAYS);
        }
        return new BatchPlan("upsert-do-nothing-antijoin", steps, null);
    }

    private BatchPlan doUpdatePlan(int maxRows) {
        if (!table.uniqueKeysTouching(insert.conflictUpdatedColumns()).isEmpty()
                || table.uniquenessNotModelled() != null) {
            // the anti-join updates existing rows and inserts new ones in separate parts of one statement, not in
            // VALUES order, so unique checks between them could differ from row-by-row execution
            return BatchPlan.fallback(FallbackReason.ANTI_JOIN_PROBLEM, "DO UPDATE sets a column of a unique key");
        }
        StatementDescription.ConflictAction action = insert.conflictAction();
        if (action == null || action.excluded() == null) {
            return BatchPlan.fallback(
                    FallbackReason.ANTI_JOIN_PROBLEM,
                    "DO UPDATE uses EXCLUDED other than as EXCLUDED.column, or was not located");
        }
        String set = replaceExcluded(action.setStart(), action.setEnd(), action.excluded());
        String where =
                action.whereStart() < 0 ? null : replaceExcluded(action.whereStart(), action.end(), action.excluded());
        if (set == null || action.whereStart() >= 0 && where == null) {
            return BatchPlan.fallback(
                    FallbackReason.ANTI_JOIN_PROBLEM, "DO UPDATE reads an EXCLUDED column that no parameter supplies");
        }
        boolean[] nativeArrays = Casts.nativeArrays(rows, casts);
        String sql =
                Rewriter.antiJoinDoUpdate(insert, form(nativeArrays), set.trim(), where == null ? null : where.trim());
        // Waves: a key at most once per statement (sequential execution: the first row inserts or updates, later
        // rows update what the earlier ones left); then groups of equal parameter values in the DO UPDATE clause.
        int rowParameters = insert.rowParameterCount();
        List<Step> steps = new ArrayList<>();
        for (List<Integer> members : RowGroups.upsertGroups(insert, rows, rowKeys, rowParameters)) {
            Bind[] tail = Arrays.copyOfRange(rows.get(members.get(0)), rowParameters, insert.parameterCount());
            if (!addSteps(steps, sql, members, tail, nativeArrays, maxRows)) {
                return BatchPlan.fallback(FallbackReason.ANTI_JOIN_PROBLEM, NOT_IN_ARRAYS);
            }
        }
        return new BatchPlan("upsert-do-update-antijoin", steps, null);
    }

    /** Adds the steps of {@code members} in chunks of {@code maxRows}; false when a value cannot travel in an array. */
    private boolean addSteps(
            List<Step> steps, String sql, List<Integer> members, Bind[] tail, boolean[] nativeArrays, int maxRows) {
        for (int[] chunk : RowGroups.chunks(members, maxRows)) {
            Object[][] arrays = Casts.encodeArrays(rows, chunk, casts, nativeArrays, session);
            if (arrays == null) {
                return false;
            }
            steps.add(new Step(sql, chunk, Decoding.ORDINAL_ARRAY, 0, tail, null, arrays));
        }
        return true;
    }

    /** {@code sql[from, to)} with every EXCLUDED reference inside replaced, or {@code null} for a column no parameter fills. */
    private String replaceExcluded(int from, int to, List<StatementDescription.ExcludedReference> refs) {
        String sql = insert.sql();
        StringBuilder out = new StringBuilder();
        int position = from;
        for (StatementDescription.ExcludedReference ref : refs) {
            if (ref.start() < from || ref.end() > to) {
                continue;
            }
            int parameter = insert.parameterColumns().indexOf(ref.column());
            if (parameter < 0) {
                return null;
            }
            out.append(sql, position, ref.start()).append(Rewriter.excludedColumn(parameter));
            position = ref.end();
        }
        return out.append(sql, position, to).toString();
    }
}
