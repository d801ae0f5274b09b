package dev.flushless.jdbc.rewrite;

import dev.flushless.jdbc.analysis.StatementDescription;

/**
 * Pure functions from a {@link StatementDescription} and a row count to SQL text. They splice the
 * application's own text (never a re-printed syntax tree), and values always stay bind parameters:
 * the rewritten text has exactly {@code rows * parameterCount} parameters, bound row by row in the
 * application's parameter order.
 */
public final class Rewriter {

    /** Alias of the VALUES list joined by UPDATE/DELETE rewrites; tables with such column names are not rewritten. */
    public static final String ROWS_ALIAS = "flushless_v";
    /** Prefix of the VALUES list's column names. */
    public static final String COLUMN_PREFIX = "flushless_";
    /** The column holding each row's 1-based position in the chunk. */
    public static final String ORDINAL = "flushless_ord";

    private Rewriter() {}

    /**
     * {@code INSERT ... VALUES (t)} as one statement inserting {@code rows} rows: the tuple {@code t} repeated.
     * Inside INSERT, PostgreSQL coerces every VALUES row to the target columns on its own, exactly as for a
     * single-row INSERT, so no casts are needed.
     *
     * @param returningSuffix appended after the statement (e.g. {@code "\nRETURNING *"} for generated keys),
     *     or {@code null}
     */
    public static String insertValues(StatementDescription insert, int rows, String returningSuffix) {
        String sql = insert.sql();
        String tuple = sql.substring(insert.tupleStart(), insert.tupleEnd());
        StringBuilder out = new StringBuilder(insert.tupleStart() + rows * (tuple.length() + 2) + 64);
        out.append(sql, 0, insert.tupleStart());
        for (int i = 0; i < rows; i++) {
            if (i > 0) {
                out.append(", ");
            }
            out.append(tuple);
        }
        out.append(sql, insert.tupleEnd(), insert.textEnd());
        if (returningSuffix != null) {
            out.append(returningSuffix);
        }
        return out.toString();
    }

    /**
     * Wraps a multi-row INSERT so that it fails, inside the same statement, unless it inserted exactly
     * {@code rows} rows: a trigger or rule added by another session after the catalog was read could skip or
     * redirect rows, and the failure lets the batch be undone and re-run as sent. The check's value depends
     * on the aggregate, so PostgreSQL cannot fold (and raise) it at plan time.
     */
    public static String countChecked(String insert, int rows) {
        return countChecked(insert, Integer.toString(rows));
    }

    /** {@link #countChecked(String, int)} with the expected count as a trailing bigint parameter; kept per text. */
    public static String countChecked(String insert) {
        return RewriteMemo.text(() -> countChecked(insert, "CAST(? AS bigint)"), "countChecked", insert);
    }

    private static String countChecked(String insert, String expected) {
        return "WITH flushless_ins AS (" + insert + ")\nSELECT CASE WHEN count(*) = " + expected + " THEN count(*)"
                + " ELSE CAST('flushless: rows inserted by a coalesced INSERT: ' || count(*) AS bigint) END FROM flushless_ins";
    }

    /** Text in the error a count check raises, by which the driver recognises it. */
    public static final String COUNT_CHECK_MARKER = "flushless: rows inserted by";

    /**
     * Several INSERTs (each a complete {@code INSERT ... VALUES/SELECT} text without RETURNING) as one statement:
     * {@code WITH flushless_s1 AS (i1 RETURNING 1), ... SELECT ...} that fails inside the statement unless member
     * {@code k} inserted exactly the number of rows bound to the k-th trailing bigint parameter. All members of
     * one statement must write different tables: PostgreSQL runs a statement's parts on one snapshot in an
     * unspecified order, so only independent writes may share it (ids drawn from one table's sequence keep
     * their order because a table appears at most once per statement).
     */
    public static String insertChain(java.util.List<String> members) {
        return RewriteMemo.text(() -> buildInsertChain(members), "insertChain", members);
    }

