package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.batch.TableCatalog.TableInfo;
import dev.flushless.jdbc.rewrite.Rewriter;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Decides how a batch of one prepared statement runs: as chunks of a multi-row INSERT, as waves of
 * UPDATE/DELETE joined to a VALUES list, or as sent (with the reason). Pure: no I/O.
 */
public final class BatchPlanner {

    /** The protocol's limit on bind parameters in one statement (an unsigned 16-bit count). */
    public static final int MAX_BIND_PARAMETERS = 65535;

    /**
     * Inputs that do not come from the batch itself. {@code antiJoin}: coalesce ON CONFLICT batches in the anti-join
     * form where it is exact (else natively, with the reason as the plan's note), which needs {@code conflictFacts}
     * (the target table's, {@code null} when they could not be read).
     */
    public record Settings(int maxRowsPerStatement, boolean trustTriggers, SessionFacts session, boolean antiJoin,
            ConflictFacts conflictFacts, boolean exactSequences) {

        public Settings(int maxRowsPerStatement, boolean trustTriggers, SessionFacts session) {
            this(maxRowsPerStatement, trustTriggers, session, false, null, false);
        }
    }

    /** The prefix of the note a plan carries when {@code flushless.onConflict=antijoin} fell back to native. */
    public static final String ANTI_JOIN_NOT_APPLIED = "onConflict=antijoin not applied, native ON CONFLICT used: ";

    /** Counted when an anti-join batch met a unique violation in autocommit and ran as native ON CONFLICT instead. */
    public static final String ANTI_JOIN_RETRIED = "onConflict=antijoin: unique violation (SQLState 23505, a concurrent"
            + " insert of the same key?), retried as native ON CONFLICT";

    /** Counted when an anti-join batch met a unique violation on its conflict target inside a transaction. */
    public static final String ANTI_JOIN_RAISED = "onConflict=antijoin: unique violation on the conflict target in a"
            + " transaction, raised";

    private BatchPlanner() {
    }

    /**
     * Plans {@code rows} (each the recorded setters of one {@code addBatch()}, index = parameter - 1).
     *
     * @param returningSuffix {@code null} when the application did not ask for generated keys, else the text
     *     pgjdbc would append for them (empty when the statement has its own RETURNING)
     */
    public static BatchPlan plan(StatementDescription statement, List<Bind[]> rows, TableInfo table,
            String returningSuffix, Settings settings) {
        if (!statement.isCoalescable()) {
            return BatchPlan.fallback(statement.fallbackReason());
        }
        if (!settings.session().standardConformingStrings()) {
            return BatchPlan.fallback("standard_conforming_strings is off");
        }
        for (Bind[] row : rows) {
            if (row.length < statement.parameterCount() || Arrays.asList(row).subList(0, statement.parameterCount()).contains(null)) {
                return BatchPlan.fallback("a batch row lacks a parameter value");
            }
        }
        String barrier = statement.kind() == StatementDescription.Kind.INSERT
                ? table.insertBarrier(settings.trustTriggers(), settings.exactSequences())
                : table.barrier(settings.trustTriggers());
        if (barrier != null) {
            return BatchPlan.fallback(barrier);
        }
        int perRow = Math.max(1, statement.parameterCount());
        int chunkRows = Math.max(1, Math.min(settings.maxRowsPerStatement(), MAX_BIND_PARAMETERS / perRow));
        switch (statement.kind()) {
            case INSERT:
                if (statement.onConflict() != StatementDescription.OnConflict.NONE) {
                    int rowParameters = Math.max(1, statement.rowParameterCount());
                    int tail = statement.parameterCount() - statement.rowParameterCount();
                    int conflictChunk = Math.max(1, Math.min(settings.maxRowsPerStatement(),
                            (MAX_BIND_PARAMETERS - tail) / rowParameters));
                    if (settings.antiJoin()) {
                        BatchPlan antiJoin = planAntiJoin(statement, rows, table, returningSuffix, settings.session(),
                                settings.conflictFacts(), settings.maxRowsPerStatement());
                        if (!antiJoin.isFallback()) {
                            return antiJoin;
                        }
                        BatchPlan nativePlan = planOnConflict(statement, rows, table, returningSuffix, settings.session(),
                                conflictChunk);
                        return nativePlan.isFallback() ? nativePlan
                                : nativePlan.withNote(ANTI_JOIN_NOT_APPLIED + antiJoin.fallbackReason());
                    }
                    return planOnConflict(statement, rows, table, returningSuffix, settings.session(), conflictChunk);
                }
                return planInsert(statement, rows, table, returningSuffix, settings.session(), chunkRows,
                        settings.maxRowsPerStatement());
            case UPDATE:
            case DELETE:
                if (returningSuffix != null) {
                    return BatchPlan.fallback("generated keys requested for UPDATE or DELETE");
                }
                return planKeyed(statement, rows, table, settings.session(), chunkRows, settings.maxRowsPerStatement());
            default:
                return BatchPlan.fallback("not an INSERT, UPDATE or DELETE");
        }
    }

