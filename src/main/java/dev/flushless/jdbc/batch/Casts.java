package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The type each parameter of a rewritten statement is cast to, so that it keeps the type the original
 * statement's context gave it, and the arrays that carry parameter values in the unnest forms (one array per
 * parameter, integers where they can, else the texts pgjdbc would send). Pure.
 */
final class Casts {

    private Casts() {}

    /**
     * The array casts of an INSERT whose tuple is all parameters (the type each parameter gets from its
     * column, as {@link #decideCast} decides it), or {@code null} when the VALUES form must be used.
     */
    static String[] insertCasts(StatementDescription insert, List<Bind[]> rows, TableInfo table, SessionFacts session) {
        List<String> columns = targetColumns(insert, table);
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
     * The column each parameter fills, in parameter order: those the INSERT names, or, for an INSERT without a column
     * list whose VALUES tuple is {@code (?, ?, ...)} (BenchBase's loaders write theirs so), the table's first columns in
     * their order, as PostgreSQL assigns such a tuple; {@code null} for any other shape. The order is known only from
     * facts read from the catalog (ordered by {@code attnum}, dropped columns left out), which also tell which columns
     * COPY may fill ({@link TableInfo#notCopyable} is set then; the explain tool's offline catalog and tests leave it
     * {@code null}). The unnest form keeps the INSERT without a column list ({@code INSERT INTO t SELECT ...} fills the
     * same first columns); COPY names them.
     */
    static List<String> targetColumns(StatementDescription insert, TableInfo table) {
        if (insert.parameterColumns() != null) {
            return insert.parameterColumns();
        }
        int n = insert.parameterCount();
        if (!insert.positionalTuple()
                || insert.rowParameterCount() != n
                || n > table.columns().size()
                || table.notCopyable() == null) {
            return null;
        }
        return List.copyOf(table.columns().keySet()).subList(0, n);
    }

    /**
     * Chooses the cast for parameter {@code p} in the VALUES list, so that it has the type the original
     * statement's context would give it: an unspecified parameter takes the column's type there, and a
     * typed one keeps its type (and is compared or assigned with the same operators and casts).
     */
    static Fallback decideCast(int p, ColumnInfo column, List<Bind[]> rows, SessionFacts session, String[] casts) {
        Set<SentType> sent = sentTypes(p, rows, session);
        if (sent.contains(SentType.UNKNOWN)) {
            return FallbackReason.SETTER_TYPE_NOT_MODELLED.because(p + 1);
        }
        String columnCast = castableName(column);
        boolean allColumnTyped = true;
        for (SentType type : sent) {
            allColumnTyped &= type.isUnspecified() || type.oid() == column.typeOid();
        }
        if (allColumnTyped) {
            if (columnCast == null) {
                return FallbackReason.TYPE_NOT_NAMEABLE.because(p + 1, column.typeName());
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
        return FallbackReason.MIXED_TYPES.because(
                "parameter " + (p + 1) + ": rows bind it with different types " + sent);
    }

    /**
     * The cast for a parameter inside an expression ({@code stock + ?}): its type there comes from the
     * operator, which this driver does not model for an untyped parameter, so every row must declare the
     * same type, and the VALUES list keeps it.
     */
    static Fallback decideTypedCast(int p, List<Bind[]> rows, SessionFacts session, String[] casts) {
        Set<SentType> sent = sentTypes(p, rows, session);
        SentType only = sent.size() == 1 ? sent.iterator().next() : null;
        if (only == null || only.isUnknown() || only.isUnspecified() || only.sqlName() == null) {
            return FallbackReason.MIXED_TYPES.because(
                    "parameter " + (p + 1) + " inside an expression is bound untyped or with different types " + sent);
        }
        casts[p] = only.sqlName();
        return null;
    }

    /** The types pgjdbc sends parameter {@code p} with, over all rows, in order of first appearance. */
    private static Set<SentType> sentTypes(int p, List<Bind[]> rows, SessionFacts session) {
        SentType first = rows.get(0)[p].sentType(session);
        int r = 1;
        while (r < rows.size() && rows.get(r)[p].sentType(session).equals(first)) {
            r++; // the usual batch: one type in every row, no set to fill
        }
        if (r == rows.size()) {
            return Set.of(first);
        }
        Set<SentType> sent = new LinkedHashSet<>();
        sent.add(first);
        for (; r < rows.size(); r++) {
            sent.add(rows.get(r)[p].sentType(session));
        }
        return sent;
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
     * Per parameter, whether it can travel as an integer array (its cast is an integer type and every row
     * binds an integer or NULL): cheaper to send and to read than text.
     */
    static boolean[] nativeArrays(List<Bind[]> rows, String[] casts) {
        boolean[] nativeArrays = new boolean[casts.length];
        for (int p = 0; p < casts.length; p++) {
            nativeArrays[p] = ArrayEncoding.integerArrayType(casts[p]) != null;
            for (int r = 0; r < rows.size() && nativeArrays[p]; r++) {
                nativeArrays[p] = ArrayEncoding.travelsNatively(rows.get(r)[p], casts[p]);
            }
        }
        return nativeArrays;
    }

    /**
     * Each parameter's values for the rows of {@code chunk} (integers where {@code nativeArrays} says so,
     * else the texts pgjdbc would send), or {@code null} when one of them is not reproduced.
     */
    static Object[][] encodeArrays(
            List<Bind[]> rows, int[] chunk, String[] casts, boolean[] nativeArrays, SessionFacts session) {
        for (String cast : casts) {
            if (cast != null && cast.endsWith("[]")) {
                // A column of an array type cannot travel one value per row: unnest() of an array of arrays yields
                // the elements, not the arrays (PostgreSQL arrays are multidimensional, not nested), so SET c = the
                // unnested value would be an element (42804 where bare pgjdbc succeeds). The VALUES form carries it.
                return null;
            }
        }
        Object[][] arrays = new Object[casts.length][];
        for (int p = 0; p < casts.length; p++) {
            arrays[p] =
                    nativeArrays[p] ? ArrayEncoding.newIntegerArray(casts[p], chunk.length) : new String[chunk.length];
        }
        for (int i = 0; i < chunk.length; i++) {
            Bind[] row = rows.get(chunk[i]);
            for (int p = 0; p < casts.length; p++) {
                if (nativeArrays[p]) {
                    arrays[p][i] = ArrayEncoding.element(arrays[p], row[p]);
                    continue;
                }
                Object value = ArrayEncoding.text(row[p], session);
                if (value == ArrayEncoding.UNSUPPORTED) {
                    return null;
                }
                arrays[p][i] = value;
            }
        }
        return arrays;
    }
}