    private static String buildInsertChain(java.util.List<String> members) {
        StringBuilder out = new StringBuilder("WITH ");
        for (int i = 0; i < members.size(); i++) {
            out.append(i > 0 ? ",\n" : "")
                    .append("flushless_s")
                    .append(i + 1)
                    .append(" AS (")
                    .append(members.get(i))
                    .append("\nRETURNING 1)");
        }
        StringBuilder check = new StringBuilder();
        StringBuilder counts = new StringBuilder();
        for (int i = 0; i < members.size(); i++) {
            String count = "(SELECT count(*) FROM flushless_s" + (i + 1) + ")";
            check.append(i > 0 ? " AND " : "").append(count).append(" = CAST(? AS bigint)");
            counts.append(i > 0 ? ", " : "").append(count);
        }
        return out.append("\nSELECT CASE WHEN ")
                .append(check)
                .append(" THEN 0 ELSE CAST('")
                .append(COUNT_CHECK_MARKER)
                .append(" buffered INSERTs: ' || concat_ws(', ', ")
                .append(counts)
                .append(") AS bigint) END")
                .toString();
    }

    /**
     * The batch's rows as a table: one {@code text[]} parameter per statement parameter, each cast to the
     * type the original statement gives that parameter, unnested side by side with their 1-based ordinal.
     */
    static String unnestRows(String[] casts, boolean[] nativeArrays) {
        StringBuilder out = new StringBuilder("unnest(");
        for (int p = 0; p < casts.length; p++) {
            if (nativeArrays != null && nativeArrays[p]) {
                out.append(p > 0 ? ", " : "")
                        .append("CAST(? AS ")
                        .append(casts[p])
                        .append("[])");
                continue;
            }
            out.append(p > 0 ? ", " : "").append("CAST(? AS text[])");
            if (!"text".equals(casts[p])) {
                out.append("::").append(casts[p]).append("[]");
            }
        }
        out.append(") WITH ORDINALITY AS ").append(ROWS_ALIAS).append('(');
        for (int p = 0; p < casts.length; p++) {
            out.append(COLUMN_PREFIX).append('p').append(p + 1).append(", ");
        }
        return out.append(ORDINAL).append(')').toString();
    }

    /**
     * {@code INSERT INTO t (c1, .., cn) VALUES (?, .., ?)} for any number of rows as one SQL text:
     * {@code INSERT INTO t (c1, .., cn) SELECT flushless_p1, .. FROM unnest(..) .. ORDER BY flushless_ord},
     * the application's text after the tuple (ON CONFLICT, RETURNING) kept. INSERT ... SELECT coerces each
     * value to its column by assignment, as INSERT ... VALUES does with a typed parameter; {@code casts} give
     * each array the parameter's type.
     */
    public static String insertUnnest(StatementDescription insert, String[] casts, String returningSuffix) {
        return insertUnnest(insert, casts, null, returningSuffix);
    }

    /**
     * As {@link #insertUnnest(StatementDescription, String[], String)}; {@code nativeArrays[p]} marks a
     * parameter sent as an array of its own type (integers) rather than as {@code text[]}.
     */
    public static String insertUnnest(
            StatementDescription insert, String[] casts, boolean[] nativeArrays, String returningSuffix) {
        return RewriteMemo.text(
                () -> buildInsertUnnest(insert, casts, nativeArrays, returningSuffix),
                "insertUnnest",
                insert,
                casts,
                nativeArrays,
                returningSuffix);
    }

    private static String buildInsertUnnest(
            StatementDescription insert, String[] casts, boolean[] nativeArrays, String returningSuffix) {
        String sql = insert.sql();
        StringBuilder out = new StringBuilder(sql.length() + casts.length * 48 + 128);
        out.append(sql, 0, insert.valuesStart()).append("SELECT ");
        for (int p = 0; p < casts.length; p++) {
            out.append(p > 0 ? ", " : "")
                    .append(ROWS_ALIAS)
                    .append('.')
                    .append(COLUMN_PREFIX)
                    .append('p')
                    .append(p + 1);
        }
        out.append(" FROM ")
                .append(unnestRows(casts, nativeArrays))
                .append(" ORDER BY ")
                .append(ROWS_ALIAS)
                .append('.')
                .append(ORDINAL);
        out.append(sql, insert.tupleEnd(), insert.textEnd());
        if (returningSuffix != null) {
            out.append(returningSuffix);
        }
        return out.toString();
    }

