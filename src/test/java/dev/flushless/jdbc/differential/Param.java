package dev.flushless.jdbc.differential;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.UUID;

/**
 * One parameter setter call of a generated program: which setter, with which (immutable) value. It can be
 * applied to a {@link PreparedStatement}, printed as Java, and rendered as an SQL literal (for the same value in
 * a plain {@code Statement}'s text).
 *
 * @param sqlType the {@code java.sql.Types} constant for {@code setNull} and {@code setObject(x, type)}
 */
record Param(Setter setter, Object value, int sqlType) {

    enum Setter {
        INT,
        LONG,
        SHORT,
        DOUBLE,
        BIG_DECIMAL,
        STRING,
        BOOLEAN,
        DATE,
        TIMESTAMP,
        BYTES,
        OBJECT,
        OBJECT_TYPED,
        NULL,
        ARRAY
    }

    static Param of(Setter setter, Object value) {
        return new Param(setter, value, 0);
    }

    static Param nullOf(int sqlType) {
        return new Param(Setter.NULL, null, sqlType);
    }

    static Param typed(Object value, int sqlType) {
        return new Param(Setter.OBJECT_TYPED, value, sqlType);
    }

    void applyTo(PreparedStatement ps, int index, Connection connection) throws SQLException {
        switch (setter) {
            case INT -> ps.setInt(index, (Integer) value);
            case LONG -> ps.setLong(index, (Long) value);
            case SHORT -> ps.setShort(index, (Short) value);
            case DOUBLE -> ps.setDouble(index, (Double) value);
            case BIG_DECIMAL -> ps.setBigDecimal(index, (BigDecimal) value);
            case STRING -> ps.setString(index, (String) value);
            case BOOLEAN -> ps.setBoolean(index, (Boolean) value);
            case DATE -> ps.setDate(index, java.sql.Date.valueOf((LocalDate) value));
            case TIMESTAMP -> ps.setTimestamp(index, java.sql.Timestamp.valueOf((LocalDateTime) value));
            case BYTES -> ps.setBytes(index, ((byte[]) value).clone());
            case OBJECT ->
                ps.setObject(
                        index,
                        value instanceof byte[] b
                                ? b.clone()
                                : value instanceof int[] a
                                        ? a.clone()
                                        : value instanceof Integer[] a ? a.clone() : value);
            case OBJECT_TYPED -> ps.setObject(index, value, sqlType);
            case NULL -> ps.setNull(index, sqlType);
            case ARRAY -> ps.setArray(index, connection.createArrayOf("int4", ((Integer[]) value).clone()));
            default -> throw new IllegalStateException(setter.name());
        }
    }

    /** The call as Java source, e.g. {@code ps.setInt(1, 5);}. */
    String java(int index) {
        String v = javaValue(value);
        return switch (setter) {
            case INT -> "ps.setInt(" + index + ", " + v + ");";
            case LONG -> "ps.setLong(" + index + ", " + v + "L);";
            case SHORT -> "ps.setShort(" + index + ", (short) " + v + ");";
            case DOUBLE -> "ps.setDouble(" + index + ", " + v + ");";
            case BIG_DECIMAL -> "ps.setBigDecimal(" + index + ", " + v + ");";
            case STRING -> "ps.setString(" + index + ", " + v + ");";
            case BOOLEAN -> "ps.setBoolean(" + index + ", " + v + ");";
            case DATE -> "ps.setDate(" + index + ", java.sql.Date.valueOf(\"" + value + "\"));";
            case TIMESTAMP -> "ps.setTimestamp(" + index + ", java.sql.Timestamp.valueOf(" + v + "));";
            case BYTES -> "ps.setBytes(" + index + ", " + v + ");";
            case OBJECT -> "ps.setObject(" + index + ", " + v + ");";
            case OBJECT_TYPED -> "ps.setObject(" + index + ", " + v + ", java.sql.Types." + typeName(sqlType) + ");";
            case NULL -> "ps.setNull(" + index + ", java.sql.Types." + typeName(sqlType) + ");";
            case ARRAY -> "ps.setArray(" + index + ", c.createArrayOf(\"int4\", " + v + "));";
        };
    }

    private static String javaValue(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof String s) {
            return quoteJava(s);
        }
        if (value instanceof Long l) {
            return Long.toString(l);
        }
        if (value instanceof BigDecimal d) {
            return "new java.math.BigDecimal(\"" + d.toPlainString() + "\")";
        }
        if (value instanceof LocalDate d) {
            return "java.time.LocalDate.parse(\"" + d + "\")";
        }
        if (value instanceof LocalDateTime d) {
            return "java.time.LocalDateTime.parse(\"" + d + "\")";
        }
        if (value instanceof OffsetDateTime d) {
            return "java.time.OffsetDateTime.parse(\"" + d + "\")";
        }
        if (value instanceof UUID u) {
            return "java.util.UUID.fromString(\"" + u + "\")";
        }
        if (value instanceof byte[] b) {
            StringBuilder out = new StringBuilder("new byte[] {");
            for (int i = 0; i < b.length; i++) {
                out.append(i > 0 ? ", " : "").append(b[i]);
            }
            return out.append('}').toString();
        }
        if (value instanceof int[] a) {
            return "new int[] " + Arrays.toString(a).replace('[', '{').replace(']', '}');
        }
        if (value instanceof Integer[] a) {
            return "new Integer[] " + Arrays.toString(a).replace('[', '{').replace(']', '}');
        }
        return String.valueOf(value);
    }

    static String quoteJava(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** The value as an SQL literal for a plain Statement's text. */
    String sqlLiteral() {
        return literal(value);
    }

    static String literal(Object value) {
        if (value == null) {
            return "NULL";
        }
        if (value instanceof Number || value instanceof Boolean) {
            return value instanceof BigDecimal d ? d.toPlainString() : value.toString();
        }
        if (value instanceof byte[] b) {
            return "'\\x" + HexFormat.of().formatHex(b) + "'";
        }
        if (value instanceof int[] a) {
            return quoteSql(
                    Arrays.toString(a).replace('[', '{').replace(']', '}').replace(" ", ""));
        }
        if (value instanceof Integer[] a) {
            return quoteSql(Arrays.toString(a)
                    .replace('[', '{')
                    .replace(']', '}')
                    .replace(" ", "")
                    .replace("null", "NULL"));
        }
        if (value instanceof LocalDateTime d) {
            return quoteSql(d.toString().replace('T', ' '));
        }
        return quoteSql(value.toString());
    }

    static String quoteSql(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static String typeName(int sqlType) {
        for (java.lang.reflect.Field f : Types.class.getFields()) {
            try {
                if (f.getInt(null) == sqlType) {
                    return f.getName();
                }
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return Integer.toString(sqlType);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Param p
                && p.setter == setter
                && p.sqlType == sqlType
                && Arrays.deepEquals(new Object[] {value}, new Object[] {p.value});
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(new Object[] {setter, value, sqlType});
    }

    @Override
    public String toString() {
        return java(0);
    }
}
