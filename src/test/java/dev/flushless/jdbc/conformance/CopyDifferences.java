package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.copied;
import static dev.flushless.jdbc.conformance.Behaviour.fallsBack;
import static dev.flushless.jdbc.conformance.Behaviour.notCopied;

import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.Date;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Calendar;
import java.util.List;
import java.util.TimeZone;
import java.util.UUID;

/**
 * Where {@code COPY ... FROM STDIN} differs from the INSERTs it replaces (issue 27, docs/semantics.md "COPY"): each
 * difference as a batch whose transcript and final rows must be bare pgjdbc's in every variant, including
 * {@code batch_copy} and {@code transaction_copy} ({@code flushless.copy=always}), where the batch either went as COPY
 * ({@link Behaviour#copied}: checked) or provably kept the INSERT forms ({@link Behaviour#notCopied}: checked).
 */
final class CopyDifferences {

    private CopyDifferences() {}

    private static void exec(Connection c, String... sql) throws java.sql.SQLException {
        try (Statement s = c.createStatement()) {
            for (String text : sql) {
                s.execute(text);
            }
        }
    }

    static List<Behaviour> behaviours() {
        List<Behaviour> all = new ArrayList<>();
        all.add(copied(
                "COPY: setDouble and setFloat into numeric, float8 and real keep the server's rounding", (env, t) -> {
                    Connection c = env.connection();
                    exec(c, "CREATE TABLE f (id int PRIMARY KEY, n numeric, n3 numeric(8,3), d float8, r real)");
                    double[] values = {
                        0.1,
                        1 / 3.0,
                        2 / 3.0,
                        123456.789012345678,
                        1e20,
                        1.5e-7,
                        -0.0,
                        0.1 + 0.2,
                        12345.6785,
                        1e-300,
                        4.35,
                        2.675,
                        1234.5,
                        Math.PI,
                        -7.0
                    };
                    PreparedStatement ps = c.prepareStatement("INSERT INTO f (id, n, n3, d, r) VALUES (?, ?, ?, ?, ?)");
                    for (int i = 0; i < values.length; i++) {
                        ps.setInt(1, i);
                        ps.setDouble(2, values[i]);
                        ps.setDouble(3, values[i] > 99999 || Math.abs(values[i]) < 1e-200 ? 1.0005 : values[i]);
                        ps.setDouble(4, values[i]);
                        ps.setFloat(5, (float) values[i]);
                        ps.addBatch();
                    }
                    ps.setInt(1, 100);
                    ps.setDouble(2, Double.NaN);
                    ps.setDouble(3, Double.NaN);
                    ps.setDouble(4, Double.POSITIVE_INFINITY);
                    ps.setFloat(5, Float.NEGATIVE_INFINITY);
                    ps.addBatch();
                    ps.setInt(1, 101);
                    ps.setFloat(2, 1 / 3f);
                    ps.setFloat(3, 0.1f);
                    ps.setFloat(4, 0.1f);
                    ps.setFloat(5, Float.NaN);
                    ps.addBatch();
                    t.add("counts", ps.executeBatch());
                    t.rows(
                            "stored",
                            c.createStatement()
                                    .executeQuery("SELECT id, n::text, n3::text, d::text, r::text FROM f ORDER BY id"));
                }));
        all.add(notCopied("COPY: an infinite double into numeric keeps the INSERT forms", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE fi (id int PRIMARY KEY, n numeric(10,2))");
            PreparedStatement ps = c.prepareStatement("INSERT INTO fi (id, n) VALUES (?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setDouble(2, i == 1 ? Double.POSITIVE_INFINITY : i);
                ps.addBatch();
            }
            t.call("batch", ps::executeBatch);
        }));
        all.add(copied(
                "COPY: setTimestamp and setDate into timestamp, timestamptz and date under a session time zone",
                (env, t) -> {
                    Connection c = env.connection();
                    exec(
                            c,
                            "SET TIME ZONE 'Asia/Kolkata'",
                            "CREATE TABLE times (id int PRIMARY KEY, ts timestamp, tz timestamptz, d date)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO times (id, ts, tz, d) VALUES (?, ?, ?, ?)");
                    Calendar utc = Calendar.getInstance(TimeZone.getTimeZone("UTC"));
                    for (int i = 0; i < 6; i++) {
                        Timestamp ts = new Timestamp(1_700_000_000_000L + i * 3_600_123L);
                        ts.setNanos(123_456_000 + i);
                        ps.setInt(1, i);
                        if (i % 2 == 0) {
                            ps.setTimestamp(2, ts);
                            ps.setTimestamp(3, ts);
                            ps.setDate(4, new Date(ts.getTime()));
                        } else {
                            ps.setTimestamp(2, ts, utc);
                            ps.setTimestamp(3, ts, utc);
                            ps.setDate(4, new Date(ts.getTime()), utc);
                        }
                        ps.addBatch();
                    }
                    ps.setInt(1, 9);
                    ps.setNull(2, Types.TIMESTAMP);
                    ps.setNull(3, Types.TIMESTAMP_WITH_TIMEZONE);
                    ps.setNull(4, Types.DATE);
                    ps.addBatch();
                    t.add("counts", ps.executeBatch());
                    t.rows(
                            "stored",
                            c.createStatement()
                                    .executeQuery("SELECT id, ts::text, tz::text, d::text FROM times ORDER BY id"));
                }));
        all.add(copied("COPY: char(n) padding and trailing spaces cut to fit char(n) and varchar(n)", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE pad (id int PRIMARY KEY, c5 char(5), c3 char(3), v4 varchar(4), t text)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO pad (id, c5, c3, v4, t) VALUES (?, ?, ?, ?, ?)");
            String[][] rows = {{"ab", "abc   ", "abcd  ", " x "}, {"", "a", "", ""}, {"abcde", "ab ", "a  b", "\u00e9"}
            };
            for (int i = 0; i < rows.length; i++) {
                ps.setInt(1, i);
                for (int p = 0; p < 4; p++) {
                    ps.setString(p + 2, rows[i][p]);
                }
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            t.rows(
                    "stored",
                    c.createStatement()
                            .executeQuery(
                                    "SELECT id, '[' || c5::text || ']', octet_length(c5), '[' || c3 || ']', '[' || v4 || ']', t FROM pad"
                                            + " ORDER BY id"));
        }));
        all.add(fallsBack("22001", "COPY: varchar(n) and char(n) overflow fail as the INSERT does", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE over (id int PRIMARY KEY, v varchar(3), c char(2))");
            PreparedStatement ps = c.prepareStatement("INSERT INTO over (id, v, c) VALUES (?, ?, ?)");
            for (int i = 0; i < 4; i++) {
                ps.setInt(1, i);
                ps.setString(2, i == 2 ? "abcd" : "ab");
                ps.setString(3, "x");
                ps.addBatch();
            }
            t.call("batch", ps::executeBatch);
            for (int i = 10; i < 13; i++) {
                ps.setInt(1, i);
                ps.setString(2, "a");
                ps.setString(3, i == 11 ? "xyz" : "x");
                ps.addBatch();
            }
            t.call("char batch", ps::executeBatch);
        }));
        all.add(copied("COPY: backslash, tab, newline, carriage return, \\N, \\. and non-ASCII text", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE esc (id int PRIMARY KEY, s text, v varchar(40))");
            String[] texts = {
                "back\\slash",
                "tab\there",
                "new\nline",
                "carriage\rreturn",
                "\\N",
                "\\.",
                "\\.\n",
                "naïve ☃ 𝄞 日本",
                "",
                " ",
                "\\",
                "a\\tb",
                "NULL",
                "\"quoted\" 'single'",
                "\u00a0nbsp"
            };
            PreparedStatement ps = c.prepareStatement("INSERT INTO esc (id, s, v) VALUES (?, ?, ?)");
            for (int i = 0; i < texts.length; i++) {
                ps.setInt(1, i);
                ps.setString(2, texts[i]);
                ps.setString(3, texts[texts.length - 1 - i]);
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            t.rows("stored", c.createStatement().executeQuery("SELECT id, s, v, length(s) FROM esc ORDER BY id"));
        }));
        all.add(notCopied("COPY: a NUL in a string keeps the INSERT forms and pgjdbc's error", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE nul (id int PRIMARY KEY, s text)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO nul (id, s) VALUES (?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, i == 1 ? "a\u0000b" : "ok");
                ps.addBatch();
            }
            t.call("batch", ps::executeBatch);
        }));
        all.add(copied("COPY: bytea of every byte value, uuid, boolean, bigint and numeric", (env, t) -> {
            Connection c = env.connection();
            exec(c, "CREATE TABLE bin (id int PRIMARY KEY, b bytea, u uuid, f boolean, n bigint, m numeric(20,4))");
            PreparedStatement ps = c.prepareStatement("INSERT INTO bin (id, b, u, f, n, m) VALUES (?, ?, ?, ?, ?, ?)");
            for (int i = 0; i < 4; i++) {
                byte[] bytes = new byte[64];
                for (int k = 0; k < bytes.length; k++) {
                    bytes[k] = (byte) (i * 64 + k);
                }
                ps.setInt(1, i);
                ps.setBytes(2, bytes);
                ps.setObject(3, new UUID(i * 31L, -i));
                ps.setBoolean(4, i % 2 == 0);
                ps.setLong(5, i == 3 ? Long.MIN_VALUE : Long.MAX_VALUE - i);
                ps.setBigDecimal(6, i == 2 ? new BigDecimal("1E+3") : new BigDecimal("-12345.678951").movePointLeft(i));
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            t.rows(
                    "stored",
                    c.createStatement().executeQuery("SELECT id, md5(b), u, f, n, m::text FROM bin ORDER BY id"));
        }));
        all.add(notCopied("COPY: setString into integer, jsonb and enum columns keeps the INSERT forms", (env, t) -> {
            Connection c = env.connection();
            exec(
                    c,
                    "CREATE TYPE mood3 AS ENUM ('sad', 'ok')",
                    "CREATE TABLE strs (id int PRIMARY KEY, i int, j jsonb, m mood3)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO strs (id, i, j, m) VALUES (?, ?, ?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, "42");
                ps.setString(3, "{\"k\": 1}");
                ps.setString(4, "ok");
                ps.addBatch();
            }
            t.call("strings", ps::executeBatch);
            for (int i = 10; i < 13; i++) {
                ps.setInt(1, i);
                ps.setObject(2, "42", Types.INTEGER);
                ps.setObject(3, "{\"k\": 2}", Types.OTHER);
                ps.setObject(4, "sad", Types.OTHER);
                ps.addBatch();
            }
            t.add("typed setObject", ps.executeBatch());
        }));
        all.add(notCopied("COPY: arrays and domains with a CHECK keep the INSERT forms and their errors", (env, t) -> {
            Connection c = env.connection();
            exec(
                    c,
                    "CREATE DOMAIN positive AS int CHECK (VALUE > 0)",
                    "CREATE TABLE dom (id int PRIMARY KEY, p positive, a int[])");
            PreparedStatement ps = c.prepareStatement("INSERT INTO dom (id, p, a) VALUES (?, ?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setInt(2, i + 1);
                ps.setArray(3, c.createArrayOf("int4", new Integer[] {i, null}));
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            for (int i = 10; i < 13; i++) {
                ps.setInt(1, i);
                ps.setInt(2, i == 11 ? -1 : 1);
                ps.setNull(3, Types.ARRAY);
                ps.addBatch();
            }
            t.call("check violated", ps::executeBatch);
        }));
        all.add(notCopied("COPY: a table with a rule, one with row-level security and one with a trigger", (env, t) -> {
            Connection c = env.connection();
            exec(
                    c,
                    "CREATE TABLE ruled (id int PRIMARY KEY, v text)",
                    "CREATE TABLE ruled_log (id int, v text)",
                    "CREATE RULE log_it AS ON INSERT TO ruled DO ALSO INSERT INTO ruled_log VALUES (NEW.id, NEW.v)",
                    "CREATE TABLE secured (id int PRIMARY KEY, v text)",
                    "ALTER TABLE secured ENABLE ROW LEVEL SECURITY",
                    "CREATE POLICY everything ON secured USING (true) WITH CHECK (v <> 'no')",
                    "CREATE TABLE triggered (id int PRIMARY KEY, v text)",
                    "CREATE FUNCTION upper_v() RETURNS trigger LANGUAGE plpgsql AS"
                            + " $$BEGIN NEW.v := upper(NEW.v); RETURN NEW; END$$",
                    "CREATE TRIGGER up BEFORE INSERT ON triggered FOR EACH ROW EXECUTE PROCEDURE upper_v()");
            for (String table : new String[] {"ruled", "secured", "triggered"}) {
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)");
                for (int i = 0; i < 3; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "v" + i);
                    ps.addBatch();
                }
                t.add(table, ps.executeBatch());
            }
        }));
        all.add(notCopied(
                "COPY: a value for an identity column GENERATED ALWAYS fails as the INSERT does (428C9)", (env, t) -> {
                    Connection c = env.connection();
                    exec(c, "CREATE TABLE ident (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v text)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO ident (id, v) VALUES (?, ?)");
                    for (int i = 0; i < 3; i++) {
                        ps.setInt(1, i + 100);
                        ps.setString(2, "v" + i);
                        ps.addBatch();
                    }
                    t.call("batch", ps::executeBatch);
                }));
        all.add(copied(
                "COPY: identity BY DEFAULT, serial and defaults of unnamed columns, drawn per row in order",
                (env, t) -> {
                    Connection c = env.connection();
                    exec(
                            c,
                            "CREATE TABLE drawn (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, s serial,"
                                    + " v text, k text DEFAULT 'kept', at date DEFAULT DATE '2024-01-01')");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO drawn (v) VALUES (?)");
                    for (int i = 0; i < 5; i++) {
                        ps.setString(1, "v" + i);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    PreparedStatement given = c.prepareStatement("INSERT INTO drawn (id, v) VALUES (?, ?)");
                    for (int i = 0; i < 3; i++) {
                        given.setInt(1, 1000 + i);
                        given.setString(2, "given" + i);
                        given.addBatch();
                    }
                    t.add("given ids", given.executeBatch());
                }));
        all.add(copied("COPY: a partitioned table routes each row to its partition", (env, t) -> {
            Connection c = env.connection();
            exec(
                    c,
                    "CREATE TABLE parted (id int, region text, v text) PARTITION BY LIST (region)",
                    "CREATE TABLE parted_eu PARTITION OF parted FOR VALUES IN ('eu')",
                    "CREATE TABLE parted_us PARTITION OF parted FOR VALUES IN ('us')");
            PreparedStatement ps = c.prepareStatement("INSERT INTO parted (id, region, v) VALUES (?, ?, ?)");
            for (int i = 0; i < 6; i++) {
                ps.setInt(1, i);
                ps.setString(2, i % 3 == 0 ? "us" : "eu");
                ps.setString(3, "v" + i);
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            ps.setInt(1, 99);
            ps.setString(2, "asia");
            ps.setString(3, "no partition");
            ps.addBatch();
            ps.setInt(1, 98);
            ps.setString(2, "eu");
            ps.setString(3, "fine");
            ps.addBatch();
            t.call("no partition for a row", ps::executeBatch);
        }));
        all.add(notCopied("COPY: an INSERT into an updatable view keeps its form", (env, t) -> {
            Connection c = env.connection();
            exec(
                    c,
                    "CREATE TABLE base (id int PRIMARY KEY, v text)",
                    "CREATE VIEW base_view AS SELECT id, v FROM base");
            PreparedStatement ps = c.prepareStatement("INSERT INTO base_view (id, v) VALUES (?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v" + i);
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
        }));
        all.add(fallsBack(
                "23505", "COPY: a unique violation in the middle undoes the COPY; the batch runs as sent", (env, t) -> {
                    Connection c = env.connection();
                    exec(c, "CREATE TABLE uniq (id int PRIMARY KEY, v text)", "INSERT INTO uniq VALUES (3, 'old')");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO uniq (id, v) VALUES (?, ?)");
                    for (int i = 0; i < 6; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "v" + i);
                        ps.addBatch();
                    }
                    t.call("autocommit batch", ps::executeBatch);
                    c.setAutoCommit(false);
                    exec(c, "INSERT INTO uniq VALUES (100, 'earlier work')");
                    for (int i = 10; i < 16; i++) {
                        ps.setInt(1, i == 13 ? 3 : i);
                        ps.setString(2, "v" + i);
                        ps.addBatch();
                    }
                    t.call("batch after earlier work", ps::executeBatch);
                    t.call("then a query", () -> c.createStatement().executeQuery("SELECT 1"));
                    c.rollback();
                    for (int i = 20; i < 24; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "v" + i);
                        ps.addBatch();
                    }
                    exec(c, "INSERT INTO uniq VALUES (200, 'earlier work')");
                    t.add("batch after earlier work", ps.executeBatch());
                    c.commit();
                    c.setAutoCommit(true);
                }));
        all.add(copied(
                "COPY: a self-referencing foreign key checked at the end of the batch, as sent otherwise", (env, t) -> {
                    Connection c = env.connection();
                    exec(c, "CREATE TABLE node (id int PRIMARY KEY, parent int REFERENCES node (id))");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO node (id, parent) VALUES (?, ?)");
                    for (int i = 1; i <= 5; i++) {
                        ps.setInt(1, i);
                        if (i == 1) {
                            ps.setNull(2, Types.INTEGER);
                        } else {
                            ps.setInt(2, i - 1);
                        }
                        ps.addBatch();
                    }
                    t.add("parents first", ps.executeBatch());
                    for (int i = 10; i <= 11; i++) {
                        ps.setInt(1, i);
                        ps.setInt(2, 21 - i); // 10 names 11, inserted after it: bare pgjdbc's first INSERT fails
                        ps.addBatch();
                    }
                    t.call("children first", ps::executeBatch);
                }));
        return all;
    }
}