    /**
     * {@link #keyedDml} with the rows unnested from one array per parameter: one SQL text for any row count.
     * The ordinals of the changed rows come back as one array in one row ({@code array_agg}), not as one
     * result row per changed row.
     */
    public static String keyedDmlUnnest(StatementDescription dml, String[] casts, boolean[] nativeArrays) {
        return "WITH flushless_dml AS (" + keyed(dml, " " + unnestRows(casts, nativeArrays) + " ")
                + ")\nSELECT array_agg(" + ORDINAL + ") FROM flushless_dml";
    }

    /**
     * {@link #keyedDmlUnnest} for rows whose keys cover a unique key, so that each changes at most one table row:
     * returns {@code count(*), max(ordinal)} and the ordinals only when they are not simply 1 to max (a stale or
     * missing row), which spares the common case an array of one ordinal per row.
     */
    public static String keyedDmlUnnestCounted(StatementDescription dml, String[] casts, boolean[] nativeArrays) {
        return "WITH flushless_dml AS (" + keyed(dml, " " + unnestRows(casts, nativeArrays) + " ")
                + ")\nSELECT count(*), max(" + ORDINAL + "), CASE WHEN count(*) = max(" + ORDINAL
                + ") THEN NULL ELSE array_agg("
                + ORDINAL + ") END FROM flushless_dml";
    }

    /**
     * {@code UPDATE t SET .. WHERE k = ? ..} or {@code DELETE FROM t WHERE k = ? ..} for {@code rows} rows at
     * once: the rows become a VALUES list joined on the keys, and {@code RETURNING} the matching rows'
     * ordinals gives each row's exact update count.
     *
     * <pre>
     * UPDATE t SET a = flushless_v.flushless_p1
     *   FROM (VALUES (1, CAST(? AS text), CAST(? AS integer)), (2, ...)) AS flushless_v(flushless_ord, flushless_p1, flushless_p2)
     *   WHERE id = flushless_v.flushless_p2 RETURNING flushless_v.flushless_ord
     * </pre>
     *
     * @param casts per parameter, the type to cast it to in the VALUES list, or {@code null} for none
     */
    public static String keyedDml(StatementDescription dml, int rows, String[] casts) {
        return keyed(dml, valuesRows(rows, casts));
    }

    /** {@code (VALUES (1, CAST(? AS t), ..), (2, ..)) AS flushless_v(flushless_ord, flushless_p1, ..)}. */
    private static String valuesRows(int rows, String[] casts) {
        StringBuilder values = new StringBuilder(rows * casts.length * 24 + 64).append(" (VALUES ");
        for (int row = 1; row <= rows; row++) {
            values.append(row > 1 ? ", (" : "(").append(row);
            for (String cast : casts) {
                values.append(", ");
                if (cast == null) {
                    values.append('?');
                } else {
                    values.append("CAST(? AS ").append(cast).append(')');
                }
            }
            values.append(')');
        }
        values.append(") AS ").append(ROWS_ALIAS).append('(').append(ORDINAL);
        for (int p = 0; p < casts.length; p++) {
            values.append(", ").append(COLUMN_PREFIX).append('p').append(p + 1);
        }
        return values.append(") ").toString();
    }

    /** A unique key (index or constraint) with a column the UPDATE sets: its columns, and whether NULLs are equal. */
    public record UniqueCheck(java.util.List<String> columns, boolean nullsNotDistinct) {}

    /** Text in the error an in-order check raises, by which the driver recognises it. */
    public static final String UNIQUE_ORDER_MARKER = "flushless: a coalesced UPDATE gives a row a unique value";

    /**
     * {@link #keyedDmlUnnest} for an UPDATE that sets a column of a unique key, made to fail (so that the batch is
     * undone and re-run as sent) unless running its rows one by one in batch order would also have succeeded.
     *
     * <p>Why: PostgreSQL checks a unique index as each row is changed, not at the end of the statement. Row by row,
     * row {@code a} fails when another row holds {@code a}'s new value at that moment. One UPDATE changes its rows in
     * join order instead, so a batch in which row {@code a} takes a value that a later row {@code b} gives up fails
     * row by row but may succeed coalesced (when {@code b}'s row happens to be changed first). The statement therefore
     * reads the old values of the rows it changes ({@code flushless_old}: all parts of one statement see the snapshot
     * before it) and fails when some row's new key equals the old key of a row later in the batch. Every other way
     * row by row could fail also fails the coalesced statement: a row that keeps a value throughout, or two rows
     * ending with one value. Requires distinct keys in the batch (one wave), so that each table row is changed by at
     * most one batch row.
     */
    public static String keyedUpdateInOrderUnnest(
            StatementDescription dml, String[] casts, boolean[] nativeArrays, java.util.List<UniqueCheck> checks) {
        return keyedUpdateInOrder(dml, "SELECT * FROM " + unnestRows(casts, nativeArrays), checks);
    }

