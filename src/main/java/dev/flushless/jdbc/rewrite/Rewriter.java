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

    private Rewriter() {
    }

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

    /** {@link #countChecked(String, int)} with the expected row count as a trailing bigint parameter. */
    public static String countChecked(String insert) {
        return countChecked(insert, "CAST(? AS bigint)");
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
        StringBuilder out = new StringBuilder("WITH ");
        for (int i = 0; i < members.size(); i++) {
            out.append(i > 0 ? ",\n" : "").append("flushless_s").append(i + 1).append(" AS (").append(members.get(i))
                    .append("\nRETURNING 1)");
        }
        StringBuilder check = new StringBuilder();
        StringBuilder counts = new StringBuilder();
        for (int i = 0; i < members.size(); i++) {
            String count = "(SELECT count(*) FROM flushless_s" + (i + 1) + ")";
            check.append(i > 0 ? " AND " : "").append(count).append(" = CAST(? AS bigint)");
            counts.append(i > 0 ? ", " : "").append(count);
        }
        return out.append("\nSELECT CASE WHEN ").append(check).append(" THEN 0 ELSE CAST('").append(COUNT_CHECK_MARKER)
                .append(" buffered INSERTs: ' || concat_ws(', ', ").append(counts).append(") AS bigint) END").toString();
    }

    /**
     * The batch's rows as a table: one {@code text[]} parameter per statement parameter, each cast to the
     * type the original statement gives that parameter, unnested side by side with their 1-based ordinal.
     */
    static String unnestRows(String[] casts, boolean[] nativeArrays) {
        StringBuilder out = new StringBuilder("unnest(");
        for (int p = 0; p < casts.length; p++) {
            if (nativeArrays != null && nativeArrays[p]) {
                out.append(p > 0 ? ", " : "").append("CAST(? AS ").append(casts[p]).append("[])");
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
    public static String insertUnnest(StatementDescription insert, String[] casts, boolean[] nativeArrays,
            String returningSuffix) {
        String sql = insert.sql();
        StringBuilder out = new StringBuilder(sql.length() + casts.length * 48 + 128);
        out.append(sql, 0, insert.valuesStart()).append("SELECT ");
        for (int p = 0; p < casts.length; p++) {
            out.append(p > 0 ? ", " : "").append(ROWS_ALIAS).append('.').append(COLUMN_PREFIX).append('p').append(p + 1);
        }
        out.append(" FROM ").append(unnestRows(casts, nativeArrays)).append(" ORDER BY ").append(ROWS_ALIAS).append('.').append(ORDINAL);
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
        return keyed(dml, values.append(") ").toString());
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
        out.append(dml.kind() == StatementDescription.Kind.UPDATE ? " FROM" : " USING").append(rowsTable);
        position = dml.whereStart();
        for (; parameter < parameters; parameter++) {
            out.append(sql, position, dml.parameterOffset(parameter)).append(column(parameter));
            position = dml.parameterOffset(parameter) + 1;
        }
        out.append(sql, position, dml.textEnd());
        out.append(" RETURNING ").append(ROWS_ALIAS).append('.').append(ORDINAL);
        return out.toString();
    }

    private static String column(int parameter) {
        return ROWS_ALIAS + "." + COLUMN_PREFIX + "p" + (parameter + 1);
    }
}
