package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.List;

/** Conformance behaviours: DDL, queries and result sets of every common type, metadata. */
final class DdlAndQueries {

    private DdlAndQueries() {
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("ddl: create, alter, drop table and index", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    t.add("create", s.executeUpdate("CREATE TABLE item (id int PRIMARY KEY, name text)"));
                    t.add("alter", s.executeUpdate("ALTER TABLE item ADD COLUMN price numeric(10,2) DEFAULT 0"));
                    t.add("index", s.execute("CREATE INDEX item_name ON item (name)"));
                    t.add("updateCount", s.getUpdateCount());
                    t.add("drop", s.executeUpdate("DROP TABLE item"));
                    s.executeUpdate("CREATE TABLE kept (id int)");
                }),
                of("query: every common type through getObject and getString", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1::int2 AS s, 2::int4 AS i, 3::int8 AS b, 1.5::float4 AS f,"
                            + " 2.25::float8 AS d, 12.345::numeric(10,3) AS n, true AS bool, 'x'::char(3) AS c,"
                            + " 'text' AS txt, 'v'::varchar(5) AS vc, DATE '2024-02-29' AS dt, TIME '12:34:56' AS tm,"
                            + " TIMESTAMP '2024-02-29 12:34:56.789' AS ts, '\\x0102ff'::bytea AS bin,"
                            + " '6a1d5c3e-2f6b-4c1e-9a0d-3b9f1e2a4c5d'::uuid AS u, '{\"a\": 1}'::jsonb AS j,"
                            + " ARRAY[1,2,3] AS arr, ARRAY['a','b'] AS tarr, interval '1 day 2 hours' AS iv,"
                            + " NULL::int AS nul");
                    t.rows("types", rs);
                    ResultSet strings = s.executeQuery("SELECT 1.5::float4, DATE '2024-02-29', '\\x01'::bytea, ARRAY[1,2]");
                    strings.next();
                    for (int i = 1; i <= 4; i++) {
                        t.add("getString " + i, strings.getString(i));
                    }
                }),
                of("query: typed getters and wasNull", (env, t) -> {
                    ResultSet rs = env.connection().createStatement().executeQuery(
                            "SELECT 42 AS i, NULL::int AS n, 7.5::numeric AS d, TIMESTAMPTZ '2024-01-02 03:04:05+02' AS tz");
                    rs.next();
                    t.add("getInt", rs.getInt("i"));
                    t.add("getLong", rs.getLong(1));
                    t.add("getInt null", rs.getInt("n"));
                    t.add("wasNull", rs.wasNull());
                    t.add("getBigDecimal", rs.getBigDecimal("d"));
                    t.add("getDouble", rs.getDouble("d"));
                    t.add("getTimestamp", rs.getTimestamp("tz", java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("UTC"))));
                    t.add("getObject OffsetDateTime", rs.getObject("tz", java.time.OffsetDateTime.class));
                }),
                of("prepared query: parameters and re-execution past the prepare threshold", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE p (id int PRIMARY KEY, v text)");
                    c.createStatement().execute("INSERT INTO p SELECT g, 'v' || g FROM generate_series(1, 20) g");
                    PreparedStatement ps = c.prepareStatement("SELECT v FROM p WHERE id = ?");
                    for (int i = 1; i <= 8; i++) {
                        ps.setInt(1, i);
                        try (ResultSet rs = ps.executeQuery()) {
                            t.add("next " + i, rs.next());
                            t.add("value " + i, rs.getString(1));
                        }
                    }
                }),
                of("query: result set navigation and identity", (env, t) -> {
                    Statement s = env.connection().createStatement(ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY);
                    ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 5) g");
                    t.add("statement identity", rs.getStatement() == s);
                    t.add("connection identity", s.getConnection() == env.connection());
                    t.add("last", rs.last());
                    t.add("row", rs.getRow());
                    t.add("absolute", rs.absolute(2));
                    t.add("value", rs.getInt(1));
                    t.add("previous", rs.previous());
                    t.add("isFirst", rs.isFirst());
                    t.add("type", rs.getType());
                    t.add("concurrency", rs.getConcurrency());
                }));
    }
}
