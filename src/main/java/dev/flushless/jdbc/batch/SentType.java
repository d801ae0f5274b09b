package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.session.SessionFacts;
import java.math.BigDecimal;
import java.sql.Types;
import java.util.UUID;

/**
 * The type pgjdbc declares for a parameter: a known type OID, unspecified (OID 0: the server infers the
 * type from the context, as it would for a quoted literal), or unknown to this driver.
 *
 * <p>It matters only outside INSERT: inside {@code INSERT ... VALUES} every row is coerced to the target
 * columns one by one, but a VALUES list used as a table (UPDATE ... FROM, DELETE ... USING) takes its
 * column types from its rows, so the rewrite must cast exactly where the original statement's context
 * would have decided the type.
 */
public final class SentType {

    static final int BOOL = 16;
    static final int BYTEA = 17;
    static final int INT8 = 20;
    static final int INT2 = 21;
    static final int INT4 = 23;
    static final int TEXT = 25;
    static final int FLOAT4 = 700;
    static final int FLOAT8 = 701;
    static final int BPCHAR = 1042;
    static final int VARCHAR = 1043;
    static final int DATE = 1082;
    static final int TIME = 1083;
    static final int TIMESTAMP = 1114;
    static final int TIMESTAMPTZ = 1184;
    static final int TIMETZ = 1266;
    static final int NUMERIC = 1700;
    static final int UUID_OID = 2950;

    /** OID 0: the server decides the type from the context. */
    public static final SentType UNSPECIFIED = new SentType(0);
    /** A setter whose declared type this driver does not model: no rewrite that depends on it. */
    public static final SentType UNKNOWN = new SentType(-1);

    private final int oid;

    private SentType(int oid) {
        this.oid = oid;
    }

    /** The types the setters declare, made once: a batch asks for one per value. */
    private static final SentType[] COMMON = new SentType[4096];

    static {
        for (int oid : new int[] {
            BOOL,
            BYTEA,
            INT8,
            INT2,
            INT4,
            TEXT,
            FLOAT4,
            FLOAT8,
            BPCHAR,
            VARCHAR,
            DATE,
            TIME,
            TIMESTAMP,
            TIMESTAMPTZ,
            TIMETZ,
            NUMERIC,
            UUID_OID
        }) {
            COMMON[oid] = new SentType(oid);
        }
    }

    static SentType typed(int oid) {
        SentType common = oid > 0 && oid < COMMON.length ? COMMON[oid] : null;
        return common != null ? common : new SentType(oid);
    }

    public int oid() {
        return oid;
    }

    public boolean isUnspecified() {
        return oid == 0;
    }

    public boolean isUnknown() {
        return oid < 0;
    }

    /** The SQL name to cast to for this type, or {@code null} when it has none here. */
    public String sqlName() {
        switch (oid) {
            case BOOL:
                return "boolean";
            case BYTEA:
                return "bytea";
            case INT8:
                return "bigint";
            case INT2:
                return "smallint";
            case INT4:
                return "integer";
            case TEXT:
                return "text";
            case FLOAT4:
                return "real";
            case FLOAT8:
                return "double precision";
            case BPCHAR:
                return "bpchar";
            case VARCHAR:
                return "varchar";
            case DATE:
                return "date";
            case TIME:
                return "time";
            case TIMESTAMP:
                return "timestamp";
            case TIMESTAMPTZ:
                return "timestamptz";
            case TIMETZ:
                return "timetz";
            case NUMERIC:
                return "numeric";
            case UUID_OID:
                return "uuid";
            default:
                return null;
        }
    }

    /** What pgjdbc's {@code setNull(i, sqlType)} declares. */
    static SentType forNullOf(int sqlType, SessionFacts session) {
        switch (sqlType) {
            case Types.INTEGER:
                return typed(INT4);
            case Types.TINYINT:
            case Types.SMALLINT:
                return typed(INT2);
            case Types.BIGINT:
                return typed(INT8);
            case Types.REAL:
                return typed(FLOAT4);
            case Types.DOUBLE:
            case Types.FLOAT:
                return typed(FLOAT8);
            case Types.DECIMAL:
            case Types.NUMERIC:
                return typed(NUMERIC);
            case Types.CHAR:
                return typed(BPCHAR);
            case Types.VARCHAR:
            case Types.LONGVARCHAR:
                return session.stringVarchar() ? typed(VARCHAR) : UNSPECIFIED;
            case Types.DATE:
                return typed(DATE);
            case Types.TIME:
            case Types.TIME_WITH_TIMEZONE:
            case Types.TIMESTAMP_WITH_TIMEZONE:
            case Types.TIMESTAMP:
            case Types.ARRAY:
            case Types.DISTINCT:
            case Types.STRUCT:
            case Types.NULL:
            case Types.OTHER:
                return UNSPECIFIED;
            case Types.BOOLEAN:
            case Types.BIT:
                return typed(BOOL);
            case Types.BINARY:
            case Types.VARBINARY:
            case Types.LONGVARBINARY:
                return typed(BYTEA);
            default:
                return UNKNOWN;
        }
    }

