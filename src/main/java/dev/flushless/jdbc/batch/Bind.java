package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.session.SessionFacts;
import java.math.BigDecimal;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.SQLType;
import java.sql.Time;
import java.sql.Timestamp;
import java.util.Calendar;
import java.util.UUID;

/**
 * One recorded parameter setter call ({@code setInt(3, 42)} and the like) that can be applied again, to
 * the coalesced statement or, on a fallback, to the application's own pgjdbc statement. Mutable values
 * (byte arrays, timestamps, calendars) are copied when recorded, because pgjdbc converts them at set time
 * and the application may change them afterwards.
 */
public final class Bind {

    /** Which setter was called. */
    enum Setter {
        NULL,
        NULL_TYPENAME,
        BOOLEAN,
        BYTE,
        SHORT,
        INT,
        LONG,
        FLOAT,
        DOUBLE,
        BIG_DECIMAL,
        STRING,
        NSTRING,
        BYTES,
        DATE,
        TIME,
        TIMESTAMP,
        OBJECT,
        OBJECT_TYPED,
        OBJECT_TYPED_SCALE,
        OBJECT_SQLTYPE,
        OBJECT_SQLTYPE_SCALE,
        ARRAY,
        URL
    }

    final Setter setter;
    final Object value;
    final Object extra;
    final int number;

    private Bind(Setter setter, Object value, Object extra, int number) {
        this.setter = setter;
        this.value = value;
        this.extra = extra;
        this.number = number;
    }

    public static Bind ofNull(int sqlType) {
        return new Bind(Setter.NULL, null, null, sqlType);
    }

    public static Bind ofNull(int sqlType, String typeName) {
        return new Bind(Setter.NULL_TYPENAME, null, typeName, sqlType);
    }

    public static Bind ofBoolean(boolean x) {
        return new Bind(Setter.BOOLEAN, x, null, 0);
    }

    public static Bind ofByte(byte x) {
        return new Bind(Setter.BYTE, x, null, 0);
    }

    public static Bind ofShort(short x) {
        return new Bind(Setter.SHORT, x, null, 0);
    }

    public static Bind ofInt(int x) {
        return new Bind(Setter.INT, x, null, 0);
    }

    public static Bind ofLong(long x) {
        return new Bind(Setter.LONG, x, null, 0);
    }

    public static Bind ofFloat(float x) {
        return new Bind(Setter.FLOAT, x, null, 0);
    }

    public static Bind ofDouble(double x) {
        return new Bind(Setter.DOUBLE, x, null, 0);
    }

    public static Bind ofBigDecimal(BigDecimal x) {
        return new Bind(Setter.BIG_DECIMAL, x, null, 0);
    }

    public static Bind ofString(String x) {
        return new Bind(Setter.STRING, x, null, 0);
    }

    public static Bind ofNString(String x) {
        return new Bind(Setter.NSTRING, x, null, 0);
    }

    public static Bind ofBytes(byte[] x) {
        return new Bind(Setter.BYTES, x == null ? null : x.clone(), null, 0);
    }

    public static Bind ofDate(Date x, Calendar calendar) {
        return new Bind(Setter.DATE, x == null ? null : new Date(x.getTime()), copy(calendar), 0);
    }

    public static Bind ofTime(Time x, Calendar calendar) {
        return new Bind(
                Setter.TIME,
                x == null || x instanceof org.postgresql.util.PGTime ? x : new Time(x.getTime()),
                copy(calendar),
                0);
    }

    public static Bind ofTimestamp(Timestamp x, Calendar calendar) {
        return new Bind(
                Setter.TIMESTAMP,
                x == null || x instanceof org.postgresql.util.PGTimestamp ? x : copy(x),
                copy(calendar),
                0);
    }

    /**
     * {@code setObject(x)}, or {@code null} when {@code x} is of a class whose value cannot be safely kept
     * for a later replay (the statement then stops recording and runs as sent).
     */
    public static Bind ofObject(Object x) {
        Object kept = keepable(x);
        return kept == UNKEEPABLE ? null : new Bind(Setter.OBJECT, kept, null, 0);
    }

    public static Bind ofObject(Object x, int targetSqlType) {
        Object kept = keepable(x);
        return kept == UNKEEPABLE ? null : new Bind(Setter.OBJECT_TYPED, kept, null, targetSqlType);
    }

    public static Bind ofObject(Object x, int targetSqlType, int scaleOrLength) {
        Object kept = keepable(x);
        return kept == UNKEEPABLE ? null : new Bind(Setter.OBJECT_TYPED_SCALE, kept, scaleOrLength, targetSqlType);
    }