    private static BatchPlan planInsert(StatementDescription insert, List<Bind[]> rows, TableInfo table,
            String returningSuffix, SessionFacts session, int chunkRows, int maxRows) {
        Decoding decoding = returningSuffix != null ? Decoding.RETURNED_ROWS
                : insert.hasReturning() ? Decoding.RETURNED_ROWS_DISCARDED : Decoding.ONE_PER_ROW;
        String[] casts = insertCasts(insert, rows, table, session);
        List<Step> steps = new ArrayList<>();
        if (casts != null) {
            // One SQL text for every chunk: the rows travel as arrays, the expected count as a parameter.
            boolean[] nativeArrays = nativeArrays(rows, casts);
            String sql = Rewriter.insertUnnest(insert, casts, nativeArrays, returningSuffix);
            if (decoding != Decoding.RETURNED_ROWS) {
                sql = Rewriter.countChecked(insert.hasReturning() ? sql : sql + "\nRETURNING 1");
            }
            for (int start = 0; start < rows.size(); start += maxRows) {
                int size = Math.min(maxRows, rows.size() - start);
                int[] chunk = range(start, size);
                Object[][] arrays = encodeArrays(rows, chunk, casts, nativeArrays);
                if (arrays == null) {
                    steps = null;
                    break;
                }
                Bind[] tail = decoding == Decoding.RETURNED_ROWS ? new Bind[0] : new Bind[] {Bind.ofLong(size)};
                steps.add(new Step(sql, chunk, decoding, 0, tail, null, arrays));
            }
            if (steps != null) {
                return new BatchPlan("insert-unnest", steps, null);
            }
            steps = new ArrayList<>();
        }
        for (int start = 0; start < rows.size(); start += chunkRows) {
            int size = Math.min(chunkRows, rows.size() - start);
            String sql = Rewriter.insertValues(insert, size, returningSuffix);
            if (decoding != Decoding.RETURNED_ROWS) {
                sql = Rewriter.countChecked(insert.hasReturning() ? sql : sql + "\nRETURNING 1", size);
            }
            steps.add(new Step(sql, range(start, size), decoding));
        }
        return new BatchPlan("insert-values", steps, null);
    }

    /** One INSERT of a chain: its text (no RETURNING), its parameters in text order, and how many rows it inserts. */
    public record InsertMember(String sql, List<Bind> parameters, int rows) {
    }

    /**
     * A plain {@code INSERT ... VALUES (tuple)} executed with {@code rows} as chain members of at most
     * {@code maxRows} rows each: the application's own text for one row; for more, the unnest form when every
     * parameter's type is known (one SQL text for any row count), else the tuple repeated within the
     * bind-parameter limit. Pure: no I/O.
     */
    public static List<InsertMember> insertMembers(StatementDescription insert, List<Bind[]> rows, TableInfo table,
            SessionFacts session, int maxRows) {
        int perRow = insert.parameterCount();
        List<InsertMember> members = new ArrayList<>();
        if (rows.size() == 1) {
            members.add(new InsertMember(insert.sql().substring(0, insert.textEnd()),
                    Arrays.asList(rows.get(0)).subList(0, perRow), 1));
            return members;
        }
        String[] casts = session.standardConformingStrings() ? insertCasts(insert, rows, table, session) : null;
        if (casts != null) {
            boolean[] nativeArrays = nativeArrays(rows, casts);
            String sql = Rewriter.insertUnnest(insert, casts, nativeArrays, null);
            for (int start = 0; start < rows.size(); start += maxRows) {
                int size = Math.min(maxRows, rows.size() - start);
                Object[][] arrays = encodeArrays(rows, range(start, size), casts, nativeArrays);
                if (arrays == null) {
                    members.clear();
                    break;
                }
                List<Bind> parameters = new ArrayList<>(arrays.length);
                for (Object[] array : arrays) {
                    parameters.add(Bind.ofEncodedArray(array));
                }
                members.add(new InsertMember(sql, parameters, size));
            }
            if (!members.isEmpty()) {
                return members;
            }
        }
        int chunkRows = Math.max(1, Math.min(maxRows, MAX_BIND_PARAMETERS / Math.max(1, perRow)));
        for (int start = 0; start < rows.size(); start += chunkRows) {
            int size = Math.min(chunkRows, rows.size() - start);
            List<Bind> parameters = new ArrayList<>(size * perRow);
            for (int r = start; r < start + size; r++) {
                parameters.addAll(Arrays.asList(rows.get(r)).subList(0, perRow));
            }
            members.add(new InsertMember(Rewriter.insertValues(insert, size, null), parameters, size));
        }
        return members;
    }

    /**
     * The array casts of an INSERT whose tuple is all parameters (the type each parameter gets from its
     * column, as {@link #decideCast} decides it), or {@code null} when the VALUES form must be used.
     */
    private static String[] insertCasts(StatementDescription insert, List<Bind[]> rows, TableInfo table,
            SessionFacts session) {
        List<String> columns = insert.parameterColumns();
        if (columns == null || !session.known() || insert.rowParameterCount() != columns.size()) {
            return null;
        }
        String[] casts = new String[columns.size()];
        for (int p = 0; p < casts.length; p++) {
            ColumnInfo column = table.column(columns.get(p));
            if (column == null || decideCast(p, column, rows, session, casts) != null) {
                return null;
            }
        }
        return casts;
    }

    /**
     * Per parameter, whether it can travel as an integer array (its cast is an integer type and every row
     * binds an integer or NULL): cheaper to send and to read than text.
     */
    private static boolean[] nativeArrays(List<Bind[]> rows, String[] casts) {
        boolean[] nativeArrays = new boolean[casts.length];
        for (int p = 0; p < casts.length; p++) {
            nativeArrays[p] = ArrayEncoding.integerArrayType(casts[p]) != null;
            for (int r = 0; r < rows.size() && nativeArrays[p]; r++) {
                nativeArrays[p] = ArrayEncoding.integer(rows.get(r)[p]) != ArrayEncoding.UNSUPPORTED;
            }
        }
        return nativeArrays;
    }

    /**
     * Each parameter's values for the rows of {@code chunk} (integers where {@code nativeArrays} says so,
     * else the texts pgjdbc would send), or {@code null} when one of them is not reproduced.
     */
    private static Object[][] encodeArrays(List<Bind[]> rows, int[] chunk, String[] casts, boolean[] nativeArrays) {
        Object[][] arrays = new Object[casts.length][];
        for (int p = 0; p < casts.length; p++) {
            arrays[p] = nativeArrays[p] ? ArrayEncoding.newIntegerArray(casts[p], chunk.length) : new String[chunk.length];
        }
        for (int i = 0; i < chunk.length; i++) {
            Bind[] row = rows.get(chunk[i]);
            for (int p = 0; p < casts.length; p++) {
                Object value = nativeArrays[p] ? ArrayEncoding.integer(row[p]) : ArrayEncoding.text(row[p]);
                if (value == ArrayEncoding.UNSUPPORTED) {
                    return null;
                }
                arrays[p][i] = nativeArrays[p] ? ArrayEncoding.narrow(casts[p], (Long) value) : value;
            }
        }
        return arrays;
    }