    /** What pgjdbc's {@code setObject(i, x, targetSqlType)} declares, for the target types modelled here. */
    static SentType forObjectAs(Object x, int targetSqlType, SessionFacts session) {
        if (x == null) {
            return forNullOf(targetSqlType, session);
        }
        if (x instanceof UUID) {
            return typed(UUID_OID);
        }
        switch (targetSqlType) {
            case Types.INTEGER:
                return typed(INT4);
            case Types.TINYINT:
            case Types.SMALLINT:
                return typed(INT2);
            case Types.BIGINT:
                return typed(INT8);
            case Types.REAL:
                return session.binaryFloat4() ? typed(FLOAT4) : typed(FLOAT8);
            case Types.DOUBLE:
            case Types.FLOAT:
                return typed(FLOAT8);
            case Types.DECIMAL:
            case Types.NUMERIC:
                return typed(NUMERIC);
            case Types.CHAR:
                return typed(BPCHAR);
            case Types.VARCHAR:
                return session.stringVarchar() ? typed(VARCHAR) : UNSPECIFIED;
            case Types.BOOLEAN:
            case Types.BIT:
                return typed(BOOL);
            case Types.DISTINCT:
                return UNSPECIFIED;
            case Types.DATE:
                return x instanceof java.time.LocalDate
                        ? typed(DATE)
                        : x instanceof java.sql.Date ? (session.binaryDate() ? typed(DATE) : UNSPECIFIED) : UNKNOWN;
            case Types.TIME:
                return x instanceof java.time.LocalTime
                        ? typed(TIME)
                        : x instanceof java.sql.Time && !(x instanceof org.postgresql.util.PGTime)
                                ? UNSPECIFIED
                                : UNKNOWN;
            case Types.TIMESTAMP:
                return x instanceof java.time.LocalDateTime
                        ? typed(TIMESTAMP)
                        : x instanceof java.sql.Timestamp && !(x instanceof org.postgresql.util.PGTimestamp)
                                ? UNSPECIFIED
                                : UNKNOWN;
            case Types.TIMESTAMP_WITH_TIMEZONE:
                return x instanceof java.time.OffsetDateTime ? typed(TIMESTAMPTZ) : UNKNOWN;
            case Types.OTHER:
                return x instanceof org.postgresql.util.PGobject || x instanceof java.util.Map ? UNKNOWN : UNSPECIFIED;
            default:
                return UNKNOWN;
        }
    }

    /** What pgjdbc's untyped {@code setObject(i, x)} declares. */
    static SentType forObject(Object x, SessionFacts session) {
        if (x == null) {
            return UNSPECIFIED; // setNull(i, Types.OTHER)
        }
        if (x instanceof UUID) {
            return typed(UUID_OID);
        }
        if (x instanceof String || x instanceof Character) {
            return session.stringVarchar() ? typed(VARCHAR) : UNSPECIFIED;
        }
        if (x instanceof BigDecimal) {
            return typed(NUMERIC);
        }
        if (x instanceof Short || x instanceof Byte) {
            return typed(INT2);
        }
        if (x instanceof Integer) {
            return typed(INT4);
        }
        if (x instanceof Long) {
            return typed(INT8);
        }
        if (x instanceof Double) {
            return typed(FLOAT8);
        }
        if (x instanceof Float) {
            return session.binaryFloat4() ? typed(FLOAT4) : typed(FLOAT8);
        }
        if (x instanceof Boolean) {
            return typed(BOOL);
        }
        if (x instanceof byte[]) {
            return typed(BYTEA);
        }
        if (x instanceof java.time.LocalDate) {
            return typed(DATE);
        }
        if (x instanceof java.time.LocalTime) {
            return typed(TIME);
        }
        if (x instanceof java.time.OffsetTime) {
            return typed(TIMETZ);
        }
        if (x instanceof java.time.LocalDateTime) {
            return typed(TIMESTAMP);
        }
        if (x instanceof java.time.OffsetDateTime) {
            return typed(TIMESTAMPTZ);
        }
        if (x instanceof java.sql.Timestamp && !(x instanceof org.postgresql.util.PGTimestamp)
                || x instanceof java.sql.Time && !(x instanceof org.postgresql.util.PGTime)) {
            return UNSPECIFIED;
        }
        if (x instanceof java.sql.Date) {
            return session.binaryDate() ? typed(DATE) : UNSPECIFIED;
        }
        return UNKNOWN;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SentType other && other.oid == oid;
    }

    @Override
    public int hashCode() {
        return oid;
    }

    @Override
    public String toString() {
        return oid == 0 ? "unspecified" : oid < 0 ? "unknown" : "oid " + oid;
    }
}