    public static Bind ofObject(Object x, SQLType targetSqlType) {
        Object kept = keepable(x);
        return kept == UNKEEPABLE ? null : new Bind(Setter.OBJECT_SQLTYPE, kept, targetSqlType, 0);
    }

    public static Bind ofObject(Object x, SQLType targetSqlType, int scaleOrLength) {
        Object kept = keepable(x);
        return kept == UNKEEPABLE ? null : new Bind(Setter.OBJECT_SQLTYPE_SCALE, kept, targetSqlType, scaleOrLength);
    }

    /**
     * An array the driver built itself (a coalesced column sent as {@code text[]} or an integer array): bound
     * with {@code setObject}, never kept for a replay.
     */
    public static Bind ofEncodedArray(Object[] x) {
        return new Bind(Setter.OBJECT, x, null, 0);
    }

    public static Bind ofArray(java.sql.Array x) {
        return new Bind(Setter.ARRAY, x, null, 0);
    }

    public static Bind ofUrl(java.net.URL x) {
        return new Bind(Setter.URL, x, null, 0);
    }

    /** Calls the recorded setter on {@code statement} at {@code index}. */
    public void applyTo(PreparedStatement statement, int index) throws SQLException {
        switch (setter) {
            case NULL -> statement.setNull(index, number);
            case NULL_TYPENAME -> statement.setNull(index, number, (String) extra);
            case BOOLEAN -> statement.setBoolean(index, (Boolean) value);
            case BYTE -> statement.setByte(index, (Byte) value);
            case SHORT -> statement.setShort(index, (Short) value);
            case INT -> statement.setInt(index, (Integer) value);
            case LONG -> statement.setLong(index, (Long) value);
            case FLOAT -> statement.setFloat(index, (Float) value);
            case DOUBLE -> statement.setDouble(index, (Double) value);
            case BIG_DECIMAL -> statement.setBigDecimal(index, (BigDecimal) value);
            case STRING -> statement.setString(index, (String) value);
            case NSTRING -> statement.setNString(index, (String) value);
            case BYTES -> statement.setBytes(index, (byte[]) value);
            case DATE -> statement.setDate(index, (Date) value, (Calendar) extra);
            case TIME -> statement.setTime(index, (Time) value, (Calendar) extra);
            case TIMESTAMP -> statement.setTimestamp(index, (Timestamp) value, (Calendar) extra);
            case OBJECT -> statement.setObject(index, value);
            case OBJECT_TYPED -> statement.setObject(index, value, number);
            case OBJECT_TYPED_SCALE -> statement.setObject(index, value, number, (Integer) extra);
            case OBJECT_SQLTYPE -> statement.setObject(index, value, (SQLType) extra);
            case OBJECT_SQLTYPE_SCALE -> statement.setObject(index, value, (SQLType) extra, number);
            case ARRAY -> statement.setArray(index, (java.sql.Array) value);
            case URL -> statement.setURL(index, (java.net.URL) value);
            default -> throw new IllegalStateException(setter.name());
        }
    }

    /** Rough size of the bound value in memory, for buffer bounds. */
    public long estimatedBytes() {
        if (value instanceof String text) {
            return 40L + 2L * text.length();
        }
        if (value instanceof byte[] bytes) {
            return 24L + bytes.length;
        }
        if (value instanceof Object[] array) {
            return 24L + 16L * array.length;
        }
        return 24;
    }

    /** A value equal for two binds exactly when they call the same setter with equal arguments. */
    public Object identity() {
        Object comparable = value instanceof byte[] bytes
                ? java.nio.ByteBuffer.wrap(bytes)
                : value != null && value.getClass().isArray() ? java.util.Arrays.asList(boxed(value)) : value;
        return java.util.Arrays.asList(setter, comparable, extra, number);
    }

    private static Object[] boxed(Object array) {
        Object[] out = new Object[java.lang.reflect.Array.getLength(array)];
        for (int i = 0; i < out.length; i++) {
            out[i] = java.lang.reflect.Array.get(array, i);
        }
        return out;
    }

    /** The Java value given to the setter ({@code null} for SQL NULL). */
    public Object value() {
        return value;
    }

    /** True when this binds SQL NULL. */
    public boolean isNull() {
        return value == null;
    }