    /** {@link #keyedUpdateInOrderUnnest} with the rows as a VALUES list of {@code rows} rows (one array of ordinals back). */
    public static String keyedUpdateInOrder(
            StatementDescription dml, int rows, String[] casts, java.util.List<UniqueCheck> checks) {
        return keyedUpdateInOrder(dml, "SELECT * FROM" + valuesRows(rows, casts), checks);
    }

    private static String keyedUpdateInOrder(
            StatementDescription dml, String rowsQuery, java.util.List<UniqueCheck> checks) {
        java.util.List<String> columns = new java.util.ArrayList<>();
        for (UniqueCheck check : checks) {
            for (String column : check.columns()) {
                if (!columns.contains(column)) {
                    columns.add(column);
                }
            }
        }
        StringBuilder values = new StringBuilder();
        for (int i = 0; i < columns.size(); i++) {
            values.append(", ")
                    .append(quote(columns.get(i)))
                    .append(" AS ")
                    .append(COLUMN_PREFIX)
                    .append('u')
                    .append(i + 1);
        }
        StringBuilder clashes = new StringBuilder();
        for (UniqueCheck check : checks) {
            clashes.append(clashes.length() > 0 ? " + " : "").append(clashingKeys(check, columns));
        }
        String target = dml.targetTable() + (dml.targetAlias() != null ? " AS " + dml.targetAlias() : "");
        return "WITH " + ROWS_ALIAS + " AS (" + rowsQuery + "),\n"
                + "flushless_old AS (SELECT " + ROWS_ALIAS + "." + ORDINAL + values + " FROM " + target + ", "
                + ROWS_ALIAS
                + " " + whereText(dml) + "),\n"
                + "flushless_dml AS (" + keyed(dml, " " + ROWS_ALIAS + " ") + values + ")\n"
                + "SELECT CASE WHEN flushless_c.n = 0 THEN flushless_a.o ELSE ARRAY[CAST('" + UNIQUE_ORDER_MARKER
                + ", keys: ' || flushless_c.n AS bigint)] END\n"
                + "FROM (SELECT CAST(array_agg(" + ORDINAL + ") AS bigint[]) AS o FROM flushless_dml) AS flushless_a,\n"
                + " (SELECT " + clashes + " AS n) AS flushless_c";
    }

    /**
     * How many values of one unique key a batch row takes ({@code flushless_dml}) before a later row gives them up
     * ({@code flushless_old}): per value, the first ordinal taking it against the last holding it, in one grouping,
     * linear whatever the plan (a join on the key ran as a quadratic nested loop). {@code =} never matches a NULL
     * part, so such rows are left out; NULLS NOT DISTINCT keys group them, as {@code IS NOT DISTINCT FROM} compares.
     */
    private static String clashingKeys(UniqueCheck check, java.util.List<String> columns) {
        StringBuilder key = new StringBuilder();
        StringBuilder notNull = new StringBuilder();
        for (String column : check.columns()) {
            String u = COLUMN_PREFIX + "u" + (columns.indexOf(column) + 1);
            key.append(key.length() > 0 ? ", " : "").append(u);
            notNull.append(notNull.length() > 0 ? " AND " : "").append(u).append(" IS NOT NULL");
        }
        return "(SELECT count(*) FROM (SELECT min(" + ORDINAL + ") FILTER (WHERE flushless_side = 1) AS flushless_m,"
                + " max(" + ORDINAL + ") FILTER (WHERE flushless_side = 2) AS flushless_x FROM (SELECT " + ORDINAL
                + ", " + key + ", 1 AS flushless_side FROM flushless_dml UNION ALL SELECT " + ORDINAL + ", " + key
                + ", 2 FROM flushless_old) AS flushless_b"
                + (check.nullsNotDistinct() ? "" : " WHERE " + notNull)
                + " GROUP BY " + key + ") AS flushless_g WHERE flushless_g.flushless_x > flushless_g.flushless_m)";
    }

