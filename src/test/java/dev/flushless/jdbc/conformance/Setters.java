package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.io.ByteArrayInputStream;
import java.io.StringReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.Time;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Calendar;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;
import org.postgresql.util.PGobject;

/** Conformance behaviours: every family of PreparedStatement setters, nulls, streams and parameter errors. */
final class Setters {

    private Setters() {}

    private static void ddl(Connection c, String sql) throws java.sql.SQLException {
        try (java.sql.Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    private static void dump(Connection c, Transcript t, String table) throws java.sql.SQLException {
        java.sql.Statement s = c.createStatement();
        t.rows(table, s.executeQuery("SELECT * FROM " + table + " ORDER BY id"));
        s.close();
    }

    /** A setter that pgjdbc may not implement. */
    @FunctionalInterface
    private interface Setter {
        void set() throws Exception;
    }

    /** Runs {@code setter}, recording only whether pgjdbc accepted it (the previous value stays otherwise). */
    private static void trySet(Transcript t, String label, Setter setter) {
        t.call(label, () -> {
            setter.set();
            return "set";
        });
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of(
                        "setters: numbers through setByte, setShort, setInt, setLong, setFloat, setDouble, setBigDecimal",
                        (env, t) -> {
                            Connection c = env.connection();
                            ddl(
                                    c,
                                    "CREATE TABLE n (id int PRIMARY KEY, b int2, s int2, i int4, l int8, f float4, d float8,"
                                            + " m numeric(40,10))");
                            PreparedStatement ps = c.prepareStatement("INSERT INTO n VALUES (?, ?, ?, ?, ?, ?, ?, ?)");
                            Object[][] rows = {
                                {(byte) 1, (short) 1, 1, 1L, 1.5f, 2.25d, new BigDecimal("12.3456789")},
                                {
                                    Byte.MIN_VALUE,
                                    Short.MIN_VALUE,
                                    Integer.MIN_VALUE,
                                    Long.MIN_VALUE,
                                    -Float.MAX_VALUE,
                                    Double.MIN_VALUE,
                                    new BigDecimal("-99999999999999999999.9999999999")
                                },
                                {
                                    Byte.MAX_VALUE,
                                    Short.MAX_VALUE,
                                    Integer.MAX_VALUE,
                                    Long.MAX_VALUE,
                                    0.1f,
                                    0.1d,
                                    new BigDecimal("1E-10")
                                },
                            };
                            for (int r = 0; r < rows.length; r++) {
                                Object[] v = rows[r];
                                ps.setInt(1, r + 1);
                                ps.setByte(2, (Byte) v[0]);
                                ps.setShort(3, (Short) v[1]);
                                ps.setInt(4, (Integer) v[2]);
                                ps.setLong(5, (Long) v[3]);
                                ps.setFloat(6, (Float) v[4]);
                                ps.setDouble(7, (Double) v[5]);
                                ps.setBigDecimal(8, (BigDecimal) v[6]);
                                t.add("insert " + r, ps.executeUpdate());
                            }
                            ps.setInt(1, 4);
                            ps.setObject(2, 5);
                            ps.setObject(3, (short) 6);
                            ps.setObject(4, 7L);
                            ps.setObject(5, new java.math.BigInteger("123456789012345"));
                            ps.setObject(6, 8.5f);
                            ps.setObject(7, Double.NaN);
                            ps.setObject(8, 42);
                            t.add("insert via setObject", ps.executeUpdate());
                            ps.setInt(1, 5);
                            ps.setDouble(7, Double.POSITIVE_INFINITY);
                            ps.setBigDecimal(8, new BigDecimal("1E+25"));
                            t.add("insert infinity", ps.executeUpdate());
                            ps.setInt(1, 6);
                            ps.setLong(3, 70000L);
                            t.call("int2 overflow", ps::executeUpdate);
                            dump(c, t, "n");
                            t.rows(
                                    "as text",
                                    c.createStatement()
                                            .executeQuery("SELECT id, f::text, d::text, m::text FROM n ORDER BY id"));
                        }),
                of("setters: strings through setString, setNString, setCharacterStream, setObject", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE s (id int PRIMARY KEY, v text, vc varchar(10), ch char(4))");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO s VALUES (?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setString(2, "plain");
                    ps.setString(3, "x");
                    ps.setString(4, "ab");
                    t.add("setString", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setString(2, "ünïcødé ✓ 漢字");
                    ps.setString(3, "'quoted'");
                    ps.setString(4, "");
                    t.call("setNString", () -> {
                        ps.setNString(2, "n-string");
                        return "set";
                    });
                    t.add("insert row 2", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setCharacterStream(2, new StringReader("from a reader\nwith lines"));
                    ps.setCharacterStream(3, new StringReader("abcdefghijkl"), 5);
                    ps.setString(4, "none");
                    t.call("setCharacterStream long length", () -> {
                        ps.setCharacterStream(4, new StringReader("wxyz"), 4L);
                        return "set";
                    });
                    t.add("insert row 3", ps.executeUpdate());
                    ps.setInt(1, 4);
                    ps.setObject(2, "obj");
                    ps.setObject(3, 'c');
                    ps.setObject(4, "e\\f");
                    t.add("setObject", ps.executeUpdate());
                    ps.setInt(1, 5);
                    ps.setString(2, "nul\u0000byte");
                    t.call("zero byte", ps::executeUpdate);
                    ps.setString(2, "ok");
                    ps.setString(3, "much too long for ten");
                    t.call("too long", ps::executeUpdate);
                    ps.setInt(1, 6);
                    ps.setString(2, "");
                    ps.setString(3, "   ");
                    ps.setString(4, "   ");
                    t.add("blanks", ps.executeUpdate());
                    dump(c, t, "s");
                }),
                of("setters: booleans through setBoolean, setObject and setString", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE bo (id int PRIMARY KEY, b boolean)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO bo VALUES (?, ?)");
                    ps.setInt(1, 1);
                    ps.setBoolean(2, true);
                    t.add("true", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setBoolean(2, false);
                    t.add("false", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setObject(2, Boolean.TRUE);
                    t.add("setObject Boolean", ps.executeUpdate());
                    ps.setInt(1, 4);
                    ps.setObject(2, "yes", Types.BOOLEAN);
                    t.add("setObject yes BOOLEAN", ps.executeUpdate());
                    ps.setInt(1, 5);
                    ps.setObject(2, 0, Types.BIT);
                    t.add("setObject 0 BIT", ps.executeUpdate());
                    ps.setInt(1, 6);
                    ps.setString(2, "true");
                    t.call("setString into boolean", ps::executeUpdate);
                    dump(c, t, "bo");
                    PreparedStatement q = c.prepareStatement("SELECT count(*) FROM bo WHERE b = ?");
                    q.setBoolean(1, true);
                    t.rows("count true", q.executeQuery());
                }),
                of("setters: dates and times without zone through setDate, setTime, setTimestamp", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE dt (id int PRIMARY KEY, d date, tm time, ts timestamp, tz timestamptz)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO dt VALUES (?, ?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setDate(2, Date.valueOf("2024-02-29"));
                    ps.setTime(3, Time.valueOf("13:14:15"));
                    ps.setTimestamp(4, Timestamp.valueOf("2024-02-29 13:14:15.123456789"));
                    ps.setTimestamp(5, Timestamp.valueOf("2024-07-01 00:00:00"));
                    t.add("insert", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setDate(2, Date.valueOf("1900-01-01"));
                    ps.setTime(3, Time.valueOf("00:00:00"));
                    ps.setTimestamp(4, Timestamp.valueOf("1970-01-01 00:00:00"));
                    ps.setTimestamp(5, Timestamp.valueOf("1999-12-31 23:59:59.999"));
                    t.add("insert old", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setObject(2, Date.valueOf("2000-01-01"));
                    ps.setObject(3, Time.valueOf("23:59:59"));
                    ps.setObject(4, Timestamp.valueOf("2000-01-01 12:00:00"));
                    t.call("setObject String as TIMESTAMP_WITH_TIMEZONE", () -> {
                        ps.setObject(5, "2000-01-01 12:00:00+02", Types.TIMESTAMP_WITH_TIMEZONE);
                        return "set";
                    });
                    ps.setObject(5, "2000-01-01 12:00:00+02", Types.VARCHAR);
                    t.call("timestamptz from VARCHAR", ps::executeUpdate);
                    t.call("setObject Timestamp as TIMESTAMP_WITH_TIMEZONE", () -> {
                        ps.setObject(5, Timestamp.valueOf("2000-01-01 12:00:00"), Types.TIMESTAMP_WITH_TIMEZONE);
                        return "set";
                    });
                    ps.setObject(5, Timestamp.valueOf("2000-01-01 12:00:00"));
                    t.add("insert setObject", ps.executeUpdate());
                    dump(c, t, "dt");
                    t.rows(
                            "text",
                            c.createStatement()
                                    .executeQuery("SELECT id, d::text, tm::text, ts::text,"
                                            + " (tz AT TIME ZONE 'UTC')::text AS tz_utc FROM dt ORDER BY id"));
                }),
                of("setters: dates and times with a Calendar", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE dc (id int PRIMARY KEY, d date, tm time, ts timestamp, tz timestamptz)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO dc VALUES (?, ?, ?, ?, ?)");
                    String[] zones = {"UTC", "Asia/Tokyo", "America/New_York"};
                    Timestamp ts = Timestamp.valueOf("2024-03-10 01:30:00.5");
                    for (int i = 0; i < zones.length; i++) {
                        Calendar cal = Calendar.getInstance(TimeZone.getTimeZone(zones[i]));
                        ps.setInt(1, i + 1);
                        ps.setDate(2, Date.valueOf("2024-03-10"), cal);
                        ps.setTime(3, Time.valueOf("01:30:00"), cal);
                        ps.setTimestamp(4, ts, cal);
                        ps.setTimestamp(5, ts, cal);
                        t.add("insert " + zones[i], ps.executeUpdate());
                    }
                    t.rows(
                            "text",
                            c.createStatement()
                                    .executeQuery("SELECT id, d::text, tm::text, ts::text,"
                                            + " (tz AT TIME ZONE 'UTC')::text AS tz_utc FROM dc ORDER BY id"));
                    java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT ts, tz FROM dc WHERE id = 2");
                    rs.next();
                    Calendar tokyo = Calendar.getInstance(TimeZone.getTimeZone("Asia/Tokyo"));
                    t.add("getTimestamp ts Tokyo", rs.getTimestamp(1, tokyo).getTime());
                    t.add("getTimestamp tz Tokyo", rs.getTimestamp(2, tokyo).getTime());
                    t.add("getTimestamp tz", rs.getTimestamp(2).getTime());
                }),
                of("setters: java.time values through setObject, Instant unsupported", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE jt (id int PRIMARY KEY, d date, tm time, ts timestamp, tz timestamptz, ttz timetz)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO jt VALUES (?, ?, ?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setObject(2, LocalDate.of(2024, 2, 29));
                    ps.setObject(3, LocalTime.of(13, 14, 15, 123_456_000));
                    ps.setObject(4, LocalDateTime.of(2024, 2, 29, 13, 14, 15, 987_654_321));
                    ps.setObject(5, OffsetDateTime.of(2024, 2, 29, 13, 14, 15, 0, ZoneOffset.ofHours(-7)));
                    ps.setObject(6, OffsetTime.of(10, 0, 0, 0, ZoneOffset.ofHoursMinutes(5, 30)));
                    t.add("insert", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, LocalDate.MAX);
                    ps.setObject(3, LocalTime.MAX);
                    ps.setObject(4, LocalDateTime.MIN);
                    ps.setObject(5, OffsetDateTime.MAX);
                    ps.setObject(6, null);
                    t.call("insert extremes", ps::executeUpdate);
                    ps.setInt(1, 3);
                    ps.setObject(2, LocalDate.of(1, 1, 1), Types.DATE);
                    ps.setObject(3, LocalTime.MIDNIGHT, Types.TIME);
                    ps.setObject(4, LocalDateTime.of(1999, 12, 31, 23, 59), Types.TIMESTAMP);
                    ps.setObject(
                            5,
                            OffsetDateTime.of(2000, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC),
                            Types.TIMESTAMP_WITH_TIMEZONE);
                    ps.setObject(6, null, Types.TIME_WITH_TIMEZONE);
                    t.add("insert with types", ps.executeUpdate());
                    ps.setInt(1, 4);
                    t.call("setObject Instant", () -> {
                        ps.setObject(5, java.time.Instant.ofEpochSecond(1_700_000_000L));
                        return ps.executeUpdate();
                    });
                    t.call("setObject ZonedDateTime", () -> {
                        ps.setObject(
                                5,
                                java.time.ZonedDateTime.of(
                                        2024, 1, 1, 0, 0, 0, 0, java.time.ZoneId.of("Europe/Paris")));
                        return ps.executeUpdate();
                    });
                    t.rows(
                            "text",
                            c.createStatement()
                                    .executeQuery(
                                            "SELECT id, d::text, tm::text, ts::text,"
                                                    + " (tz AT TIME ZONE 'UTC')::text AS tz_utc, ttz::text FROM jt ORDER BY id"));
                    java.sql.ResultSet rs =
                            c.createStatement().executeQuery("SELECT d, tm, ts, tz FROM jt WHERE id = 1");
                    rs.next();
                    t.add("LocalDate", rs.getObject(1, LocalDate.class));
                    t.add("LocalTime", rs.getObject(2, LocalTime.class));
                    t.add("LocalDateTime", rs.getObject(3, LocalDateTime.class));
                    t.add("OffsetDateTime", rs.getObject(4, OffsetDateTime.class));
                }),
                of("setters: bytes through setBytes, setBinaryStream and setObject", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE bt (id int PRIMARY KEY, b bytea)");
                    byte[] data = new byte[300];
                    for (int i = 0; i < data.length; i++) {
                        data[i] = (byte) (i * 7);
                    }
                    PreparedStatement ps = c.prepareStatement("INSERT INTO bt VALUES (?, ?)");
                    ps.setInt(1, 1);
                    ps.setBytes(2, new byte[] {0, 1, 2, (byte) 0xff, '\\', '\''});
                    t.add("setBytes", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setBytes(2, new byte[0]);
                    t.add("setBytes empty", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setBinaryStream(2, new ByteArrayInputStream(data));
                    t.add("setBinaryStream", ps.executeUpdate());
                    ps.setInt(1, 4);
                    ps.setObject(2, new byte[] {9, 8, 7});
                    t.add("setObject bytes", ps.executeUpdate());
                    ps.setInt(1, 5);
                    ps.setObject(2, new byte[] {5}, Types.BINARY);
                    t.add("setObject bytes BINARY", ps.executeUpdate());
                    t.rows(
                            "stored",
                            c.createStatement().executeQuery("SELECT id, length(b), md5(b) FROM bt ORDER BY id"));
                    java.sql.ResultSet rs =
                            c.createStatement().executeQuery("SELECT b FROM bt WHERE id IN (1, 4) ORDER BY id");
                    while (rs.next()) {
                        t.add("bytes", rs.getBytes(1));
                    }
                }),
                of("setters: arrays through createArrayOf, setArray and setObject of Java arrays", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE ar (id int PRIMARY KEY, ints int4[], texts text[], longs int8[], nums numeric[])");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO ar VALUES (?, ?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setArray(2, c.createArrayOf("int4", new Integer[] {1, 2, null, 4}));
                    ps.setArray(3, c.createArrayOf("text", new String[] {"a", "b c", "\"q\"", "{x}", null, "NULL"}));
                    ps.setArray(4, c.createArrayOf("int8", new Long[] {Long.MAX_VALUE}));
                    ps.setArray(5, c.createArrayOf("numeric", new BigDecimal[] {new BigDecimal("1.10")}));
                    t.add("setArray", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, new int[] {5, 6, 7});
                    ps.setObject(3, new String[] {"x", "y"});
                    ps.setObject(4, new long[] {});
                    ps.setObject(5, c.createArrayOf("numeric", new Object[] {}));
                    t.add("setObject arrays", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setObject(2, new Integer[] {8});
                    ps.setObject(3, c.createArrayOf("varchar", new String[] {"v"}), Types.ARRAY);
                    ps.setNull(4, Types.ARRAY);
                    ps.setObject(5, null);
                    t.call("boxed and null arrays", ps::executeUpdate);
                    dump(c, t, "ar");
                    t.rows(
                            "text",
                            c.createStatement().executeQuery("SELECT id, ints::text, texts::text FROM ar ORDER BY id"));
                    PreparedStatement any = c.prepareStatement("SELECT count(*) FROM ar WHERE ints && ?");
                    any.setArray(1, c.createArrayOf("int4", new Integer[] {2, 6}));
                    t.rows("overlap", any.executeQuery());
                    t.call("createArrayOf unknown type", () -> c.createArrayOf("nosuchtype", new Object[] {1}));
                }),
                of("setters: JSON through PGobject jsonb and setObject OTHER", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE js (id int PRIMARY KEY, j jsonb, k json)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO js VALUES (?, ?, ?)");
                    PGobject jsonb = new PGobject();
                    jsonb.setType("jsonb");
                    jsonb.setValue("{\"b\": [1, 2], \"a\": \"x\"}");
                    PGobject json = new PGobject();
                    json.setType("json");
                    json.setValue("{\"keep\":   \"spacing\", \"keep\": 2}");
                    ps.setInt(1, 1);
                    ps.setObject(2, jsonb);
                    ps.setObject(3, json);
                    t.add("PGobject", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, "{\"n\": null, \"t\": true}", Types.OTHER);
                    ps.setObject(3, "[1, 2.5, \"s\"]", Types.OTHER);
                    t.add("setObject OTHER", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setString(2, "{}");
                    t.call("setString into jsonb", ps::executeUpdate);
                    ps.setInt(1, 4);
                    ps.setObject(2, "{not json", Types.OTHER);
                    ps.setObject(3, "{}", Types.OTHER);
                    t.call("invalid json", ps::executeUpdate);
                    dump(c, t, "js");
                    PreparedStatement q = c.prepareStatement("SELECT j ->> 'a', j @> ?::jsonb FROM js WHERE id = 1");
                    q.setString(1, "{\"b\": [2]}");
                    t.rows("query", q.executeQuery());
                    java.sql.ResultSet rs = c.createStatement().executeQuery("SELECT j FROM js WHERE id = 1");
                    rs.next();
                    PGobject back = (PGobject) rs.getObject(1);
                    t.add("type", back.getType());
                    t.add("value", back.getValue());
                }),
                of("setters: UUID through setObject, setObject OTHER and setString", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE uu (id int PRIMARY KEY, u uuid)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO uu VALUES (?, ?)");
                    ps.setInt(1, 1);
                    ps.setObject(2, UUID.fromString("00000000-0000-0000-0000-000000000001"));
                    t.add("setObject UUID", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", Types.OTHER);
                    t.add("setObject OTHER", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setString(2, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a12");
                    t.call("setString into uuid", ps::executeUpdate);
                    ps.setInt(1, 4);
                    ps.setObject(2, "not-a-uuid", Types.OTHER);
                    t.call("invalid uuid", ps::executeUpdate);
                    dump(c, t, "uu");
                    PreparedStatement q = c.prepareStatement("SELECT id FROM uu WHERE u = ?");
                    q.setObject(1, UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
                    t.rows("lookup", q.executeQuery());
                }),
                of("setters: typed and untyped nulls", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE nu (id int PRIMARY KEY, i int, v text, d date, ts timestamp, b boolean, y bytea,"
                                    + " u uuid, n numeric)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO nu VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setNull(2, Types.INTEGER);
                    ps.setNull(3, Types.VARCHAR);
                    ps.setNull(4, Types.DATE);
                    ps.setNull(5, Types.TIMESTAMP);
                    ps.setNull(6, Types.BOOLEAN);
                    ps.setNull(7, Types.BINARY);
                    ps.setNull(8, Types.OTHER);
                    ps.setNull(9, Types.NUMERIC);
                    t.add("setNull typed", ps.executeUpdate());
                    ps.setInt(1, 2);
                    for (int i = 2; i <= 9; i++) {
                        ps.setObject(i, null);
                    }
                    t.add("setObject null", ps.executeUpdate());
                    ps.setInt(1, 3);
                    int[] types = {
                        Types.BIGINT,
                        Types.LONGVARCHAR,
                        Types.TIMESTAMP,
                        Types.TIMESTAMP_WITH_TIMEZONE,
                        Types.BIT,
                        Types.VARBINARY,
                        Types.OTHER,
                        Types.DECIMAL
                    };
                    for (int i = 2; i <= 9; i++) {
                        ps.setObject(i, null, types[i - 2]);
                    }
                    t.add("setObject null typed", ps.executeUpdate());
                    ps.setInt(1, 4);
                    for (int i = 2; i <= 9; i++) {
                        ps.setNull(i, Types.NULL);
                    }
                    t.add("setNull NULL", ps.executeUpdate());
                    ps.setInt(1, 5);
                    ps.setNull(2, Types.VARCHAR);
                    t.call("setNull VARCHAR into int", ps::executeUpdate);
                    ps.setNull(2, Types.DATE);
                    t.call("setNull DATE into int", ps::executeUpdate);
                    ps.setNull(2, Types.INTEGER);
                    ps.setNull(3, Types.INTEGER, "int4");
                    t.call("setNull INTEGER into text", ps::executeUpdate);
                    dump(c, t, "nu");
                    PreparedStatement q = c.prepareStatement("SELECT ? IS NULL");
                    q.setNull(1, Types.INTEGER);
                    t.rows("select typed null", q.executeQuery());
                    q.setObject(1, null);
                    t.call("select untyped null", () -> {
                        try (java.sql.ResultSet rs = q.executeQuery()) {
                            rs.next();
                            return rs.getObject(1);
                        }
                    });
                    PreparedStatement where = c.prepareStatement("SELECT count(*) FROM nu WHERE i = ?");
                    where.setNull(1, Types.INTEGER);
                    t.rows("equals null", where.executeQuery());
                }),
                of("setters: ascii, character and binary streams with and without length", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE st (id int PRIMARY KEY, a text, ch text, b bytea)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO st VALUES (?, ?, ?, ?)");
                    byte[] ascii = "ascii stream content".getBytes(StandardCharsets.US_ASCII);
                    byte[] binary = {1, 2, 3, 4, 5, 6, 7, 8};
                    ps.setInt(1, 1);
                    ps.setString(2, "fallback");
                    ps.setString(3, "fallback");
                    ps.setBytes(4, new byte[] {0});
                    t.call("setAsciiStream without length", () -> {
                        ps.setAsciiStream(2, new ByteArrayInputStream(ascii));
                        return "set";
                    });
                    t.call("setCharacterStream without length", () -> {
                        ps.setCharacterStream(3, new StringReader("characters ✓"));
                        return "set";
                    });
                    t.call("setBinaryStream without length", () -> {
                        ps.setBinaryStream(4, new ByteArrayInputStream(binary));
                        return "set";
                    });
                    t.add("without length", ps.executeUpdate());
                    ps.setInt(1, 2);
                    trySet(t, "row 2: setAsciiStream", () -> ps.setAsciiStream(2, new ByteArrayInputStream(ascii), 5));
                    trySet(
                            t,
                            "row 2: setCharacterStream",
                            () -> ps.setCharacterStream(3, new StringReader("characters ✓"), 4));
                    trySet(
                            t,
                            "row 2: setBinaryStream",
                            () -> ps.setBinaryStream(4, new ByteArrayInputStream(binary), 3));
                    t.add("int length", ps.executeUpdate());
                    ps.setInt(1, 3);
                    ps.setString(2, "fallback 3");
                    ps.setString(3, "fallback 3");
                    ps.setBytes(4, new byte[] {3});
                    trySet(t, "row 3: setAsciiStream", () -> ps.setAsciiStream(2, new ByteArrayInputStream(ascii), 6L));
                    trySet(
                            t,
                            "row 3: setCharacterStream",
                            () -> ps.setCharacterStream(3, new StringReader("characters ✓"), 12L));
                    trySet(
                            t,
                            "row 3: setBinaryStream",
                            () -> ps.setBinaryStream(4, new ByteArrayInputStream(binary), 8L));
                    t.call("long length", ps::executeUpdate);
                    ps.setInt(1, 4);
                    t.call("binary length longer than stream", () -> {
                        ps.setAsciiStream(2, new ByteArrayInputStream(ascii), 1);
                        ps.setCharacterStream(3, new StringReader("c"), 1);
                        ps.setBinaryStream(4, new ByteArrayInputStream(binary), 100);
                        return ps.executeUpdate();
                    });
                    ps.setInt(1, 5);
                    t.call("character length longer than stream", () -> {
                        ps.setAsciiStream(2, new ByteArrayInputStream(ascii), 1);
                        ps.setCharacterStream(3, new StringReader("short"), 50);
                        ps.setBinaryStream(4, new ByteArrayInputStream(binary), 1);
                        return ps.executeUpdate();
                    });
                    ps.setInt(1, 6);
                    t.call("negative length", () -> {
                        ps.setBinaryStream(4, new ByteArrayInputStream(binary), -1);
                        return "accepted";
                    });
                    t.call("setNCharacterStream", () -> {
                        ps.setNCharacterStream(3, new StringReader("n"));
                        return "accepted";
                    });
                    t.call("setClob", () -> {
                        ps.setClob(3, new StringReader("clob"));
                        return "accepted";
                    });
                    dump(c, t, "st");
                }),
                of("setters: setObject with a target SQL type converts values", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE so (id int PRIMARY KEY, i int, v varchar(20), n numeric(10,2), d date, f float8)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO so VALUES (?, ?, ?, ?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setObject(2, "42", Types.INTEGER);
                    ps.setObject(3, 42, Types.VARCHAR);
                    ps.setObject(4, new BigDecimal("3.14159"), Types.NUMERIC, 2);
                    ps.setObject(5, "2024-05-06", Types.DATE);
                    ps.setObject(6, "2.5", Types.DOUBLE);
                    t.add("converted", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, 7L, Types.SMALLINT);
                    ps.setObject(3, true, Types.VARCHAR);
                    ps.setObject(4, 5, Types.DECIMAL);
                    ps.setObject(5, java.sql.Date.valueOf("2020-01-01"), Types.DATE);
                    ps.setObject(6, 1, Types.FLOAT);
                    t.add("converted 2", ps.executeUpdate());
                    ps.setInt(1, 3);
                    t.call("not a number", () -> {
                        ps.setObject(2, "forty-two", Types.INTEGER);
                        return ps.executeUpdate();
                    });
                    t.call("unconvertible object", () -> {
                        ps.setObject(2, new Object(), Types.INTEGER);
                        return ps.executeUpdate();
                    });
                    t.call("unknown Java type", () -> {
                        ps.setObject(2, new StringBuilder("1"));
                        return ps.executeUpdate();
                    });
                    dump(c, t, "so");
                }),
                of("setters: clearParameters, missing parameters and bad indexes", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE cp (id int PRIMARY KEY, v text)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO cp VALUES (?, ?)");
                    ps.setInt(1, 1);
                    ps.setString(2, "one");
                    t.add("complete", ps.executeUpdate());
                    ps.setInt(1, 2);
                    t.add("parameters kept", ps.executeUpdate() + " (v kept: one)");
                    ps.clearParameters();
                    t.call("after clearParameters", ps::executeUpdate);
                    ps.setInt(1, 3);
                    t.call("second missing", ps::executeUpdate);
                    t.call("index 3", () -> {
                        ps.setInt(3, 1);
                        return "set";
                    });
                    t.call("index 0", () -> {
                        ps.setString(0, "x");
                        return "set";
                    });
                    ps.setString(2, "three");
                    t.add("completed", ps.executeUpdate());
                    PreparedStatement none = c.prepareStatement("SELECT 1");
                    t.call("set on statement without parameters", () -> {
                        none.setInt(1, 1);
                        return "set";
                    });
                    PreparedStatement q = c.prepareStatement("SELECT v FROM cp WHERE id = ?");
                    t.call("query missing parameter", q::executeQuery);
                    t.call("PreparedStatement.executeQuery(String)", () -> q.executeQuery("SELECT 1"));
                    t.call("PreparedStatement.addBatch(String)", () -> {
                        q.addBatch("SELECT 1");
                        return "added";
                    });
                    dump(c, t, "cp");
                }),
                of("setters: reusing a prepared statement past the prepare threshold with changing types", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE rt (id int PRIMARY KEY, v numeric, w text)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO rt VALUES (?, ?, ?)");
                    for (int i = 1; i <= 12; i++) {
                        ps.setInt(1, i);
                        switch (i % 4) {
                            case 0 -> ps.setInt(2, i);
                            case 1 -> ps.setBigDecimal(2, new BigDecimal(i + ".5"));
                            case 2 -> ps.setNull(2, Types.NUMERIC);
                            default -> ps.setString(2, String.valueOf(i));
                        }
                        if (i % 3 == 0) {
                            ps.setNull(3, Types.VARCHAR);
                        } else {
                            ps.setObject(3, i % 2 == 0 ? (Object) ("w" + i) : (Object) i);
                        }
                        t.call("insert " + i, ps::executeUpdate);
                    }
                    dump(c, t, "rt");
                }),
                of("setters: special numeric values and precision", (env, t) -> {
                    Connection c = env.connection();
                    PreparedStatement ps =
                            c.prepareStatement("SELECT ?::float8::text, ?::numeric::text, ?::float4::text, ?::int8");
                    double[] doubles = {Double.NaN, Double.NEGATIVE_INFINITY, -0.0d, 1e308};
                    BigDecimal[] decimals = {
                        new BigDecimal("0.000000000000000000001"),
                        new BigDecimal("1.000"),
                        new BigDecimal("-12345678901234567890.123"),
                        BigDecimal.ZERO
                    };
                    for (int i = 0; i < doubles.length; i++) {
                        ps.setDouble(1, doubles[i]);
                        ps.setBigDecimal(2, decimals[i]);
                        ps.setFloat(3, (float) doubles[i]);
                        ps.setLong(4, i == 0 ? Long.MIN_VALUE : i);
                        t.rows("row " + i, ps.executeQuery());
                    }
                    ps.setObject(1, "NaN", Types.DOUBLE);
                    t.call("string NaN", () -> {
                        t.rows("string NaN rows", ps.executeQuery());
                        return "ok";
                    });
                }));
    }
}
