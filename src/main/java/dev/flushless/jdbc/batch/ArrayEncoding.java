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
     * The bind's value as an element of an array of {@code cast} ({@code null} for SQL NULL), or {@link #UNSUPPORTED}:
     * an integer for the integer casts ({@link #integer}), the double of {@code setDouble} (or of {@code setObject} of
     * a Double) for double precision.
     */
    static Object nativeValue(Bind bind, String cast) {
        if (!"double precision".equals(cast)) {
            return integer(bind);
        }
        switch (bind.setter) {
            case NULL:
                return null;
            case DOUBLE:
                return bind.value;
            case OBJECT:
                return bind.value == null ? null : bind.value instanceof Double ? bind.value : UNSUPPORTED;
            default:
                return UNSUPPORTED;
        }
    }

    static Object[] newIntegerArray(String cast, int length) {
        return (Object[]) java.lang.reflect.Array.newInstance(integerArrayType(cast), length);
    }

    /** The bind's integer value ({@code null} for SQL NULL), or {@link #UNSUPPORTED} when it binds no integer. */
    static Object integer(Bind bind) {
        switch (bind.setter) {
            case NULL:
                return null;
            case BYTE:
            case SHORT:
            case INT:
            case LONG:
                return ((Number) bind.value).longValue();
            case OBJECT:
                Object v = bind.value;
                return v == null
                        ? null
                        : v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
                                ? (Object) ((Number) v).longValue()
                                : UNSUPPORTED;
            default:
                return UNSUPPORTED;
        }
    }

    /** {@code value} as an element of {@code array} (made by {@link #newIntegerArray} for the cast). */
    static Object narrow(Object[] array, Object value) {
        if (value == null || array instanceof Double[] || array instanceof Long[]) {
            return value;
        }
        long number = (Long) value;
        return array instanceof Integer[] ? (Object) (int) number : (Object) (short) number;
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