    /**
     * The type pgjdbc declares for this parameter when it sends it (mirrors {@code PgPreparedStatement}).
     *
     * @param session facts about the pgjdbc connection that change what pgjdbc sends
     */
    public SentType sentType(SessionFacts session) {
        switch (setter) {
            case NULL:
                return SentType.forNullOf(number, session);
            case BOOLEAN:
                return SentType.typed(SentType.BOOL);
            case BYTE:
            case SHORT:
                return SentType.typed(SentType.INT2);
            case INT:
                return SentType.typed(SentType.INT4);
            case LONG:
                return SentType.typed(SentType.INT8);
            case FLOAT:
                return session.binaryFloat4() ? SentType.typed(SentType.FLOAT4) : SentType.typed(SentType.FLOAT8);
            case DOUBLE:
                return SentType.typed(SentType.FLOAT8);
            case BIG_DECIMAL:
                return SentType.typed(SentType.NUMERIC);
            case STRING:
            case NSTRING:
                return session.stringVarchar() ? SentType.typed(SentType.VARCHAR) : SentType.UNSPECIFIED;
            case BYTES:
                return SentType.typed(SentType.BYTEA);
            case DATE:
                return value == null
                        ? SentType.typed(SentType.DATE)
                        : session.binaryDate() ? SentType.typed(SentType.DATE) : SentType.UNSPECIFIED;
            case TIME:
                return value instanceof org.postgresql.util.PGTime ? SentType.UNKNOWN : SentType.UNSPECIFIED;
            case TIMESTAMP:
                return value instanceof org.postgresql.util.PGTimestamp ? SentType.UNKNOWN : SentType.UNSPECIFIED;
            case OBJECT:
                return SentType.forObject(value, session);
            case OBJECT_TYPED:
            case OBJECT_TYPED_SCALE:
                return SentType.forObjectAs(value, number, session);
            default:
                return SentType.UNKNOWN;
        }
    }

    @Override
    public String toString() {
        return setter + "(" + (value instanceof byte[] b ? b.length + " bytes" : value) + ")";
    }

    private static final Object UNKEEPABLE = new Object();

    /** The value as it can be kept for a replay: immutable values as they are, known mutable ones copied. */
    private static Object keepable(Object x) {
        if (x == null
                || x instanceof String
                || x instanceof Number && isImmutableNumber(x)
                || x instanceof Boolean
                || x instanceof Character
                || x instanceof UUID
                || x instanceof java.time.temporal.TemporalAccessor
                || x instanceof java.sql.Array) {
            return x;
        }
        if (x instanceof byte[] bytes) {
            return bytes.clone();
        }
        if (x instanceof Timestamp t) {
            return t instanceof org.postgresql.util.PGTimestamp ? UNKEEPABLE : copy(t);
        }
        if (x instanceof Time t) {
            return t instanceof org.postgresql.util.PGTime ? UNKEEPABLE : new Time(t.getTime());
        }
        if (x instanceof Date d) {
            return new Date(d.getTime());
        }
        if (x instanceof org.postgresql.util.PGobject pg) {
            try {
                return pg.clone();
            } catch (CloneNotSupportedException e) {
                return UNKEEPABLE;
            }
        }
        if (x instanceof int[]
                || x instanceof long[]
                || x instanceof short[]
                || x instanceof double[]
                || x instanceof float[]
                || x instanceof boolean[]) {
            return cloneArray(x);
        }
        if (x instanceof Object[] array && array.getClass().getComponentType() != Object.class) {
            Object[] copy = array.clone();
            for (Object element : copy) {
                if (element != null && keepable(element) != element) {
                    return UNKEEPABLE;
                }
            }
            return copy;
        }
        return UNKEEPABLE;
    }

    private static boolean isImmutableNumber(Object x) {
        return x instanceof Integer
                || x instanceof Long
                || x instanceof Short
                || x instanceof Byte
                || x instanceof Double
                || x instanceof Float
                || x instanceof BigDecimal
                || x instanceof java.math.BigInteger;
    }

    private static Object cloneArray(Object array) {
        int length = java.lang.reflect.Array.getLength(array);
        Object copy = java.lang.reflect.Array.newInstance(array.getClass().getComponentType(), length);
        System.arraycopy(array, 0, copy, 0, length);
        return copy;
    }

    private static Timestamp copy(Timestamp t) {
        Timestamp copy = new Timestamp(t.getTime());
        copy.setNanos(t.getNanos());
        return copy;
    }

    private static Calendar copy(Calendar calendar) {
        return calendar == null ? null : (Calendar) calendar.clone();
    }
}
