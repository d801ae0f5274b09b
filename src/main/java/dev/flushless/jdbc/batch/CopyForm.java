package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A plain INSERT batch as {@code COPY table (columns) FROM STDIN} in text format: the server writes COPY's rows with
 * its multi-insert path (heap pages and WAL per batch of rows, no statement per row to parse and plan), so the same rows
 * cost it about a third less than a multi-row INSERT. Pure: rows in, the COPY text and its data out.
 *
 * <p>COPY parses each value with its column type's input function, where the INSERT's bound parameter is read as the
 * type pgjdbc declared for it and then assigned to the column. The form is used only where the two provably store the
 * same value, or both fail ({@link #field}): the declared type is unspecified (the server then parses pgjdbc's text with
 * the column's input function, as COPY does), or is the column's own type, or one whose assignment to the column's type
 * gives what the input function gives for the text sent ({@link #assignable}, {@link #converted}). A value or a pair of
 * types outside these keeps the INSERT forms for the whole batch. Also:
 * <ul>
 *   <li>the INSERT names its columns, its VALUES tuple is parameters only, every one set, and it has no OVERRIDING
 *       clause, no ON CONFLICT and no RETURNING;</li>
 *   <li>the table is a plain or partitioned table without triggers, rules or row-level security, whatever
 *       {@code flushless.trustTriggers} says (COPY ignores rules, rejects row-level security and fires statement
 *       triggers once), none of its partitions is a foreign table, and the columns named are neither identity columns
 *       GENERATED ALWAYS (an INSERT fails there with 428C9, COPY would store the value) nor generated columns;</li>
 *   <li>a string holding NUL (which PostgreSQL rejects in text, with another error in each form) keeps the INSERT
 *       forms, so the error is pgjdbc's own; tab, newline, carriage return and backslash are escaped.</li>
 * </ul>
 * The rest is the INSERT batch's: one count per row (COPY's count is checked), sequences and defaults drawn per row in
 * row order, foreign keys checked at the end of the statement (the same rule as a coalesced INSERT,
 * {@link ForeignKeyOrder}), a failure undone and the batch re-run as sent ({@link CopyExecutor}).
 *
 * @param sql the {@code COPY ... FROM STDIN} statement
 * @param data the rows in COPY's text format, UTF-8 (pgjdbc's client encoding)
 * @param rows the number of rows
 * @param table the table as the INSERT names it (for the lock {@link CopyExecutor} takes before COPY)
 * @param tableOid the table's OID when its facts were read
 * @param columns the columns filled, as the catalog names them
 * @param columnTypes their type OIDs when the facts were read
 */
public record CopyForm(
        String sql, byte[] data, int rows, String table, long tableOid, List<String> columns, int[] columnTypes) {

    /** The COPY form of {@code rows} of {@code insert}, or {@code null} with the reason in {@code why[0]}. */
    public static CopyForm of(
            StatementDescription insert, List<Bind[]> rows, TableInfo table, SessionFacts session, String[] why) {
        String problem = shapeProblem(insert, table, session);
        if (problem != null) {
            why[0] = problem;
            return null;
        }
        List<String> names = Casts.targetColumns(insert, table);
        ColumnInfo[] targets = new ColumnInfo[names.size()];
        for (int p = 0; p < targets.length; p++) {
            targets[p] = table.column(names.get(p));
        }
        StringBuilder text = new StringBuilder(rows.size() * targets.length * 12);
        for (Bind[] row : rows) {
            for (int p = 0; p < targets.length; p++) {
                if (p > 0) {
                    text.append('\t');
                }
                if (!field(row[p], targets[p], session, text)) {
                    why[0] =
                            "parameter " + (p + 1) + " (" + row[p].sentType(session) + ") into " + targets[p].typeName()
                                    + ": COPY's input function could store another value than the INSERT's assignment";
                    return null;
                }
            }
            text.append('\n');
        }
        StringBuilder sql =
                new StringBuilder("COPY ").append(insert.targetTable()).append(" (");
        List<String> columns = new java.util.ArrayList<>(targets.length);
        int[] types = new int[targets.length];
        for (int p = 0; p < targets.length; p++) {
            sql.append(p > 0 ? ", " : "").append(quoted(targets[p].name()));
            columns.add(targets[p].name());
            types[p] = targets[p].typeOid();
        }
        sql.append(") FROM STDIN");
        return new CopyForm(
                sql.toString(),
                text.toString().getBytes(StandardCharsets.UTF_8),
                rows.size(),
                insert.targetTable(),
                table.oid(),
                List.copyOf(columns),
                types);
    }

    /** Why the statement or table cannot take the COPY form, whatever the values; {@code null} when it can. */
    static String shapeProblem(StatementDescription insert, TableInfo table, SessionFacts session) {
        if (insert.kind() != StatementDescription.Kind.INSERT
                || !insert.isCoalescable()
                || insert.onConflict() != StatementDescription.OnConflict.NONE
                || insert.hasReturning()) {
            return "not a plain INSERT ... VALUES";
        }
        List<String> columns = Casts.targetColumns(insert, table);
        if (columns == null) {
            return "the INSERT's VALUES are not all parameters, in the order of its columns";
        }
        if (insert.sql()
                .substring(0, insert.valuesStart())
                .toLowerCase(Locale.ROOT)
                .contains("overriding")) {
            return "the INSERT has an OVERRIDING clause (COPY stores the values given for identity columns)";
        }
        if (!session.known()) {
            return "the connection is not pgjdbc";
        }
        if (table.kindProblem() != null || table.userCode() != null) {
            return "the table is not a plain table without triggers, rules or row-level security";
        }
        for (String column : columns) {
            if (!table.copyable(column)) {
                return "column " + column + " is an identity column GENERATED ALWAYS or a generated column, or a"
                        + " partition of the table is a foreign table";
            }
        }
        return null;
    }

    /**
     * Appends the COPY text of {@code bind} for {@code column}: pgjdbc's own text of the value ({@link ArrayEncoding}),
     * converted where the assignment from the declared type changes it ({@link #converted}); false when COPY could
     * store another value than the INSERT, or fail otherwise.
     */
    static boolean field(Bind bind, ColumnInfo column, SessionFacts session, StringBuilder out) {
        SentType sent = bind.sentType(session);
        if (sent.isUnknown() || !sent.isUnspecified() && !assignable(sent.oid(), column.typeOid())) {
            return false;
        }
        switch (bind.setter) {
            case SHORT, BYTE, INT, LONG -> {
                out.append(((Number) bind.value).longValue()); // the integer's decimal text: nothing to escape
                return true;
            }
            default -> {}
        }
        Object text = ArrayEncoding.text(bind, session);
        if (text == ArrayEncoding.UNSUPPORTED) {
            return false;
        }
        if (text == null) {
            out.append("\\N");
            return true;
        }
        String value = sent.isUnspecified() || sent.oid() == column.typeOid()
                ? (String) text
                : converted((String) text, sent.oid(), column.typeOid());
        if (value == null || value.indexOf('\0') >= 0) {
            return false;
        }
        escape(value, out);
        return true;
    }

    /**
     * The text whose parse by the input function of {@code target} gives what the server's assignment of
     * {@code text}, read as {@code sent}, to {@code target} gives ({@code null}: none). Only the floating-point
     * conversions differ from the text itself: {@code float8_numeric} and {@code float4_numeric} keep 15 and 6
     * significant digits, and a float4 widened to float8 keeps the float4's exact value.
     */
    static String converted(String text, int sent, int target) {
        if (sent == SentType.FLOAT8 && target == SentType.NUMERIC) {
            String shortText = shortDecimal(text, 15);
            return shortText != null ? shortText : float8Numeric(Double.parseDouble(text));
        }
        if (sent == SentType.FLOAT4 && target == SentType.NUMERIC) {
            String shortText = shortDecimal(text, 6);
            return shortText != null ? shortText : float4Numeric(Float.parseFloat(text));
        }
        if (sent == SentType.FLOAT4 && target == SentType.FLOAT8) {
            float f = Float.parseFloat(text);
            return Float.isFinite(f) ? Double.toString(f) : text;
        }
        return text;
    }

    /**
     * Whether a value declared as {@code sent} and assigned to a column of type {@code target} is what the column's input
     * function makes of its text ({@link #converted}): the same type, or a cast that converts exactly as parsing the
     * text does (integers and numeric into integers, numeric and floating point; a float into numeric with the digits
     * the server keeps; varchar and text into the character types, whose length rules are the input functions'). Anything
     * else keeps the INSERT forms: an INSERT may fail where COPY stores a value (text into an integer: there is no
     * assignment cast), or store another text (a float into a text column: the server's output function writes it, not
     * pgjdbc).
     */
    static boolean assignable(int sent, int target) {
        if (sent == target) {
            return true;
        }
        switch (sent) {
            case SentType.INT2:
            case SentType.INT4:
            case SentType.INT8:
                return target == SentType.INT2
                        || target == SentType.INT4
                        || target == SentType.INT8
                        || target == SentType.NUMERIC
                        || target == SentType.FLOAT8
                        || target == SentType.FLOAT4;
            case SentType.FLOAT8:
                return target == SentType.NUMERIC;
            case SentType.FLOAT4:
                return target == SentType.NUMERIC || target == SentType.FLOAT8;
            case SentType.NUMERIC:
                return target == SentType.FLOAT8 || target == SentType.FLOAT4;
            case SentType.VARCHAR:
            case SentType.TEXT:
                return target == SentType.TEXT || target == SentType.VARCHAR || target == SentType.BPCHAR;
            default:
                return false;
        }
    }

    /**
     * What PostgreSQL's {@code float8_numeric} makes of {@code d} before the column's type modifier applies: the double
     * printed with 15 significant digits ({@code DBL_DIG}, {@code %.15g}) and read back as numeric. {@code NaN} stays
     * NaN; infinities return {@code null} (numeric holds them only from PostgreSQL 14, and a constrained numeric never).
     */
    static String float8Numeric(double d) {
        return roundedNumeric(d, 15);
    }

    /**
     * {@link #float8Numeric} (or {@link #float4Numeric}) without arithmetic, for the usual value: when the decimal
     * {@code text} that reads as the float has at most {@code digits} significant digits, the float's exact value lies
     * within half a unit of its last place of that decimal, far less than half a step of the {@code digits}-digit grid
     * the server rounds it to, so the server's rounding gives that decimal back. Returns it with the trailing zeros of
     * its fraction dropped (as {@code %g} drops them: the numeric's scale follows), or {@code null} when it has more
     * digits, or is not a plain decimal ({@code NaN}, {@code Infinity}).
     */
    static String shortDecimal(String text, int digits) {
        int exponent = text.indexOf('E');
        int end = exponent < 0 ? text.length() : exponent;
        int first = -1;
        int last = -1;
        int point = -1;
        for (int i = 0; i < end; i++) {
            char c = text.charAt(i);
            if (c >= '1' && c <= '9') {
                first = first < 0 ? i : first;
                last = i;
            } else if (c == '.') {
                point = i;
            } else if (c != '0' && !(c == '-' && i == 0)) {
                return null;
            }
        }
        if (first < 0) {
            return "0";
        }
        int significant = last - first + 1 - (point > first && point < last ? 1 : 0);
        if (significant > digits) {
            return null;
        }
        if (point < 0 || last > point) {
            return end == text.length() && (point < 0 || last == end - 1)
                    ? text
                    : text.substring(0, Math.max(last + 1, point < 0 ? end : point)) + text.substring(end);
        }
        return text.substring(0, point) + text.substring(end); // an integer: "100.0", "1.0E10"
    }

    /** As {@link #float8Numeric} for {@code float4_numeric}: 6 significant digits ({@code FLT_DIG}). */
    static String float4Numeric(float f) {
        return roundedNumeric(f, 6);
    }

    private static String roundedNumeric(double d, int digits) {
        if (Double.isNaN(d)) {
            return "NaN";
        }
        if (Double.isInfinite(d)) {
            return null;
        }
        if (d == 0) {
            return "0";
        }
        // BigDecimal(double) is the double's exact value: rounding it half-even to the digits is what a correctly
        // rounding printf does, and %g drops trailing zeros (the numeric's scale follows the digits printed)
        return new BigDecimal(d)
                .round(new MathContext(digits, RoundingMode.HALF_EVEN))
                .stripTrailingZeros()
                .toPlainString();
    }

    /** COPY's text escapes: backslash, and the row and field delimiters. */
    static void escape(String text, StringBuilder out) {
        int i = 0;
        while (i < text.length() && !special(text.charAt(i))) {
            i++;
        }
        if (i == text.length()) {
            out.append(text); // the usual value: nothing to escape
            return;
        }
        out.append(text, 0, i);
        for (; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> out.append(c);
            }
        }
    }

    private static boolean special(char c) {
        return c == '\\' || c == '\n' || c == '\r' || c == '\t';
    }

    /** A column name as an identifier in the COPY statement (always quoted: the catalog gives it as stored). */
    private static String quoted(String name) {
        return '"' + name.replace("\"", "\"\"") + '"';
    }
}