    /** The WHERE clause of an UPDATE/DELETE, its parameters replaced by the rows' columns. */
    private static String whereText(StatementDescription dml) {
        String sql = dml.sql();
        StringBuilder out = new StringBuilder();
        int position = dml.whereStart();
        for (int parameter = 0; parameter < dml.parameterCount(); parameter++) {
            if (dml.parameterOffset(parameter) >= dml.whereStart()) {
                out.append(sql, position, dml.parameterOffset(parameter)).append(column(parameter));
                position = dml.parameterOffset(parameter) + 1;
            }
        }
        return out.append(sql, position, dml.textEnd()).toString();
    }

    /**
     * A keyed UPDATE of {@code rows} rows joined to a VALUES list, without RETURNING: a member of a flush's CTE chain
     * ({@link #insertChain} adds {@code RETURNING 1} and checks its count).
     */
    public static String keyedMember(StatementDescription dml, int rows, String[] casts) {
        return RewriteMemo.text(
                () -> keyedWithoutReturning(dml, valuesRows(rows, casts)), "keyedMember", dml, rows, casts);
    }

    /** {@link #keyedMember} joined to unnested arrays (one SQL text for any row count). */
    public static String keyedMemberUnnest(StatementDescription dml, String[] casts, boolean[] nativeArrays) {
        return RewriteMemo.text(
                () -> keyedWithoutReturning(dml, " " + unnestRows(casts, nativeArrays) + " "),
                "keyedMemberUnnest",
                dml,
                casts,
                nativeArrays);
    }

    private static String keyedWithoutReturning(StatementDescription dml, String rowsTable) {
        String sql = keyed(dml, rowsTable);
        return sql.substring(0, sql.lastIndexOf(" RETURNING "));
    }

    /** UPDATE ... FROM rows / DELETE ... USING rows, parameters replaced by the rows' columns, RETURNING ordinals. */
    private static String keyed(StatementDescription dml, String rowsTable) {
        String sql = dml.sql();
        int parameters = dml.parameterCount();
        StringBuilder out = new StringBuilder(sql.length() + rowsTable.length() + parameters * 24 + 64);
        int position = 0;
        int parameter = 0;
        for (; parameter < parameters && dml.parameterOffset(parameter) < dml.whereStart(); parameter++) {
            out.append(sql, position, dml.parameterOffset(parameter)).append(column(parameter));
            position = dml.parameterOffset(parameter) + 1;
        }
        out.append(sql, position, dml.whereStart());
        out.append(dml.kind() == StatementDescription.Kind.UPDATE ? " FROM" : " USING")
                .append(rowsTable);
        position = dml.whereStart();
        for (; parameter < parameters; parameter++) {
            out.append(sql, position, dml.parameterOffset(parameter)).append(column(parameter));
            position = dml.parameterOffset(parameter) + 1;
        }
        out.append(sql, position, dml.textEnd());
        out.append(" RETURNING ").append(ROWS_ALIAS).append('.').append(ORDINAL);
        return out.toString();
    }

    /** What the anti-join forms of {@code INSERT ... ON CONFLICT} need besides the statement. */
    public record AntiJoin(
            String[] casts, boolean[] nativeArrays, String[] columnTypes, int[] keyParameters, String[] keyColumns) {}

    /** Text in the error an anti-join statement raises when its INSERT wrote other rows than it found missing. */
    public static final String ANTI_JOIN_CHECK_MARKER = COUNT_CHECK_MARKER + " an anti-join INSERT";