    private static BatchPlan planKeyed(StatementDescription dml, List<Bind[]> rows, TableInfo table, SessionFacts session,
            int chunkRows, int maxRows) {
        if (!session.known()) {
            return BatchPlan.fallback("the delegate connection is not pgjdbc: parameter types unknown");
        }
        for (String column : table.columns().keySet()) {
            if (column.startsWith(Rewriter.COLUMN_PREFIX)) {
                return BatchPlan.fallback("table has a column named " + column);
            }
        }
        int parameters = dml.parameterCount();
        ColumnInfo[] parameterColumns = new ColumnInfo[parameters];
        boolean[] inExpression = new boolean[parameters];
        for (Assignment assignment : dml.assignments()) {
            ColumnInfo column = table.column(assignment.column());
            if (column == null) {
                return BatchPlan.fallback("SET column not found: " + assignment.column());
            }
            if (assignment.isParameter()) {
                parameterColumns[assignment.parameter()] = column;
                inExpression[assignment.parameter()] = assignment.inExpression();
            }
        }
        for (int p = 0; p < parameters; p++) {
            String tooLong = tooLongForColumn(p, parameterColumns[p], inExpression[p], rows);
            if (tooLong != null) {
                return BatchPlan.fallback(tooLong);
            }
        }
        ColumnInfo[] keyColumns = new ColumnInfo[dml.keys().size()];
        for (int k = 0; k < keyColumns.length; k++) {
            KeyColumn key = dml.keys().get(k);
            keyColumns[k] = table.column(key.column());
            if (keyColumns[k] == null) {
                return BatchPlan.fallback("WHERE column not found: " + key.column());
            }
            parameterColumns[key.parameter()] = keyColumns[k];
        }
        String[] casts = new String[parameters];
        for (int p = 0; p < parameters; p++) {
            if (parameterColumns[p] == null) {
                return BatchPlan.fallback("parameter " + (p + 1) + " not matched to a column");
            }
            String problem = inExpression[p] ? decideTypedCast(p, rows, session, casts)
                    : decideCast(p, parameterColumns[p], rows, session, casts);
            if (problem != null) {
                return BatchPlan.fallback(problem);
            }
        }
        // Rows that may touch the same table row go to a later wave: within one statement a row can be changed
        // only once, and a later row must see an earlier row's change. Two rows can touch the same table row
        // only if they agree on every key column the SET list leaves unchanged (a changed key column, such as
        // an optimistic-lock version, is matched against the value left by the earlier row).
        boolean[] conflictKey = new boolean[keyColumns.length];
        for (int k = 0; k < keyColumns.length; k++) {
            String name = dml.keys().get(k).column();
            conflictKey[k] = dml.assignments().stream().noneMatch(a -> a.column().equals(name));
        }
        List<List<Integer>> waves = new ArrayList<>();
        Map<Object, Integer> seen = new HashMap<>(rows.size() * 2);
        int conflictKeys = 0;
        for (boolean k : conflictKey) {
            conflictKeys += k ? 1 : 0;
        }
        for (int r = 0; r < rows.size(); r++) {
            // one conflict column: its canonical value is the key (no list per row); several: a list of them
            List<Object> key = conflictKeys > 1 ? new ArrayList<>(conflictKeys) : null;
            Object single = null;
            boolean matchesNothing = false;
            for (int k = 0; k < keyColumns.length; k++) {
                Bind bind = rows.get(r)[dml.keys().get(k).parameter()];
                if (bind.isNull()) {
                    matchesNothing = true; // column = NULL is never true: the row changes nothing
                    break;
                }
                if (!conflictKey[k]) {
                    continue;
                }
                Object canonical = canonicalKey(bind.value(), keyColumns[k]);
                if (canonical == null) {
                    return BatchPlan.fallback("key column " + keyColumns[k].name() + " of type " + keyColumns[k].typeName()
                            + " bound with " + bind.value().getClass().getSimpleName() + ": equality not modelled");
                }
                if (key != null) {
                    key.add(canonical);
                } else {
                    single = canonical;
                }
            }
            int wave = 0;
            if (!matchesNothing) {
                Object mapKey = key != null ? key : single != null ? single : List.of();
                Integer previous = seen.put(mapKey, 0);
                if (previous != null) {
                    wave = previous + 1;
                    seen.put(mapKey, wave);
                }
            }
            while (waves.size() <= wave) {
                waves.add(new ArrayList<>());
            }
            waves.get(wave).add(r);
        }
        String kind = dml.kind() == StatementDescription.Kind.UPDATE ? "update-join" : "delete-using";
        List<Rewriter.UniqueCheck> checks = new ArrayList<>();
        if (dml.kind() == StatementDescription.Kind.UPDATE) {
            String unmodelled = uniquenessProblem(dml.assignments().stream().map(Assignment::column).toList(), table,
                    waves.size() > 1, checks);
            if (unmodelled != null) {
                return BatchPlan.fallback(unmodelled);
            }
        }
        List<Step> arraySteps = new ArrayList<>();
        boolean[] nativeArrays = nativeArrays(rows, casts);
        boolean oneRowPerKey = table.atMostOneRow(dml.keys().stream().map(KeyColumn::column).toList());
        String unnestSql = !checks.isEmpty() ? Rewriter.keyedUpdateInOrderUnnest(dml, casts, nativeArrays, checks)
                : oneRowPerKey ? Rewriter.keyedDmlUnnestCounted(dml, casts, nativeArrays)
                : Rewriter.keyedDmlUnnest(dml, casts, nativeArrays);
        Decoding unnestDecoding = checks.isEmpty() && oneRowPerKey ? Decoding.ORDINAL_PREFIX_OR_ARRAY : Decoding.ORDINAL_ARRAY;
        for (List<Integer> wave : waves) {
            for (int start = 0; start < wave.size() && arraySteps != null; start += maxRows) {
                int size = Math.min(maxRows, wave.size() - start);
                int[] chunk = wave.subList(start, start + size).stream().mapToInt(Integer::intValue).toArray();
                Object[][] arrays = encodeArrays(rows, chunk, casts, nativeArrays);
                if (arrays == null) {
                    arraySteps = null;
                } else {
                    arraySteps.add(new Step(unnestSql, chunk, unnestDecoding, 0, new Bind[0], null, arrays));
                }
            }
        }
        if (arraySteps != null) {
            return new BatchPlan(kind + "-unnest", arraySteps, null);
        }
        List<Step> steps = new ArrayList<>();
        for (List<Integer> wave : waves) {
            for (int start = 0; start < wave.size(); start += chunkRows) {
                int size = Math.min(chunkRows, wave.size() - start);
                int[] chunk = wave.subList(start, start + size).stream().mapToInt(Integer::intValue).toArray();
                steps.add(checks.isEmpty() ? new Step(Rewriter.keyedDml(dml, size, casts), chunk, Decoding.ORDINALS)
                        : new Step(Rewriter.keyedUpdateInOrder(dml, size, casts, checks), chunk, Decoding.ORDINAL_ARRAY));
            }
        }
        return new BatchPlan(kind, steps, null);
    }

