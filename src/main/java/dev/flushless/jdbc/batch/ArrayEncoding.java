package dev.flushless.jdbc.batch;

import java.math.BigDecimal;
import java.util.UUID;

/**
 * The text pgjdbc sends for a parameter, for the setters whose text this driver reproduces exactly, so that
 * a batch's values can travel as one {@code text[]} per parameter and be unnested on the server
 * ({@code unnest(CAST(? AS text[])::integer[], ...)}): one SQL text for any row count, and a statement that
 * is cheap to plan. Each element is converted by the target type's input function, as the server converts
 * the single parameter of the original statement. Anything else keeps the VALUES form.
 */
final class ArrayEncoding {

    /** Returned for a bind whose text is not reproduced here. */
    static final Object UNSUPPORTED = new Object();

    private ArrayEncoding() {}

    /**
     * The element text for {@code bind} ({@code null} for SQL NULL), or {@link #UNSUPPORTED}. Timestamps and dates
     * (sent as text) are written by the connection's own {@code TimestampUtils} ({@code session}), as pgjdbc writes
     * them.
     */
    static Object text(Bind bind, dev.flushless.jdbc.session.SessionFacts session) {
        Object value = bind.value;
        switch (bind.setter) {
            case TIMESTAMP:
                return value == null
                        ? null
                        : value instanceof org.postgresql.util.PGTimestamp
                                ? UNSUPPORTED
                                : session.timestampText((java.sql.Timestamp) value, (java.util.Calendar) bind.extra);
            case DATE:
                return value == null
                        ? null
                        : session.binaryDate()
                                ? UNSUPPORTED
                                : session.dateText((java.sql.Date) value, (java.util.Calendar) bind.extra);
            case NULL:
                return null;
            case BOOLEAN:
                return (Boolean) value ? "true" : "false";
            case BYTE:
            case SHORT:
            case INT:
            case LONG:
                return value.toString();
            case FLOAT:
            case DOUBLE:
                return value.toString(); // Float/Double.toString is what pgjdbc sends in text mode; binary is the same
            // value
            case BIG_DECIMAL:
                return value == null ? null : value.toString();
            case STRING:
            case NSTRING:
                return value;
            case BYTES:
                return value == null ? null : hex((byte[]) value);
            case OBJECT:
                return objectText(value);
            default:
                return UNSUPPORTED;
        }
    }

    /**
     * The array element class for a cast type whose values travel as a binary array (integers, and double precision:
     * pgjdbc sends a {@code Double[]} as float8[] in binary, the same values as the binary float8 parameters of the
     * statement), or {@code null} for other types.
     */
    static Class<?> integerArrayType(String cast) {
        switch (cast) {
            case "integer":
                return Integer.class;
            case "bigint":
                return Long.class;
            case "smallint":
                return Short.class;
            case "double precision":
                return Double.class;
            default:
                return null;
        }
    }

    /**
     * Whether {@code bind} can be an element of the binary array of {@code cast} ({@link #integerArrayType}): SQL NULL,
     * an integer setter (or {@code setObject} of an integer box) for the integer casts, {@code setDouble} (or
     * {@code setObject} of a Double) for double precision. Allocates nothing: it is asked of every row.
     */
    static boolean travelsNatively(Bind bind, String cast) {
        Object v = bind.value;
        if (bind.setter == Bind.Setter.NULL) {
            return true;
        }
        if ("double precision".equals(cast)) {
            return bind.setter == Bind.Setter.DOUBLE
                    || bind.setter == Bind.Setter.OBJECT && (v == null || v instanceof Double);
        }
        switch (bind.setter) {
            case BYTE:
            case SHORT:
            case INT:
            case LONG:
                return true;
            case OBJECT:
                return v == null
                        || v instanceof Integer
                        || v instanceof Long
                        || v instanceof Short
                        || v instanceof Byte;
            default:
                return false;
        }
    }

    static Object[] newIntegerArray(String cast, int length) {
        Class<?> type = integerArrayType(cast);
        return type == Integer.class
                ? new Integer[length]
                : type == Long.class
                        ? new Long[length]
                        : type == Short.class ? new Short[length] : new Double[length]; // no reflection per batch
    }

    /**
     * The value of {@code bind} (one {@link #travelsNatively} accepts) as an element of {@code array} (made by
     * {@link #newIntegerArray}), {@code null} for SQL NULL: the recorded box itself where it is of the element's class.
     * Narrowing loses nothing: an integer cast narrower than a bind's own type is never chosen, since a parameter
     * bound with a type other than its column's gets its bound type as the cast ({@code Casts.decideCast}), so a
     * {@code setLong} into an int column travels as bigint and the server's assignment cast raises 22003 as for bare
     * pgjdbc.
     */
    static Object element(Object[] array, Bind bind) {
        Object v = bind.value;
        if (v == null || array instanceof Double[]) {
            return v;
        }
        Number number = (Number) v;
        if (array instanceof Long[]) {
            return v instanceof Long ? v : (Object) number.longValue();
        }
        if (array instanceof Integer[]) {
            return v instanceof Integer ? v : (Object) number.intValue();
        }
        return v instanceof Short ? v : (Object) number.shortValue();
    }

    private static Object objectText(Object value) {
        if (value == null) {
            return null;
        }
        if (value instanceof String
                || value instanceof Integer
                || value instanceof Long
                || value instanceof Short
                || value instanceof Byte
                || value instanceof BigDecimal
                || value instanceof UUID
                || value instanceof Double
                || value instanceof Float) {
            return value.toString();
        }
        if (value instanceof Boolean b) {
            return b ? "true" : "false";
        }
        if (value instanceof byte[] bytes) {
            return hex(bytes);
        }
        return UNSUPPORTED;
    }

    private static String hex(byte[] bytes) {
        StringBuilder text = new StringBuilder(2 + bytes.length * 2).append("\\x");
        for (byte b : bytes) {
            text.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
        }
        return text.toString();
    }
}