    /**
     * {@code INSERT ... VALUES (?, ..) ON CONFLICT (keys) DO NOTHING} for any number of rows as one statement that
     * reads the existing keys first and inserts the other rows, without ON CONFLICT:
     *
     * <pre>
     * WITH flushless_v AS (rows unnested WITH ORDINALITY),
     *      flushless_c AS (each value coerced to its column's type: the keys as the table stores them),
     *      flushless_e AS (SELECT keys FROM t WHERE keys IN (SELECT keys FROM flushless_c)),
     *      flushless_n AS (rows numbered per key, in batch order),
     *      flushless_new AS (rows with a NULL key, or the first row of a key not in flushless_e),
     *      flushless_ins AS (INSERT INTO t (..) SELECT .. FROM flushless_new ORDER BY flushless_ord RETURNING 1)
     * SELECT the ordinals of flushless_new (count-checked against flushless_ins)
     * </pre>
     *
     * As sequential execution: a key repeated in the batch is inserted by its first row only, a NULL key never
     * conflicts. The result is one row: the array of the 1-based ordinals of the rows inserted.
     */
    public static String antiJoinDoNothing(StatementDescription insert, AntiJoin form) {
        StringBuilder out = antiJoinRows(insert, form);
        String keys = coercedKeys(form, "");
        out.append(",\nflushless_n AS (SELECT flushless_c.*, row_number() OVER (PARTITION BY ")
                .append(keys)
                .append(" ORDER BY ")
                .append(ORDINAL)
                .append(") AS flushless_rn FROM flushless_c)");
        out.append(",\nflushless_new AS (SELECT * FROM flushless_n n WHERE ")
                .append(anyKeyNull(form, "n."))
                .append(" OR n.flushless_rn = 1 AND NOT ")
                .append(existing(form, "n."))
                .append(')');
        return finishAntiJoin(insert, form, out, "SELECT " + ORDINAL + " FROM flushless_new");
    }

    /**
     * {@code INSERT ... ON CONFLICT (keys) DO UPDATE SET .. [WHERE ..]} for rows whose keys are distinct (or NULL)
     * as one statement: the existing rows are updated ({@code UPDATE t SET .. FROM rows WHERE keys match [AND
     * condition]}), the missing ones inserted; both see the table as it was before the statement, so a row is
     * either updated or inserted, as by ON CONFLICT. {@code set} and {@code where} are the action's SET list and
     * condition with every {@code EXCLUDED.column} already replaced by {@link #excludedColumn}; their parameters
     * stay and are bound after the arrays. The result is one row: the array of the ordinals of the rows updated or
     * inserted (a row whose condition is false is neither).
     */
    public static String antiJoinDoUpdate(StatementDescription insert, AntiJoin form, String set, String where) {
        StringBuilder out = antiJoinRows(insert, form);
        out.append(",\nflushless_up AS (UPDATE ").append(insert.targetTable());
        if (insert.targetAlias() != null) {
            out.append(" AS ").append(insert.targetAlias());
        }
        out.append(" SET ").append(set).append(" FROM flushless_c WHERE ");
        for (int k = 0; k < form.keyColumns().length; k++) {
            out.append(k > 0 ? " AND " : "")
                    .append(quote(form.keyColumns()[k]))
                    .append(" = flushless_c.")
                    .append(coerced(form.keyParameters()[k]));
        }
        if (where != null) {
            out.append(" AND (").append(where).append(')');
        }
        out.append(" RETURNING flushless_c.").append(ORDINAL).append(')');
        out.append(",\nflushless_new AS (SELECT * FROM flushless_c n WHERE NOT ")
                .append(existing(form, "n."))
                .append(')');
        String keys = coercedKeys(form, "");
        // Keys must be distinct within the statement (the planner puts a repeated key in a later statement): a row
        // changed twice by one UPDATE keeps one change silently. Checked here too, so a mismatch fails rather than
        // lies.
        String distinct = "NOT EXISTS (SELECT 1 FROM flushless_c WHERE NOT (" + anyKeyNull(form, "") + ") GROUP BY "
                + keys + " HAVING count(*) > 1)";
        return finishAntiJoin(
                insert,
                form,
                out,
                "SELECT " + ORDINAL + " FROM flushless_up UNION ALL SELECT " + ORDINAL + " FROM flushless_new",
                distinct);
    }

    /** What replaces {@code EXCLUDED.column} for the column filled by parameter {@code parameter} (0-based). */
    public static String excludedColumn(int parameter) {
        return "flushless_c." + coerced(parameter);
    }