    /**
     * Whether changing {@code setColumns} in a coalesced statement keeps PostgreSQL's unique checks as row-by-row
     * execution would make them: {@code null} when it does, with {@code checks} filled with the unique keys the
     * statement must check in batch order ({@link Rewriter#keyedUpdateInOrderUnnest}); otherwise why not.
     *
     * <p>PostgreSQL checks unique indexes (and exclusion constraints) as each row is changed, so the order in which
     * rows change their unique values decides whether a batch fails. Rows split over several statements out of batch
     * order ({@code outOfOrder}: a repeated key in a later wave) cannot be checked in order; nor can an index on
     * expressions or an exclusion constraint, whose columns are not modelled.
     */
    private static String uniquenessProblem(List<String> setColumns, TableInfo table, boolean outOfOrder,
            List<Rewriter.UniqueCheck> checks) {
        List<TableCatalog.UniqueKey> touched = table.uniqueKeysTouching(setColumns);
        if (table.uniquenessNotModelled() != null) {
            return "changes rows of a table whose uniqueness is not modelled (" + table.uniquenessNotModelled()
                    + "): its checks depend on the order rows change";
        }
        if (touched.isEmpty()) {
            return null;
        }
        if (outOfOrder) {
            return "sets a column of a unique key (" + String.join(", ", touched.get(0).columns()) + ") in statements out"
                    + " of batch order (a repeated key): unique checks would run in another order than row by row";
        }
        for (TableCatalog.UniqueKey key : touched) {
            checks.add(new Rewriter.UniqueCheck(key.columns(), key.nullsNotDistinct()));
        }
        return null;
    }

    /**
     * INSERT ... ON CONFLICT (keys) DO NOTHING | DO UPDATE as multi-row statements whose RETURNING of the key
     * columns tells which rows wrote (1) and which did not (0). Rows are processed, and returned, in VALUES
     * order, so a key repeated in the batch behaves as in sequential execution: with DO NOTHING the first
     * occurrence wins; DO UPDATE may not touch a row twice in one statement, so repeats go to later waves.
     * Parameters in the DO UPDATE clause are bound once per statement, so rows are grouped by their values.
     */
    private static BatchPlan planOnConflict(StatementDescription insert, List<Bind[]> rows, TableInfo table,
            String returningSuffix, SessionFacts session, int chunkRows) {
        boolean doUpdate = insert.onConflict() == StatementDescription.OnConflict.DO_UPDATE;
        List<KeyColumn> keys = insert.conflictKeys();
        TableCatalog.ColumnInfo[] keyColumns = new TableCatalog.ColumnInfo[keys.size()];
        for (int k = 0; k < keys.size(); k++) {
            keyColumns[k] = table.column(keys.get(k).column());
            if (keyColumns[k] == null) {
                return BatchPlan.fallback("ON CONFLICT column not found: " + keys.get(k).column());
            }
        }
        Object[][] rowKeys = new Object[rows.size()][];
        for (int r = 0; r < rows.size(); r++) {
            rowKeys[r] = new Object[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                Bind bind = rows.get(r)[keys.get(k).parameter()];
                if (!bind.isNull()) {
                    rowKeys[r][k] = alignmentKey(bind.value(), keyColumns[k]);
                    if (rowKeys[r][k] == null) {
                        return BatchPlan.fallback("ON CONFLICT column " + keyColumns[k].name() + " of type "
                                + keyColumns[k].typeName() + " bound with " + bind.value().getClass().getSimpleName()
                                + ": equality not modelled");
                    }
                }
            }
        }
        String suffix;
        Decoding decoding;
        if (returningSuffix != null) {
            if (insert.hasReturning() || !returningSuffix.contains("*") && !namesAll(returningSuffix, keys, session)) {
                return BatchPlan.fallback("generated keys of ON CONFLICT that do not include the conflict columns");
            }
            suffix = returningSuffix;
            decoding = Decoding.ALIGNED_RETURNED;
        } else if (insert.hasReturning()) {
            suffix = null;
            decoding = Decoding.RETURNED_ROWS_DISCARDED; // pgjdbc reports 0 per row and drops the rows
        } else {
            StringBuilder returning = new StringBuilder("\nRETURNING ");
            for (int k = 0; k < keys.size(); k++) {
                returning.append(k > 0 ? ", " : "").append(quote(keys.get(k).column()));
            }
            suffix = returning.toString();
            decoding = Decoding.ALIGNED;
        }
        int rowParameters = insert.rowParameterCount();
        // Waves (DO UPDATE: a key at most once per statement), then groups of equal DO UPDATE parameter values.
        Map<List<Object>, List<Integer>> groups = upsertGroups(insert, rows, doUpdate ? rowKeys : null, rowParameters);
        String[] casts = insertCasts(insert, rows, table, session);
        boolean[] nativeArrays = casts == null ? null : nativeArrays(rows, casts);
        List<Step> steps = new ArrayList<>();
        List<Map.Entry<List<Object>, List<Integer>>> ordered = new ArrayList<>(groups.entrySet());
        ordered.sort((a, b) -> Integer.compare((Integer) a.getKey().get(0), (Integer) b.getKey().get(0)));
        for (Map.Entry<List<Object>, List<Integer>> entry : ordered) {
            List<Integer> members = entry.getValue();
            Bind[] tail = Arrays.copyOfRange(rows.get(members.get(0)), rowParameters, insert.parameterCount());
            for (int start = 0; start < members.size(); start += chunkRows) {
                int size = Math.min(chunkRows, members.size() - start);
                int[] chunk = members.subList(start, start + size).stream().mapToInt(Integer::intValue).toArray();
                Object[][] chunkKeys = new Object[size][];
                for (int i = 0; i < size; i++) {
                    chunkKeys[i] = rowKeys[chunk[i]];
                }
                Object[][] arrays = casts == null ? null : encodeArrays(rows, chunk, casts, nativeArrays);
                String sql = arrays != null ? Rewriter.insertUnnest(insert, casts, nativeArrays, suffix)
                        : Rewriter.insertValues(insert, size, suffix);
                steps.add(new Step(sql, chunk, decoding, arrays != null ? 0 : rowParameters, tail,
                        new BatchPlan.Alignment(keyColumns, chunkKeys), arrays));
            }
        }
        if (!inBatchOrder(steps)) {
            if (decoding == Decoding.ALIGNED_RETURNED) {
                return BatchPlan.fallback("generated keys of an upsert whose rows need statements out of batch order");
            }
            // ON CONFLICT draws a sequence default for every proposed row: out of batch order, other rows get the ids
            if (table.drawsFromSequences()) {
                return BatchPlan.fallback("upsert rows need statements out of batch order and the table draws from a"
                        + " sequence: rows would get other ids than row by row");
            }
            String unmodelled = uniquenessProblem(insert.conflictUpdatedColumns(), table, true, new ArrayList<>());
            if (unmodelled != null) {
                return BatchPlan.fallback("upsert " + unmodelled);
            }
        }
        boolean unnested = steps.stream().allMatch(step -> step.arrays() != null);
        return new BatchPlan((doUpdate ? "upsert-do-update" : "upsert-do-nothing") + (unnested ? "-unnest" : ""), steps, null);
    }

    /**
     * INSERT ... ON CONFLICT (keys) DO NOTHING | DO UPDATE in the anti-join form ({@link Rewriter#antiJoinDoNothing},
     * {@link Rewriter#antiJoinDoUpdate}): one statement per chunk (DO UPDATE: per wave of distinct keys, as the native
     * plan), each returning the ordinals of the rows it wrote. Only where it does exactly what ON CONFLICT does;
     * otherwise a fallback whose reason says why (the caller then plans natively). Besides the native plan's
     * conditions: every row's values are parameters of known types (they are coerced to the columns' types for all
     * rows, as ON CONFLICT coerces every proposed row); the arbiter indexes compare keys as {@code =} does and treat
     * NULLs as distinct; nothing ON CONFLICT checks or draws for a row it then skips or updates is left out (CHECK
     * constraints, NOT NULL, sequence defaults, partition routing); DO UPDATE keys are compared exactly in Java.
     */
    private static BatchPlan planAntiJoin(StatementDescription insert, List<Bind[]> rows, TableInfo table,
            String returningSuffix, SessionFacts session, ConflictFacts facts, int maxRows) {
        boolean doUpdate = insert.onConflict() == StatementDescription.OnConflict.DO_UPDATE;
        if (returningSuffix != null || insert.hasReturning()) {
            return BatchPlan.fallback("generated keys or RETURNING requested");
        }
        if (!session.known()) {
            return BatchPlan.fallback("the delegate connection is not pgjdbc: parameter types unknown");
        }
        if (facts == null) {
            return BatchPlan.fallback("the table's unique indexes and constraints could not be read");
        }
        String barrier = table.barrier(false);
        if (barrier != null) {
            return BatchPlan.fallback(barrier);
        }
        if (facts.inheritanceParent() || !"r".equals(facts.relkind())) {
            return BatchPlan.fallback("partitioned table or inheritance parent (ON CONFLICT routes every proposed row)");
        }
        if (facts.hasCheckConstraints()) {
            return BatchPlan.fallback("table has CHECK constraints (ON CONFLICT checks every proposed row)");
        }
        for (String column : table.columns().keySet()) {
            if (column.startsWith(Rewriter.COLUMN_PREFIX)) {
                return BatchPlan.fallback("table has a column named " + column);
            }
        }
        List<String> parameterColumns = insert.parameterColumns();
        String[] casts = insertCasts(insert, rows, table, session);
        if (casts == null || parameterColumns == null) {
            return BatchPlan.fallback("the VALUES tuple is not all parameters of known types");
        }
        List<KeyColumn> keys = insert.conflictKeys();
        List<String> target = new ArrayList<>();
        for (KeyColumn key : keys) {
            target.add(key.column());
        }
        List<ConflictFacts.UniqueIndex> arbiters = facts.arbiters(target);
        if (arbiters.isEmpty()) {
            return BatchPlan.fallback("no unique index matches the ON CONFLICT target");
        }
        for (ConflictFacts.UniqueIndex arbiter : arbiters) {
            if (!arbiter.immediate()) {
                return BatchPlan.fallback("arbiter index " + arbiter.name() + " is deferrable");
            }
            if (arbiter.nullsNotDistinct()) {
                return BatchPlan.fallback("arbiter index " + arbiter.name() + " is NULLS NOT DISTINCT");
            }
            if (!arbiter.deterministicCollations() || !arbiter.defaultOpclasses()) {
                return BatchPlan.fallback("arbiter index " + arbiter.name()
                        + " has a nondeterministic collation or a non-default operator class");
            }
        }
        // What ON CONFLICT evaluates for every proposed row, also one it skips or updates.
        String[] columnTypes = new String[casts.length];
        for (ConflictFacts.ColumnFacts column : facts.columns().values()) {
            int parameter = parameterColumns.indexOf(column.name());
            if (parameter < 0) {
                if (column.drawsFromSequence()) {
                    return BatchPlan.fallback("column " + column.name() + " draws from a sequence for every proposed row");
                }
                if (column.notNull() && (!column.hasDefault() || column.generated())) {
                    return BatchPlan.fallback("NOT NULL column " + column.name() + " is not supplied and has no default");
                }
                continue;
            }
            String problem = coercionProblem(column, parameter, rows);
            if (problem != null) {
                return BatchPlan.fallback(problem);
            }
            columnTypes[parameter] = column.typeWithModifier();
        }
        for (int p = 0; p < columnTypes.length; p++) {
            if (columnTypes[p] == null) {
                return BatchPlan.fallback("column " + parameterColumns.get(p) + " not found");
            }
        }
        int[] keyParameters = new int[keys.size()];
        String[] keyNames = new String[keys.size()];
        ColumnInfo[] keyColumns = new ColumnInfo[keys.size()];
        for (int k = 0; k < keys.size(); k++) {
            keyParameters[k] = keys.get(k).parameter();
            keyNames[k] = keys.get(k).column();
            keyColumns[k] = table.column(keyNames[k]);
            if (keyColumns[k] == null) {
                return BatchPlan.fallback("ON CONFLICT column not found: " + keyNames[k]);
            }
        }
        // DO UPDATE: keys as PostgreSQL compares them once coerced to the column, exactly, for the types modelled
        // (DO NOTHING compares and de-duplicates the coerced keys in SQL, with the index's own equality).
        Object[][] rowKeys = new Object[doUpdate ? rows.size() : 0][];
        for (int r = 0; r < rowKeys.length; r++) {
            rowKeys[r] = new Object[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                Bind bind = rows.get(r)[keyParameters[k]];
                if (bind.isNull()) {
                    continue;
                }
                rowKeys[r][k] = exactKey(bind.value(), keyColumns[k], facts.column(keyNames[k]));
                if (rowKeys[r][k] == null) {
                    return BatchPlan.fallback("ON CONFLICT column " + keyNames[k] + " of type " + keyColumns[k].typeName()
                            + " bound with " + bind.value().getClass().getSimpleName() + ": equality not modelled");
                }
            }
        }
        boolean[] nativeArrays = nativeArrays(rows, casts);
        Rewriter.AntiJoin form = new Rewriter.AntiJoin(casts, nativeArrays, columnTypes, keyParameters, keyNames);
        List<Step> steps = new ArrayList<>();
        if (!doUpdate) {
            String sql = Rewriter.antiJoinDoNothing(insert, form);
            for (int start = 0; start < rows.size(); start += maxRows) {
                int[] chunk = range(start, Math.min(maxRows, rows.size() - start));
                Object[][] arrays = encodeArrays(rows, chunk, casts, nativeArrays);
                if (arrays == null) {
                    return BatchPlan.fallback("a value that cannot travel in an array");
                }
                steps.add(new Step(sql, chunk, Decoding.ORDINAL_ARRAY, 0, new Bind[0], null, arrays));
            }
            return new BatchPlan("upsert-do-nothing-antijoin", steps, null);
        }
        if (!table.uniqueKeysTouching(insert.conflictUpdatedColumns()).isEmpty() || table.uniquenessNotModelled() != null) {
            // the anti-join updates existing rows and inserts new ones in separate parts of one statement, not in
            // VALUES order, so unique checks between them could differ from row-by-row execution
            return BatchPlan.fallback("DO UPDATE sets a column of a unique key");
        }
        StatementDescription.ConflictAction action = insert.conflictAction();
        if (action == null || action.excluded() == null) {
            return BatchPlan.fallback("DO UPDATE uses EXCLUDED other than as EXCLUDED.column, or was not located");
        }
        String set = replaceExcluded(insert.sql(), action.setStart(), action.setEnd(), action.excluded(), parameterColumns);
        String where = action.whereStart() < 0 ? null
                : replaceExcluded(insert.sql(), action.whereStart(), action.end(), action.excluded(), parameterColumns);
        if (set == null || action.whereStart() >= 0 && where == null) {
            return BatchPlan.fallback("DO UPDATE reads an EXCLUDED column that no parameter supplies");
        }
        String sql = Rewriter.antiJoinDoUpdate(insert, form, set.trim(), where == null ? null : where.trim());
        // Waves: a key at most once per statement (sequential execution: the first row inserts or updates, later
        // rows update what the earlier ones left); then groups of equal parameter values in the DO UPDATE clause.
        int rowParameters = insert.rowParameterCount();
        Map<List<Object>, List<Integer>> groups = upsertGroups(insert, rows, rowKeys, rowParameters);
        List<Map.Entry<List<Object>, List<Integer>>> ordered = new ArrayList<>(groups.entrySet());
        ordered.sort((a, b) -> Integer.compare((Integer) a.getKey().get(0), (Integer) b.getKey().get(0)));
        for (Map.Entry<List<Object>, List<Integer>> entry : ordered) {
            List<Integer> members = entry.getValue();
            Bind[] tail = Arrays.copyOfRange(rows.get(members.get(0)), rowParameters, insert.parameterCount());
            for (int start = 0; start < members.size(); start += maxRows) {
                int size = Math.min(maxRows, members.size() - start);
                int[] chunk = members.subList(start, start + size).stream().mapToInt(Integer::intValue).toArray();
                Object[][] arrays = encodeArrays(rows, chunk, casts, nativeArrays);
                if (arrays == null) {
                    return BatchPlan.fallback("a value that cannot travel in an array");
                }
                steps.add(new Step(sql, chunk, Decoding.ORDINAL_ARRAY, 0, tail, null, arrays));
            }
        }
        return new BatchPlan("upsert-do-update-antijoin", steps, null);
    }