    private static StringBuilder antiJoinRows(StatementDescription insert, AntiJoin form) {
        String[] casts = form.casts();
        StringBuilder out = new StringBuilder(512)
                .append("WITH ")
                .append(ROWS_ALIAS)
                .append(" AS (SELECT * FROM ")
                .append(unnestRows(casts, form.nativeArrays()))
                .append(')');
        out.append(",\nflushless_c AS (SELECT ").append(ROWS_ALIAS).append(".*");
        for (int p = 0; p < casts.length; p++) {
            out.append(", CAST(")
                    .append(ROWS_ALIAS)
                    .append('.')
                    .append(COLUMN_PREFIX)
                    .append('p')
                    .append(p + 1)
                    .append(" AS ")
                    .append(form.columnTypes()[p])
                    .append(") AS ")
                    .append(coerced(p));
        }
        out.append(" FROM ").append(ROWS_ALIAS).append(')');
        // The existing keys, read in one go (YugabyteDB: batched index lookups, before anything is written).
        StringBuilder keyColumns = new StringBuilder();
        for (int k = 0; k < form.keyColumns().length; k++) {
            keyColumns.append(k > 0 ? ", " : "").append(quote(form.keyColumns()[k]));
        }
        boolean composite = form.keyColumns().length > 1;
        out.append(",\nflushless_e AS (SELECT ")
                .append(keyColumns)
                .append(" FROM ")
                .append(insert.targetTable())
                .append(" WHERE ")
                .append(composite ? "(" : "")
                .append(keyColumns)
                .append(composite ? ")" : "")
                .append(" IN (SELECT ")
                .append(coercedKeys(form, ""))
                .append(" FROM flushless_c))");
        return out;
    }

    private static String finishAntiJoin(
            StatementDescription insert, AntiJoin form, StringBuilder out, String ordinals) {
        return finishAntiJoin(insert, form, out, ordinals, null);
    }

    private static String finishAntiJoin(
            StatementDescription insert, AntiJoin form, StringBuilder out, String ordinals, String extraCheck) {
        String sql = insert.sql();
        out.append(",\nflushless_ins AS (").append(sql, 0, insert.valuesStart()).append("SELECT ");
        for (int p = 0; p < form.casts().length; p++) {
            out.append(p > 0 ? ", " : "").append(COLUMN_PREFIX).append('p').append(p + 1);
        }
        out.append(" FROM flushless_new ORDER BY ").append(ORDINAL).append("\nRETURNING 1)");
        out.append("\nSELECT CASE WHEN (SELECT count(*) FROM flushless_ins) = (SELECT count(*) FROM flushless_new)");
        if (extraCheck != null) {
            out.append(" AND ").append(extraCheck);
        }
        out.append(" THEN (SELECT array_agg(flushless_o) FROM (")
                .append(ordinals)
                .append(") AS flushless_x(flushless_o))")
                .append(" ELSE CAST('")
                .append(ANTI_JOIN_CHECK_MARKER)
                .append(" differ from the rows it found missing: '")
                .append(" || (SELECT count(*) FROM flushless_ins) AS bigint[]) END");
        return out.toString();
    }

    /** True for a row of {@code qualifier} whose (coerced) key is among the existing keys. */
    private static String existing(AntiJoin form, String qualifier) {
        StringBuilder out = new StringBuilder("EXISTS (SELECT 1 FROM flushless_e e WHERE ");
        for (int k = 0; k < form.keyColumns().length; k++) {
            out.append(k > 0 ? " AND " : "")
                    .append("e.")
                    .append(quote(form.keyColumns()[k]))
                    .append(" = ")
                    .append(qualifier)
                    .append(coerced(form.keyParameters()[k]));
        }
        return out.append(')').toString();
    }

    private static String coercedKeys(AntiJoin form, String qualifier) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < form.keyParameters().length; k++) {
            out.append(k > 0 ? ", " : "").append(qualifier).append(coerced(form.keyParameters()[k]));
        }
        return out.toString();
    }

    private static String anyKeyNull(AntiJoin form, String qualifier) {
        StringBuilder out = new StringBuilder();
        for (int k = 0; k < form.keyParameters().length; k++) {
            out.append(k > 0 ? " OR " : "")
                    .append(qualifier)
                    .append(coerced(form.keyParameters()[k]))
                    .append(" IS NULL");
        }
        return out.toString();
    }

    private static String coerced(int parameter) {
        return COLUMN_PREFIX + "c" + (parameter + 1);
    }

    private static String quote(String identifier) {
        return '"' + identifier.replace("\"", "\"\"") + '"';
    }

    private static String column(int parameter) {
        return ROWS_ALIAS + "." + COLUMN_PREFIX + "p" + (parameter + 1);
    }
}