    /**
     * Why coercing the values of {@code column} (filled by {@code parameter}) with an explicit cast could differ
     * from ON CONFLICT's assignment coercion, or {@code null}: only length coercions differ (an explicit cast to
     * {@code varchar(n)} truncates where assignment fails), so values longer than the length are not rewritten;
     * also a NULL bound to a NOT NULL column (ON CONFLICT rejects it even for a row it would skip).
     */
    private static String coercionProblem(ConflictFacts.ColumnFacts column, int parameter, List<Bind[]> rows) {
        String type = column.typeWithModifier();
        boolean lengthLimited = column.typmod() >= 0
                && (type.startsWith("character varying(") || type.startsWith("character("));
        if (column.typmod() >= 0 && (type.startsWith("bit(") || type.startsWith("bit varying(") || lengthLimited && type.endsWith("]"))
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
                Object text = ArrayEncoding.text(bind);
                if (!(text instanceof String s) || s.codePointCount(0, s.length()) > column.typmod() - 4) {
                    return "a value longer than column " + column.name() + " (" + type + ")";
                }
            }
        }
        return null;
    }

    /**
     * A key value exactly as the arbiter index compares it once coerced to the column ({@link #alignmentKey}), or
     * {@code null} where coercion could change it in a way not modelled here (a fraction into an integer column,
     * more decimals than a numeric column keeps).
     */
    private static Object exactKey(Object value, ColumnInfo column, ConflictFacts.ColumnFacts facts) {
        Object key = alignmentKey(value, column);
        if (key instanceof BigDecimal decimal) {
            boolean integerColumn = column.typeOid() != SentType.NUMERIC;
            int scale = integerColumn ? 0 : facts == null || facts.typmod() < 4 ? Integer.MAX_VALUE
                    : (short) ((facts.typmod() - 4) & 0xffff);
            if (decimal.scale() > scale || scale < 0) {
                return null;
            }
        }
        return key;
    }

    /** {@code sql[from, to)} with every EXCLUDED reference inside replaced, or {@code null} for a column no parameter fills. */
    private static String replaceExcluded(String sql, int from, int to, List<StatementDescription.ExcludedReference> refs,
            List<String> parameterColumns) {
        StringBuilder out = new StringBuilder();
        int position = from;
        for (StatementDescription.ExcludedReference ref : refs) {
            if (ref.start() < from || ref.end() > to) {
                continue;
            }
            int parameter = parameterColumns.indexOf(ref.column());
            if (parameter < 0) {
                return null;
            }
            out.append(sql, position, ref.start()).append(Rewriter.excludedColumn(parameter));
            position = ref.end();
        }
        return out.append(sql, position, to).toString();
    }

    /**
     * Why a SET value is too long for its {@code varchar(n)}/{@code char(n)} column, or {@code null}. Run as sent,
     * PostgreSQL applies the column's length to a bound SET value when it plans the statement (pgjdbc's first
     * executions get custom plans), so the UPDATE fails with 22001 even when no row matches; coalesced, the value
     * comes from a joined row and is checked only for rows that are updated. Such a batch runs as sent.
     */
    private static String tooLongForColumn(int p, ColumnInfo column, boolean inExpression, List<Bind[]> rows) {
        if (column == null || inExpression || column.maxLength() < 0) {
            return null;
        }
        for (Bind[] row : rows) {
            if (row[p].value() instanceof String text && text.codePointCount(0, text.length()) > column.maxLength()) {
                return "a SET value is longer than " + column.typeName() + "(" + column.maxLength() + ")";
            }
        }
        return null;
    }

    /**
     * The rows of an upsert batch grouped by statement: keyed by (wave, the values bound after the VALUES tuple),
     * in order of first appearance. A row's wave counts the earlier rows with its key ({@code rowKeys}; {@code null}
     * for DO NOTHING, where every row is wave 0): PostgreSQL refuses to let one ON CONFLICT DO UPDATE statement
     * affect a row twice, and sequentially a later row with the key updates what the earlier one left. A key with
     * a NULL never conflicts. Rows bound with different DO UPDATE parameters need different statement texts' values.
     */
    private static Map<List<Object>, List<Integer>> upsertGroups(StatementDescription insert, List<Bind[]> rows,
            Object[][] rowKeys, int rowParameters) {
        Map<List<Object>, Integer> seen = new HashMap<>();
        Map<List<Object>, List<Integer>> groups = new java.util.LinkedHashMap<>();
        for (int r = 0; r < rows.size(); r++) {
            int wave = 0;
            if (rowKeys != null && !Arrays.asList(rowKeys[r]).contains(null)) {
                List<Object> key = Arrays.asList(rowKeys[r]);
                Integer previous = seen.get(key);
                wave = previous == null ? 0 : previous + 1;
                seen.put(key, wave);
            }
            List<Object> group = new ArrayList<>();
            group.add(wave);
            for (int p = rowParameters; p < insert.parameterCount(); p++) {
                group.add(rows.get(r)[p].identity());
            }
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(r);
        }
        return groups;
    }

    /**
     * True when the steps' rows, statement after statement, are the batch rows in ascending order. pgjdbc hands out
     * a batch's generated keys in batch order (each execution's RETURNING rows after the previous one's), and the
     * coalesced keys are the statements' returned rows concatenated, each statement's in VALUES order. A DO UPDATE
     * batch that repeats a key sends the repeat in a later statement (one statement may not affect a row twice),
     * and one whose DO UPDATE clause binds parameters is grouped by their values: either can put a later batch row
     * in an earlier statement, and its key would then come back before the keys of rows that precede it.
     */
    private static boolean inBatchOrder(List<Step> steps) {
        int previous = -1;
        for (Step step : steps) {
            for (int row : step.rows()) {
                if (row <= previous) {
                    return false;
                }
                previous = row;
            }
        }
        return true;
    }

    private static boolean namesAll(String returningSuffix, List<KeyColumn> keys, SessionFacts session) {
        for (KeyColumn key : keys) {
            if (!returningSuffix.contains(session.quoteReturningIdentifiers() ? quote(key.column()) : key.column())) {
                return false;
            }
        }
        return true;
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    /**
     * A key value as PostgreSQL compares it in a unique index, exactly (neither coarser nor finer), for the
     * types modelled here; {@code null} otherwise. Applied alike to the value bound and the value returned.
     */
    public static Object alignmentKey(Object value, ColumnInfo column) {
        switch (column.typeOid()) {
            case SentType.INT2:
            case SentType.INT4:
            case SentType.INT8:
            case SentType.NUMERIC:
                return canonicalNumber(value);
            case SentType.TEXT:
            case SentType.VARCHAR:
                return column.deterministic() && value instanceof String ? value : null;
            case SentType.BPCHAR:
                return column.deterministic() && value instanceof String s ? stripTrailingSpaces(s) : null;
            case SentType.UUID_OID:
                return value instanceof java.util.UUID ? value : null;
            case SentType.BOOL:
                return value instanceof Boolean ? value : null;
            case SentType.BYTEA:
                return value instanceof byte[] bytes ? ByteBuffer.wrap(bytes.clone()) : null;
            default:
                return null;
        }
    }

    /**
     * Chooses the cast for parameter {@code p} in the VALUES list, so that it has the type the original
     * statement's context would give it: an unspecified parameter takes the column's type there, and a
     * typed one keeps its type (and is compared or assigned with the same operators and casts).
     */
    private static String decideCast(int p, ColumnInfo column, List<Bind[]> rows, SessionFacts session, String[] casts) {
        Set<SentType> sent = new LinkedHashSet<>();
        for (Bind[] row : rows) {
            sent.add(row[p].sentType(session));
        }
        if (sent.contains(SentType.UNKNOWN)) {
            return "parameter " + (p + 1) + ": setter whose declared type is not modelled";
        }
        String columnCast = castableName(column);
        boolean allColumnTyped = true;
        for (SentType type : sent) {
            allColumnTyped &= type.isUnspecified() || type.oid() == column.typeOid();
        }
        if (allColumnTyped) {
            if (columnCast == null) {
                return "parameter " + (p + 1) + ": column type " + column.typeName() + " cannot be named in a cast";
            }
            casts[p] = columnCast;
            return null;
        }
        if (sent.size() == 1) {
            String name = sent.iterator().next().sqlName();
            if (name != null) {
                casts[p] = name;
                return null;
            }
        }
        return "parameter " + (p + 1) + ": rows bind it with different types " + sent;
    }

    /**
     * The cast for a parameter inside an expression ({@code stock + ?}): its type there comes from the
     * operator, which this driver does not model for an untyped parameter, so every row must declare the
     * same type, and the VALUES list keeps it.
     */
    private static String decideTypedCast(int p, List<Bind[]> rows, SessionFacts session, String[] casts) {
        Set<SentType> sent = new LinkedHashSet<>();
        for (Bind[] row : rows) {
            sent.add(row[p].sentType(session));
        }
        SentType only = sent.size() == 1 ? sent.iterator().next() : null;
        if (only == null || only.isUnknown() || only.isUnspecified() || only.sqlName() == null) {
            return "parameter " + (p + 1) + " inside an expression is bound untyped or with different types " + sent;
        }
        casts[p] = only.sqlName();
        return null;
    }

    /** The column's type as a cast target without a type modifier, or {@code null} where that would change it. */
    private static String castableName(ColumnInfo column) {
        if (column.typeOid() == SentType.BPCHAR) {
            return "bpchar"; // "character" without a length means character(1)
        }
        if (column.typeOid() == 1014) {
            return "bpchar[]";
        }
        String name = column.typeName();
        return name == null || name.equals("bit") || name.equals("bit[]") ? null : name;
    }

    /**
     * A value that is equal for two key values whenever PostgreSQL could find them equal (it may be coarser,
     * never finer), or {@code null} when this driver does not model the column type's equality.
     */
    static Object canonicalKey(Object value, ColumnInfo column) {
        if (value instanceof Character) {
            value = value.toString();
        }
        boolean text = column.typeOid() == SentType.TEXT || column.typeOid() == SentType.VARCHAR;
        // A text key may be compared to a parameter declared bpchar, which ignores trailing spaces: coarser here.
        return text && column.deterministic() && value instanceof String s ? stripTrailingSpaces(s)
                : alignmentKey(value, column);
    }

    /**
     * Equal numbers as one value: integral values (whatever their Java class) as {@code Long}, others as a
     * {@code BigDecimal} without trailing zeros (so 5, 5L and 5.00 are one key, as in SQL).
     */
    private static Object canonicalNumber(Object value) {
        if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
            return ((Number) value).longValue();
        }
        BigDecimal decimal;
        if (value instanceof BigInteger big) {
            decimal = new BigDecimal(big);
        } else if (value instanceof BigDecimal big) {
            decimal = big;
        } else {
            return null;
        }
        if (decimal.signum() == 0) {
            return 0L;
        }
        BigDecimal stripped = decimal.stripTrailingZeros();
        if (stripped.scale() <= 0 && stripped.precision() - stripped.scale() <= 18) {
            return stripped.longValueExact();
        }
        return stripped;
    }

    private static String stripTrailingSpaces(String s) {
        int end = s.length();
        while (end > 0 && s.charAt(end - 1) == ' ') {
            end--;
        }
        return s.substring(0, end);
    }

    private static int[] range(int start, int size) {
        int[] rows = new int[size];
        for (int i = 0; i < size; i++) {
            rows[i] = start + i;
        }
        return rows;
    }
}
