package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.fallsBack;
import static dev.flushless.jdbc.conformance.Behaviour.of;
import static dev.flushless.jdbc.conformance.Behaviour.rewritten;

import java.io.ByteArrayInputStream;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.postgresql.util.PGobject;

/**
 * Equivalence of batch coalescing: every rewrite kind, run bare and through Flushless, must give the same
 * update counts, generated keys, errors (SQLState, message, BatchUpdateException counts) and final rows.
 * Each rewriting behaviour also asserts that batch mode really coalesced (or fell back, with its reason).
 */
final class BatchRewrites {

    private BatchRewrites() {}

    private static final String ALL_TYPES = "CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');"
            + "CREATE TABLE typed (id int PRIMARY KEY, b bigint, n numeric(12,3), s text, vc varchar(10), flag boolean,"
            + " d date, ts timestamp, tz timestamptz, u uuid, j jsonb, bin bytea, arr int[], m mood)";
    private static final String ITEMS = "CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL,"
            + " price numeric(10,2) CHECK (price >= 0), version int NOT NULL DEFAULT 0)";

    static List<Behaviour> behaviours() {
        List<Behaviour> all = new ArrayList<>();
        all.add(rewritten("insert-", "batch insert: every common column type, values and NULLs", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute(ALL_TYPES);
            PreparedStatement ps =
                    c.prepareStatement("INSERT INTO typed (id, b, n, s, vc, flag, d, ts, tz, u, j, bin, arr, m)"
                            + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?, ?::mood)");
            for (int i = 1; i <= 4; i++) {
                boolean nulls = i == 3;
                ps.setInt(1, i);
                if (nulls) {
                    ps.setNull(2, Types.BIGINT);
                    ps.setNull(3, Types.NUMERIC);
                    ps.setNull(4, Types.VARCHAR);
                    ps.setObject(5, null);
                    ps.setNull(6, Types.BOOLEAN);
                    ps.setNull(7, Types.DATE);
                    ps.setNull(8, Types.TIMESTAMP);
                    ps.setObject(9, null, Types.TIMESTAMP_WITH_TIMEZONE);
                    ps.setNull(10, Types.OTHER);
                    ps.setNull(11, Types.VARCHAR);
                    ps.setBytes(12, null);
                    ps.setNull(13, Types.ARRAY);
                    ps.setNull(14, Types.VARCHAR);
                } else {
                    ps.setLong(2, 10_000_000_000L * i);
                    ps.setBigDecimal(3, new BigDecimal("12.3456").multiply(BigDecimal.valueOf(i)));
                    ps.setString(4, "text 'quoted' ? ; -- " + i);
                    ps.setString(5, "vc" + i);
                    ps.setBoolean(6, i % 2 == 0);
                    ps.setObject(7, LocalDate.of(2024, 2, 28).plusDays(i));
                    ps.setTimestamp(8, Timestamp.valueOf("2024-03-01 12:00:00.123456"));
                    ps.setObject(9, OffsetDateTime.of(2024, 3, 1, 12, 0, 0, 0, ZoneOffset.ofHours(i)));
                    ps.setObject(10, new UUID(i, i * 7L));
                    ps.setString(11, "{\"k\": " + i + "}");
                    ps.setBytes(12, new byte[] {(byte) i, 0, (byte) 255});
                    ps.setArray(13, c.createArrayOf("int4", new Integer[] {i, i + 1, null}));
                    ps.setString(14, i % 2 == 0 ? "happy" : "sad");
                }
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            t.rows("read back", c.createStatement().executeQuery("SELECT * FROM typed ORDER BY id"));
        }));
        all.add(rewritten(
                "insert-",
                "batch insert: mixed setters for one column (setInt, setLong, setObject, setNull)",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE mixed (k int PRIMARY KEY, v bigint, w numeric, s text)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO mixed VALUES (?, ?, ?, ?)");
                    Object[][] rows = {
                        {1, 1, 1.5, "a"}, {2, 2L, new BigDecimal("2.50"), 'c'}, {3, null, null, null}, {4, "4", 4, 4}
                    };
                    for (Object[] row : rows) {
                        ps.setInt(1, (Integer) row[0]);
                        if (row[1] instanceof Integer i) {
                            ps.setInt(2, i);
                        } else if (row[1] instanceof Long l) {
                            ps.setLong(2, l);
                        } else if (row[1] == null) {
                            ps.setNull(2, Types.BIGINT);
                        } else {
                            ps.setObject(2, row[1], Types.BIGINT);
                        }
                        ps.setObject(3, row[2]);
                        ps.setObject(4, row[3] == null ? null : row[3].toString(), Types.VARCHAR);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                }));
        for (int size : new int[] {1, 2, 9, 10, 11, 31}) {
            Behaviour.Action sizedInsert = (env, t) -> {
                Connection c = env.open("flushless.maxRowsPerStatement=10");
                c.createStatement().execute("CREATE TABLE sized (id int PRIMARY KEY, v text)");
                PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)");
                for (int i = 0; i < size; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "v" + i);
                    ps.addBatch();
                }
                t.add("counts", ps.executeLargeBatch());
                t.rows("count", c.createStatement().executeQuery("SELECT count(*), sum(id) FROM sized"));
            };
            String name = "batch insert of " + size + " rows around a chunk of 10";
            all.add(size == 1 ? fallsBack("one row", name, sizedInsert) : rewritten("insert-", name, sizedInsert));
        }
        for (int size : new int[] {1, 2, 9, 10, 11}) {
            Behaviour.Action sizedUpdate = (env, t) -> {
                Connection c = env.open("flushless.maxRowsPerStatement=10");
                c.createStatement().execute("CREATE TABLE upd (id int PRIMARY KEY, a text, b numeric, c date)");
                c.createStatement()
                        .execute("INSERT INTO upd SELECT g, 'a', g, DATE '2020-01-01' FROM generate_series(0, 20) g");
                PreparedStatement ps = c.prepareStatement("UPDATE upd SET a = ?, b = ?, c = ? WHERE id = ?");
                for (int i = 0; i < size; i++) {
                    if (i % 2 == 0) {
                        ps.setNull(1, Types.VARCHAR);
                        ps.setNull(2, Types.NUMERIC);
                        ps.setNull(3, Types.DATE);
                    } else {
                        ps.setString(1, "v" + i);
                        ps.setBigDecimal(2, new BigDecimal("0.5").multiply(BigDecimal.valueOf(i)));
                        ps.setObject(3, LocalDate.of(2021, 1, 1).plusDays(i), Types.DATE);
                    }
                    ps.setInt(4, i * 2);
                    ps.addBatch();
                }
                t.add("counts", ps.executeLargeBatch());
                t.rows("rows", c.createStatement().executeQuery("SELECT * FROM upd ORDER BY id"));
            };
            String updateName = "batch update of " + size + " rows around a chunk of 10, NULLs in SET";
            all.add(
                    size == 1
                            ? fallsBack("one row", updateName, sizedUpdate)
                            : rewritten("update-join", updateName, sizedUpdate));
        }
        all.add(rewritten(
                "insert-",
                "batch insert and update: strings that need quoting in an array, empty and NULL",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute("CREATE TABLE strs (id int PRIMARY KEY, s text, v varchar(20), b bytea,"
                                    + " n numeric, f float8, r real, u uuid, ok boolean)");
                    String[] values = {
                        "",
                        "NULL",
                        "null",
                        "a,b",
                        "{x}",
                        "\"q\"",
                        "back\\slash",
                        " spaced ",
                        "tab\there",
                        "new\nline",
                        "ünï©ødé ✓",
                        "'",
                        "()",
                        null
                    };
                    PreparedStatement ps = c.prepareStatement("INSERT INTO strs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)");
                    for (int i = 0; i < values.length; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, values[i]);
                        ps.setString(3, values[i]);
                        ps.setBytes(
                                4,
                                values[i] == null ? null : values[i].getBytes(java.nio.charset.StandardCharsets.UTF_8));
                        ps.setBigDecimal(5, i % 3 == 0 ? null : new BigDecimal(i % 2 == 0 ? "1E+3" : "-0.000100"));
                        ps.setDouble(
                                6, i == 1 ? Double.NaN : i == 2 ? Double.NEGATIVE_INFINITY : i == 3 ? -0.0 : 0.1 * i);
                        ps.setFloat(7, 0.1f * i);
                        ps.setObject(8, i % 2 == 0 ? null : new UUID(i, -i));
                        ps.setBoolean(9, i % 2 == 0);
                        ps.addBatch();
                    }
                    t.add("insert counts", ps.executeBatch());
                    PreparedStatement update = c.prepareStatement("UPDATE strs SET s = ?, v = ? WHERE id = ?");
                    for (int i = 0; i < values.length; i++) {
                        update.setString(1, values[values.length - 1 - i]);
                        update.setString(2, values[i] == null ? "was null" : values[i] + "!");
                        update.setInt(3, i);
                        update.addBatch();
                    }
                    t.add("update counts", update.executeBatch());
                    t.rows(
                            "rows",
                            c.createStatement()
                                    .executeQuery(
                                            "SELECT id, s, s IS NULL, v, b, n, f, r, u, ok FROM strs ORDER BY id"));
                }));
        all.add(of("batch on a closed statement or connection fails as pgjdbc fails", (env, t) -> {
            Connection c = env.open();
            c.createStatement().execute("CREATE TABLE closing (id int PRIMARY KEY)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO closing VALUES (?)");
            ps.setInt(1, 1);
            ps.addBatch();
            ps.setInt(1, 2);
            ps.addBatch();
            ps.close();
            t.call("addBatch after close", () -> {
                ps.addBatch();
                return "added";
            });
            t.call("executeBatch after close", ps::executeBatch);
            PreparedStatement open = c.prepareStatement("INSERT INTO closing VALUES (?)");
            open.setInt(1, 3);
            open.addBatch();
            open.setInt(1, 4);
            open.addBatch();
            Statement s = c.createStatement();
            s.addBatch("INSERT INTO closing VALUES (5)");
            s.addBatch("INSERT INTO closing VALUES (6)");
            c.close();
            t.call("executeBatch after connection close", open::executeBatch);
            t.call("statement batch after connection close", s::executeBatch);
        }));
        all.add(rewritten("insert-", "batch insert of 100,000 rows in a transaction", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute("CREATE TABLE big (id int PRIMARY KEY, a int, b text, c bigint, d boolean)");
            c.setAutoCommit(false);
            PreparedStatement ps = c.prepareStatement("INSERT INTO big VALUES (?, ?, ?, ?, ?)");
            for (int i = 0; i < 100_000; i++) {
                ps.setInt(1, i);
                ps.setInt(2, i % 97);
                ps.setString(3, Integer.toHexString(i));
                ps.setLong(4, (long) i * i);
                ps.setBoolean(5, i % 3 == 0);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            c.commit();
            long ones = java.util.Arrays.stream(counts).filter(x -> x == 1).count();
            t.add("counts", counts.length + " entries, " + ones + " of them 1");
            t.rows("sums", c.createStatement().executeQuery("SELECT count(*), sum(a), sum(c) FROM big"));
        }));
        all.add(rewritten(
                "insert-", "batch insert: parameters persist across addBatch, clearBatch discards rows", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE persist (id int PRIMARY KEY, a text, b text)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO persist VALUES (?, ?, ?)");
                    ps.setInt(1, 1);
                    ps.setString(2, "a");
                    ps.setString(3, "b");
                    ps.addBatch();
                    ps.setInt(1, 2);
                    ps.addBatch();
                    ps.clearBatch();
                    ps.setInt(1, 3);
                    ps.addBatch();
                    ps.setInt(1, 4);
                    ps.setString(3, "changed");
                    ps.addBatch();
                    t.add("counts", ps.executeBatch());
                    t.add("empty batch", ps.executeBatch());
                    ps.setInt(1, 5);
                    t.add("single execute", ps.executeUpdate());
                }));
        all.add(rewritten(
                "insert-unnest",
                "batch insert without a column list (BenchBase's loaders): the table's first columns in order, a dropped"
                        + " column skipped, the rest defaulted, setDouble into numeric",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute("CREATE TABLE nolist (id int PRIMARY KEY, gone int, amount numeric(6,2), at"
                                    + " timestamp, info char(8), note text DEFAULT 'default');"
                                    + " ALTER TABLE nolist DROP COLUMN gone");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO nolist VALUES (?, ?, ?, ?)");
                    for (int i = 1; i <= 60; i++) {
                        ps.setInt(1, i);
                        ps.setDouble(2, i * 1.005);
                        if (i % 3 == 0) {
                            ps.setNull(3, Types.TIMESTAMP);
                        } else {
                            ps.setTimestamp(
                                    3,
                                    Timestamp.valueOf(
                                            LocalDateTime.of(2026, 1, 1, 0, 0).plusMinutes(i)));
                        }
                        ps.setString(4, "x" + i);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    t.rows("rows", c.createStatement().executeQuery("SELECT * FROM nolist ORDER BY id"));
                    for (int i = 61; i <= 120; i++) {
                        ps.setInt(1, i == 90 ? 5 : i); // a duplicate key in the middle: undone, re-run as sent
                        ps.addBatch();
                    }
                    t.call("duplicate key", ps::executeBatch);
                }));
        all.add(of("batch insert: a row missing a parameter fails as pgjdbc fails", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute("CREATE TABLE missing (id int PRIMARY KEY, a text)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO missing VALUES (?, ?)");
            ps.setInt(1, 1);
            ps.addBatch();
            t.call("batch", ps::executeBatch);
        }));
        for (boolean autocommit : new boolean[] {true, false}) {
            String mode = autocommit ? "autocommit" : "transaction";
            all.add(rewritten(
                    "insert-", "batch insert (" + mode + "): generated keys, all columns, in batch order", (env, t) -> {
                        Connection c = env.open("flushless.maxRowsPerStatement=4");
                        c.createStatement()
                                .execute(
                                        "CREATE TABLE keyed (id serial PRIMARY KEY, name text, at date DEFAULT DATE '2024-01-01')");
                        c.setAutoCommit(autocommit);
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO keyed (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS);
                        for (int i = 0; i < 10; i++) {
                            ps.setString(1, "n" + i);
                            ps.addBatch();
                        }
                        t.add("counts", ps.executeBatch());
                        ResultSet keys = ps.getGeneratedKeys();
                        t.add("same keys object", keys == ps.getGeneratedKeys());
                        t.add("type", keys.getType());
                        t.add("before first", keys.isBeforeFirst());
                        t.rows("keys", keys);
                        if (!autocommit) {
                            c.commit();
                        }
                    }));
            all.add(rewritten("insert-", "batch insert (" + mode + "): generated keys by column name", (env, t) -> {
                Connection c = env.connection();
                c.createStatement().execute("CREATE TABLE named (\"Id\" bigserial PRIMARY KEY, name text)");
                c.setAutoCommit(autocommit);
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO named (name) VALUES (?)", new String[] {"Id", "name"});
                for (int i = 0; i < 5; i++) {
                    ps.setString(1, "n" + i);
                    ps.addBatch();
                }
                t.add("counts", ps.executeBatch());
                ResultSet keys = ps.getGeneratedKeys();
                List<String> read = new ArrayList<>();
                while (keys.next()) {
                    read.add(keys.getLong("Id") + "/" + keys.getString(2) + "/row" + keys.getRow());
                }
                t.add("keys", read);
                t.call("keys.previous", keys::previous);
                if (!autocommit) {
                    c.rollback();
                }
            }));
            all.add(of("batch insert (" + mode + "): unique violation in the middle", (env, t) -> {
                Connection c = env.connection();
                c.createStatement().execute(ITEMS);
                c.createStatement().execute("INSERT INTO item VALUES (5, 'existing', 1, 0)");
                c.setAutoCommit(autocommit);
                PreparedStatement ps = c.prepareStatement("INSERT INTO item (id, name, price) VALUES (?, ?, ?)");
                for (int i = 1; i <= 8; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "item " + i);
                    ps.setBigDecimal(3, BigDecimal.TEN);
                    ps.addBatch();
                }
                t.call("batch", ps::executeBatch);
                if (!autocommit) {
                    t.call("after error", () -> c.createStatement().executeQuery("SELECT 1"));
                    c.rollback();
                }
                t.rows("rows", c.createStatement().executeQuery("SELECT id, name FROM item ORDER BY id"));
            }));
            all.add(of("batch insert (" + mode + "): check, not-null and foreign-key violations", (env, t) -> {
                Connection c = env.connection();
                c.createStatement().execute(ITEMS);
                c.createStatement()
                        .execute("CREATE TABLE line (id int PRIMARY KEY, item int NOT NULL REFERENCES item)");
                c.setAutoCommit(autocommit);
                PreparedStatement items = c.prepareStatement("INSERT INTO item (id, name, price) VALUES (?, ?, ?)");
                Object[][] rows = {{1, "ok", "1"}, {2, "negative", "-1"}, {3, null, "1"}};
                for (Object[] row : rows) {
                    items.clearBatch();
                    items.setInt(1, (Integer) row[0]);
                    items.setString(2, (String) row[1]);
                    items.setBigDecimal(3, new BigDecimal((String) row[2]));
                    items.addBatch();
                    items.setInt(1, 100 + (Integer) row[0]);
                    items.setString(2, "fine");
                    items.addBatch();
                    t.call("item batch " + row[0], items::executeBatch);
                    if (!autocommit) {
                        c.rollback();
                    }
                }
                PreparedStatement lines = c.prepareStatement("INSERT INTO line VALUES (?, ?)");
                for (int i = 1; i <= 3; i++) {
                    lines.setInt(1, i);
                    lines.setInt(2, i == 3 ? 999 : 1);
                    lines.addBatch();
                }
                t.call("line batch", lines::executeBatch);
                if (!autocommit) {
                    c.rollback();
                }
            }));
            all.add(rewritten(
                    "update-join",
                    "batch update (" + mode + "): versioned rows, stale, missing and repeated keys",
                    (env, t) -> {
                        Connection c = env.connection();
                        c.createStatement().execute(ITEMS);
                        c.createStatement()
                                .execute("INSERT INTO item SELECT g, 'item ' || g, g, 1 FROM generate_series(1, 10) g");
                        c.setAutoCommit(autocommit);
                        PreparedStatement ps = c.prepareStatement(
                                "UPDATE item SET name = ?, price = ?, version = version + 1 WHERE id = ? AND version = ?");
                        int[][] rows = {{1, 1}, {2, 0}, {3, 1}, {42, 1}, {3, 1}, {3, 2}, {4, 1}, {1, 2}};
                        for (int[] row : rows) {
                            ps.setString(1, "renamed " + row[0] + "/" + row[1]);
                            ps.setBigDecimal(2, new BigDecimal(row[0] + ".5"));
                            ps.setInt(3, row[0]);
                            ps.setInt(4, row[1]);
                            ps.addBatch();
                        }
                        t.add("counts", ps.executeBatch());
                        if (!autocommit) {
                            c.commit();
                        }
                    }));
            all.add(rewritten(
                    "delete-using", "batch delete (" + mode + "): existing, missing and repeated keys", (env, t) -> {
                        Connection c = env.connection();
                        c.createStatement().execute(ITEMS);
                        c.createStatement()
                                .execute("INSERT INTO item SELECT g, 'item', g % 3, 0 FROM generate_series(1, 10) g");
                        c.setAutoCommit(autocommit);
                        PreparedStatement ps = c.prepareStatement("DELETE FROM item WHERE id = ?");
                        for (int id : new int[] {1, 2, 2, 77, 5}) {
                            ps.setInt(1, id);
                            ps.addBatch();
                        }
                        t.add("counts", ps.executeBatch());
                        PreparedStatement byPrice = c.prepareStatement("DELETE FROM item WHERE price = ? AND name = ?");
                        for (String price : new String[] {"1", "1.00", "2"}) {
                            byPrice.setBigDecimal(1, new BigDecimal(price));
                            byPrice.setString(2, "item");
                            byPrice.addBatch();
                        }
                        t.add("non-unique key counts", byPrice.executeBatch());
                        if (!autocommit) {
                            c.commit();
                        }
                    }));
        }
        all.add(rewritten(
                "update-join",
                "batch update: keys by text with trailing spaces, bpchar, uuid, boolean, bytea",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute(
                                    "CREATE TABLE keys (t text, c char(5), u uuid, f boolean, b bytea, hits int DEFAULT 0)");
                    c.createStatement()
                            .execute(
                                    "INSERT INTO keys VALUES ('a', 'a', '00000000-0000-0001-0000-000000000001', true, '\\x01'),"
                                            + " ('a ', 'b', '00000000-0000-0001-0000-000000000002', false, '\\x02')");
                    PreparedStatement byText = c.prepareStatement("UPDATE keys SET hits = hits + 1 WHERE t = ?");
                    for (String key : new String[] {"a", "a ", "a", "b"}) {
                        byText.setString(1, key);
                        byText.addBatch();
                    }
                    t.add("text counts", byText.executeBatch());
                    PreparedStatement byChar = c.prepareStatement("UPDATE keys SET hits = hits + 10 WHERE c = ?");
                    for (String key : new String[] {"a", "a  ", "b"}) {
                        byChar.setString(1, key);
                        byChar.addBatch();
                    }
                    t.add("bpchar counts", byChar.executeBatch());
                    PreparedStatement byOthers =
                            c.prepareStatement("UPDATE keys SET hits = hits + 100 WHERE u = ? AND f = ? AND b = ?");
                    byOthers.setObject(1, new UUID(1, 1));
                    byOthers.setBoolean(2, true);
                    byOthers.setBytes(3, new byte[] {1});
                    byOthers.addBatch();
                    byOthers.setObject(1, new UUID(1, 2));
                    byOthers.setBoolean(2, false);
                    byOthers.setBytes(3, new byte[] {2});
                    byOthers.addBatch();
                    t.add("uuid/bool/bytea counts", byOthers.executeBatch());
                }));
        all.add(rewritten("update-join", "batch update: timestamps and dates set with every setter", (env, t) -> {
            Connection c = env.connection();
            c.createStatement()
                    .execute("CREATE TABLE times (id int PRIMARY KEY, ts timestamp, tz timestamptz, d date)");
            c.createStatement().execute("INSERT INTO times (id) SELECT generate_series(1, 4)");
            PreparedStatement ps = c.prepareStatement("UPDATE times SET ts = ?, tz = ?, d = ? WHERE id = ?");
            for (int i = 1; i <= 4; i++) {
                ps.setTimestamp(1, Timestamp.valueOf(LocalDateTime.of(2024, 1, i, 10, 30)));
                ps.setTimestamp(
                        2,
                        Timestamp.valueOf(LocalDateTime.of(2024, 1, i, 10, 30)),
                        java.util.Calendar.getInstance(java.util.TimeZone.getTimeZone("Asia/Tokyo")));
                ps.setDate(3, java.sql.Date.valueOf(LocalDate.of(2024, 2, i)));
                ps.setInt(4, i);
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            PreparedStatement typed = c.prepareStatement("UPDATE times SET ts = ?, tz = ? WHERE id = ?");
            for (int i = 1; i <= 2; i++) {
                typed.setObject(1, LocalDateTime.of(2025, 5, i, 1, 2, 3));
                typed.setObject(2, OffsetDateTime.of(2025, 5, i, 1, 2, 3, 0, ZoneOffset.ofHours(-5)));
                typed.setLong(3, i);
                typed.addBatch();
            }
            t.add("typed counts", typed.executeBatch());
            t.rows("rows", c.createStatement().executeQuery("SELECT id, ts, tz::text, d FROM times ORDER BY id"));
        }));
        all.add(rewritten(
                "update-join",
                "batch update: alias, qualified and quoted identifiers, schema-qualified table",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute(
                                    "CREATE SCHEMA other; CREATE TABLE other.\"Order\" (\"Id\" int PRIMARY KEY, \"Total\" numeric, note text)");
                    c.createStatement().execute("INSERT INTO other.\"Order\" VALUES (1, 10, 'x'), (2, 20, 'y')");
                    PreparedStatement ps = c.prepareStatement(
                            "UPDATE other.\"Order\" AS o SET \"Total\" = ? /* ? in a comment */ WHERE o.\"Id\" = ? AND note <> 'where ?'");
                    ps.setBigDecimal(1, new BigDecimal("11.5"));
                    ps.setInt(2, 1);
                    ps.addBatch();
                    ps.setBigDecimal(1, new BigDecimal("21.5"));
                    ps.setInt(2, 2);
                    ps.addBatch();
                    t.add("counts", ps.executeBatch());
                    t.rows("rows", c.createStatement().executeQuery("SELECT * FROM other.\"Order\" ORDER BY 1"));
                    c.createStatement().execute("DROP SCHEMA other CASCADE");
                }));
        all.add(rewritten(
                "update-join",
                "batch update: counters (stock + ?, price * ?, name || ?) with repeated keys",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute("CREATE TABLE inventory (sku text PRIMARY KEY, stock int NOT NULL"
                                    + " CHECK (stock >= 0), price numeric(10,2), name text)");
                    c.createStatement()
                            .execute("INSERT INTO inventory VALUES ('a', 10, 1.50, 'A'), ('b', 0, 2, 'B'),"
                                    + " ('c', 5, 3, 'C')");
                    PreparedStatement ps = c.prepareStatement(
                            "UPDATE inventory SET stock = stock + ?, price = price * ?, name = name || ? WHERE sku = ?");
                    Object[][] rows = {{"a", 5}, {"b", 1}, {"a", -3}, {"z", 1}, {"a", 2}, {"c", -1}};
                    for (Object[] row : rows) {
                        ps.setInt(1, (Integer) row[1]);
                        ps.setBigDecimal(2, new BigDecimal("1.1"));
                        ps.setString(3, "+");
                        ps.setString(4, (String) row[0]);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    ps.clearBatch();
                    ps.setInt(1, -100);
                    ps.setBigDecimal(2, BigDecimal.ONE);
                    ps.setString(3, "");
                    ps.setString(4, "b");
                    ps.addBatch();
                    ps.setString(4, "c");
                    ps.addBatch();
                    t.call("check violation", ps::executeBatch);
                    PreparedStatement untyped =
                            c.prepareStatement("UPDATE inventory SET stock = stock + ? WHERE sku = ?");
                    for (String sku : new String[] {"a", "c"}) {
                        untyped.setObject(1, "1", Types.OTHER);
                        untyped.setString(2, sku);
                        untyped.addBatch();
                    }
                    t.add("untyped counts", untyped.executeBatch());
                    for (String sku : new String[] {"a", "c"}) {
                        untyped.setString(1, "1");
                        untyped.setString(2, sku);
                        untyped.addBatch();
                    }
                    t.call("varchar parameter", untyped::executeBatch);
                }));
        all.add(fallsBack(
                "different types", "batch update: a key bound with different setter types falls back", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute(ITEMS);
                    c.createStatement().execute("INSERT INTO item SELECT g, 'x', 1, 0 FROM generate_series(1, 3) g");
                    PreparedStatement ps = c.prepareStatement("UPDATE item SET name = ? WHERE id = ?");
                    ps.setString(1, "a");
                    ps.setInt(2, 1);
                    ps.addBatch();
                    ps.setString(1, "b");
                    ps.setLong(2, 2);
                    ps.addBatch();
                    t.add("counts", ps.executeBatch());
                }));
        all.add(of("batch update: a string bound to an integer key fails as pgjdbc fails", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute(ITEMS);
            c.createStatement().execute("INSERT INTO item VALUES (1, 'x', 1, 0)");
            PreparedStatement ps = c.prepareStatement("UPDATE item SET name = ? WHERE id = ?");
            ps.setString(1, "a");
            ps.setString(2, "1");
            ps.addBatch();
            t.call("batch", ps::executeBatch);
        }));
        all.add(fallsBack(
                "triggers",
                "batch insert: a trigger added through another connection of the driver is seen at once",
                (env, t) -> lateTrigger(env, t, false)));
        all.add(fallsBack(
                "re-run as sent",
                "batch insert: a trigger added by another program is noticed and the batch re-run",
                (env, t) -> lateTrigger(env, t, true)));
        all.add(fallsBack("user triggers", "batch insert into a table with a trigger runs as sent", (env, t) -> {
            Connection c = env.connection();
            c.createStatement()
                    .execute(
                            "CREATE TABLE audited (id int PRIMARY KEY, v text);"
                                    + "CREATE TABLE audit_log (n bigserial, what text);"
                                    + "CREATE FUNCTION audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                                    + " INSERT INTO audit_log (what) SELECT 'saw ' || count(*) FROM audited;"
                                    + " IF NEW.v = 'skip' THEN RETURN NULL; END IF; RETURN NEW; END $$;"
                                    + "CREATE TRIGGER audited_insert BEFORE INSERT ON audited FOR EACH ROW EXECUTE FUNCTION audit()");
            PreparedStatement ps = c.prepareStatement("INSERT INTO audited VALUES (?, ?)");
            for (int i = 1; i <= 4; i++) {
                ps.setInt(1, i);
                ps.setString(2, i == 2 ? "skip" : "keep");
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
        }));
        all.add(fallsBack("not a plain table", "batch insert into a view runs as sent", (env, t) -> {
            Connection c = env.connection();
            c.createStatement()
                    .execute(
                            "CREATE TABLE base (id int PRIMARY KEY, v text); CREATE VIEW base_view AS SELECT * FROM base");
            PreparedStatement ps = c.prepareStatement("INSERT INTO base_view VALUES (?, ?)");
            for (int i = 1; i <= 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v");
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
        }));
        all.add(fallsBack("stream or LOB", "batch insert with a stream parameter runs as sent", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute("CREATE TABLE blobs (id int PRIMARY KEY, data bytea)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO blobs VALUES (?, ?)");
            ps.setInt(1, 1);
            ps.setBytes(2, new byte[] {1});
            ps.addBatch();
            ps.setInt(1, 2);
            ps.setBinaryStream(2, new ByteArrayInputStream(new byte[] {2, 2}), 2);
            ps.addBatch();
            t.add("counts", ps.executeBatch());
            ps.clearParameters();
            ps.setInt(1, 3);
            ps.setBytes(2, new byte[] {3});
            ps.addBatch();
            ps.setInt(1, 4);
            ps.addBatch();
            t.add("after clearParameters", ps.executeBatch());
        }));
        all.add(rewritten(
                "insert-", "batch insert: partitioned table, DEFAULT, now() and nextval in VALUES", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute(
                                    "CREATE SEQUENCE seq; CREATE TABLE parted (id int, region text, at date DEFAULT DATE '2020-01-01',"
                                            + " n bigint, same boolean) PARTITION BY LIST (region);"
                                            + "CREATE TABLE parted_eu PARTITION OF parted FOR VALUES IN ('eu');"
                                            + "CREATE TABLE parted_us PARTITION OF parted FOR VALUES IN ('us')");
                    c.setAutoCommit(false);
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO parted (id, region, at, n, same) VALUES (?, ?, DEFAULT, nextval('seq'), now() = now())");
                    for (int i = 1; i <= 6; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, i % 2 == 0 ? "eu" : "us");
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    c.commit();
                    t.rows(
                            "rows",
                            c.createStatement()
                                    .executeQuery("SELECT tableoid::regclass::text, * FROM parted ORDER BY id"));
                }));
        all.add(rewritten(
                "insert-", "batch insert: jsonb via PGobject, enum via Types.OTHER, arrays via setObject", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute(
                                    "CREATE TYPE color AS ENUM ('red', 'green');"
                                            + "CREATE TABLE objects (id int PRIMARY KEY, j jsonb, c color, tags text[], nums int[])");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO objects VALUES (?, ?, ?, ?, ?)");
                    for (int i = 1; i <= 3; i++) {
                        PGobject json = new PGobject();
                        json.setType("jsonb");
                        json.setValue("{\"i\": " + i + ", \"list\": [1, 2]}");
                        ps.setInt(1, i);
                        ps.setObject(2, json);
                        ps.setObject(3, i % 2 == 0 ? "red" : "green", Types.OTHER);
                        ps.setObject(4, new String[] {"a" + i, null, "c,d"});
                        ps.setObject(5, new int[] {i, i * 2});
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    t.rows(
                            "rows",
                            c.createStatement()
                                    .executeQuery("SELECT id, j::text, c::text, tags, nums FROM objects ORDER BY id"));
                }));
        all.add(of("batch insert: INSERT ... RETURNING without a keys request counts 0 as pgjdbc does", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute("CREATE TABLE ret (id serial PRIMARY KEY, v text)");
            PreparedStatement ps = c.prepareStatement("INSERT INTO ret (v) VALUES (?) RETURNING id, v");
            for (int i = 0; i < 3; i++) {
                ps.setString(1, "v" + i);
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
            t.rows("keys", ps.getGeneratedKeys());
            PreparedStatement withKeys = c.prepareStatement(
                    "INSERT INTO ret (v) VALUES (?) RETURNING id, v", Statement.RETURN_GENERATED_KEYS);
            for (int i = 0; i < 3; i++) {
                withKeys.setString(1, "k" + i);
                withKeys.addBatch();
            }
            t.add("counts with keys", withKeys.executeBatch());
            t.rows("keys with keys", withKeys.getGeneratedKeys());
        }));
        all.add(of("batch: parent and child batches in one transaction, then delete restricted parent", (env, t) -> {
            Connection c = env.connection();
            c.createStatement()
                    .execute(
                            "CREATE TABLE parent (id int PRIMARY KEY, name text);"
                                    + "CREATE TABLE child (id int PRIMARY KEY, parent int NOT NULL REFERENCES parent ON DELETE RESTRICT, v text)");
            c.setAutoCommit(false);
            PreparedStatement parents = c.prepareStatement("INSERT INTO parent VALUES (?, ?)");
            PreparedStatement children = c.prepareStatement("INSERT INTO child VALUES (?, ?, ?)");
            for (int p = 1; p <= 3; p++) {
                parents.setInt(1, p);
                parents.setString(2, "p" + p);
                parents.addBatch();
                for (int ch = 1; ch <= 2; ch++) {
                    children.setInt(1, p * 10 + ch);
                    children.setInt(2, p);
                    children.setString(3, "c");
                    children.addBatch();
                }
            }
            t.add("parents", parents.executeBatch());
            t.add("children", children.executeBatch());
            PreparedStatement update = c.prepareStatement("UPDATE child SET v = ? WHERE parent = ?");
            for (int p = 1; p <= 3; p++) {
                update.setString(1, "updated " + p);
                update.setInt(2, p);
                update.addBatch();
            }
            t.add("child updates", update.executeBatch());
            c.commit();
            PreparedStatement deleteParents = c.prepareStatement("DELETE FROM parent WHERE id = ?");
            deleteParents.setInt(1, 1);
            deleteParents.addBatch();
            t.call("restricted delete", deleteParents::executeBatch);
            c.rollback();
            PreparedStatement deleteChildren = c.prepareStatement("DELETE FROM child WHERE parent = ?");
            deleteChildren.setInt(1, 1);
            deleteChildren.addBatch();
            deleteChildren.setInt(1, 2);
            deleteChildren.addBatch();
            t.add("child deletes", deleteChildren.executeBatch());
            t.add("parent deletes", deleteParents.executeBatch());
            c.commit();
        }));
        all.add(of(
                "batch: statements of other kinds (ON CONFLICT, INSERT ... SELECT, UPDATE ... FROM) run as sent",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute(ITEMS);
                    PreparedStatement upsert = c.prepareStatement(
                            "INSERT INTO item (id, name, price) VALUES (?, ?, 1) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name");
                    for (int id : new int[] {1, 2, 1}) {
                        upsert.setInt(1, id);
                        upsert.setString(2, "n" + id);
                        upsert.addBatch();
                    }
                    t.add("upsert", upsert.executeBatch());
                    PreparedStatement select = c.prepareStatement(
                            "INSERT INTO item (id, name, price) SELECT ?, name, price FROM item WHERE id = ?");
                    select.setInt(1, 10);
                    select.setInt(2, 1);
                    select.addBatch();
                    t.add("insert select", select.executeBatch());
                    PreparedStatement from = c.prepareStatement(
                            "UPDATE item SET price = i.price + ? FROM item i WHERE item.id = ? AND i.id = 1");
                    from.setInt(1, 5);
                    from.setInt(2, 2);
                    from.addBatch();
                    t.add("update from", from.executeBatch());
                }));
        for (boolean autocommit : new boolean[] {true, false}) {
            String mode = autocommit ? "autocommit" : "transaction";
            all.add(rewritten(
                    "statement-chain",
                    "statement batch (" + mode + "): inserts, updates and deletes over several tables",
                    (env, t) -> {
                        Connection c = env.connection();
                        c.createStatement()
                                .execute(ITEMS
                                        + "; CREATE TABLE note (id int PRIMARY KEY, item int REFERENCES item, text text);"
                                        + "CREATE TABLE log (n int, what text)");
                        c.createStatement()
                                .execute(
                                        "INSERT INTO item VALUES (1, 'one', 1, 0), (2, 'two', 2, 0), (3, 'three', 3, 0)");
                        c.setAutoCommit(autocommit);
                        Statement s = c.createStatement();
                        s.addBatch("INSERT INTO item VALUES (4, 'four', 4, 0), (5, 'five', 5, 0)");
                        s.addBatch("INSERT INTO note VALUES (1, 4, 'child of a parent inserted just before')");
                        s.addBatch("INSERT INTO log VALUES (1, 'inserted; ? is not a parameter here')");
                        s.addBatch("UPDATE item SET price = price * 2 WHERE id IN (1, 2, 99)");
                        s.addBatch("INSERT INTO log VALUES (2, 'second log row')");
                        s.addBatch("DELETE FROM note WHERE id = 1");
                        s.addBatch("UPDATE item SET name = upper(name) WHERE id >= 4");
                        s.addBatch("DELETE FROM log WHERE n = 1");
                        s.addBatch("UPDATE item SET version = version + 1 WHERE id = 42");
                        t.add("counts", s.executeBatch());
                        if (!autocommit) {
                            c.commit();
                        }
                        t.add("empty batch", s.executeBatch());
                    }));
            all.add(of(
                    "statement batch (" + mode + "): a failing member gives pgjdbc's exception and counts",
                    (env, t) -> {
                        Connection c = env.connection();
                        c.createStatement().execute(ITEMS + "; CREATE TABLE other (id int PRIMARY KEY)");
                        c.setAutoCommit(autocommit);
                        Statement s = c.createStatement();
                        s.addBatch("INSERT INTO other VALUES (1)");
                        s.addBatch("INSERT INTO item VALUES (1, 'x', 1, 0)");
                        s.addBatch("INSERT INTO item VALUES (2, NULL, 1, 0)");
                        s.addBatch("INSERT INTO other VALUES (2)");
                        t.call("batch", s::executeBatch);
                        if (!autocommit) {
                            c.rollback();
                        }
                    }));
        }
        for (String form : new String[] {"native", "antijoin"}) {
            // flushless.onConflict=antijoin (forced: auto is native on PostgreSQL) must be as exact as native ON
            // CONFLICT
            boolean antiJoin = form.equals("antijoin");
            String suffix = antiJoin ? ", onConflict=antijoin" : "";
            String kindSuffix = antiJoin ? "-antijoin" : "";
            for (boolean autocommit : new boolean[] {true, false}) {
                String mode = (autocommit ? "autocommit" : "transaction") + suffix;
                all.add(rewritten(
                        "upsert-do-nothing" + kindSuffix,
                        "upsert batch (" + mode + "): DO NOTHING with existing, repeated and NULL keys",
                        (env, t) -> {
                            Connection c = antiJoin ? env.open("flushless.onConflict=antijoin") : env.connection();
                            c.createStatement()
                                    .execute("CREATE TABLE stock (sku text PRIMARY KEY, qty int, code int UNIQUE)");
                            c.createStatement().execute("INSERT INTO stock VALUES ('a', 1, 1), ('b', 2, 2)");
                            c.setAutoCommit(autocommit);
                            PreparedStatement ps = c.prepareStatement(
                                    "INSERT INTO stock (sku, qty, code) VALUES (?, ?, ?) ON CONFLICT (sku) DO NOTHING");
                            String[] skus = {"a", "c", "c", "d", "b", "e", "a ", "d"};
                            for (int i = 0; i < skus.length; i++) {
                                ps.setString(1, skus[i]);
                                ps.setInt(2, i);
                                ps.setInt(3, 100 + i);
                                ps.addBatch();
                            }
                            t.add("counts", ps.executeBatch());
                            PreparedStatement byCode = c.prepareStatement(
                                    "INSERT INTO stock (sku, qty, code) VALUES (?, ?, ?) ON CONFLICT (code) DO NOTHING");
                            Integer[] codes = {1, null, 500, null, 500, 2};
                            for (int i = 0; i < codes.length; i++) {
                                byCode.setString(1, "z" + i);
                                byCode.setInt(2, i);
                                byCode.setObject(3, codes[i], Types.INTEGER);
                                byCode.addBatch();
                            }
                            t.add("nullable key counts", byCode.executeBatch());
                            if (!autocommit) {
                                c.commit();
                            }
                        }));
                all.add(rewritten(
                        "upsert-do-update" + kindSuffix,
                        "upsert batch (" + mode + "): DO UPDATE with EXCLUDED, WHERE and repeated keys",
                        (env, t) -> {
                            Connection c = antiJoin ? env.open("flushless.onConflict=antijoin") : env.connection();
                            c.createStatement()
                                    .execute("CREATE TABLE counter (k1 int, k2 text, hits int NOT NULL, note text,"
                                            + " PRIMARY KEY (k1, k2))");
                            c.createStatement()
                                    .execute("INSERT INTO counter VALUES (1, 'x', 10, 'old'), (2, 'y', 20, 'old')");
                            c.setAutoCommit(autocommit);
                            PreparedStatement ps =
                                    c.prepareStatement("INSERT INTO counter (k1, k2, hits, note) VALUES (?, ?, ?, ?)"
                                            + " ON CONFLICT (k1, k2) DO UPDATE SET hits = counter.hits + EXCLUDED.hits, note = EXCLUDED.note"
                                            + " WHERE counter.hits < 25");
                            Object[][] rows = {
                                {1, "x", 1},
                                {3, "z", 1},
                                {1, "x", 2},
                                {2, "y", 7},
                                {2, "y", 1},
                                {3, "z", 5},
                                {1, "y", 1},
                                {1, "x", 100}
                            };
                            for (Object[] row : rows) {
                                ps.setInt(1, (Integer) row[0]);
                                ps.setString(2, (String) row[1]);
                                ps.setInt(3, (Integer) row[2]);
                                ps.setString(4, "from " + row[2]);
                                ps.addBatch();
                            }
                            t.add("counts", ps.executeBatch());
                            if (!autocommit) {
                                c.commit();
                            }
                        }));
            }
        }
        all.add(rewritten(
                "upsert-do-nothing-antijoin",
                "upsert batch, onConflict=antijoin: composite varchar and float8 keys (0 = -0, NaN = NaN), NULLs, over chunks of 3",
                (env, t) -> {
                    Connection c = env.open("flushless.onConflict=antijoin&flushless.maxRowsPerStatement=3");
                    c.createStatement()
                            .execute("CREATE TABLE visit (site varchar(8), score float8, n int, note text,"
                                    + " UNIQUE (site, score))");
                    c.createStatement()
                            .execute("INSERT INTO visit VALUES ('a', 0, 1, 'old'), (NULL, 1.5, 2, 'old'),"
                                    + " ('b', 'NaN', 3, 'old')");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO visit (site, score, n, note) VALUES (?, ?, ?, ?) ON CONFLICT (site, score) DO NOTHING");
                    Object[][] rows = {
                        {"a", -0.0},
                        {"a", 2.5},
                        {null, 1.5},
                        {"b", Double.NaN},
                        {"a", 2.5},
                        {null, 1.5},
                        {"b", null},
                        {"b", null},
                        {"c", Double.NaN},
                        {"c", Double.NaN},
                        {"a ", 0.0},
                        {"a", 2.50}
                    };
                    for (int i = 0; i < rows.length; i++) {
                        ps.setString(1, (String) rows[i][0]);
                        if (rows[i][1] == null) {
                            ps.setNull(2, Types.DOUBLE);
                        } else {
                            ps.setDouble(2, (Double) rows[i][1]);
                        }
                        ps.setInt(3, i);
                        ps.setString(4, "new " + i);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeLargeBatch());
                }));
        all.add(rewritten(
                "upsert-do-update-antijoin",
                "upsert batch, onConflict=antijoin: DO UPDATE with parameters in SET, a NULL key and a numeric(8,2) key",
                (env, t) -> {
                    Connection c = env.open("flushless.onConflict=antijoin");
                    c.createStatement()
                            .execute("CREATE TABLE priced2 (id int PRIMARY KEY, price numeric(8,2),"
                                    + " updated_by text, ref numeric(8,2) UNIQUE)");
                    c.createStatement()
                            .execute("INSERT INTO priced2 SELECT g, g, 'seed', g * 10 FROM generate_series(1, 5) g");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO priced2 (id, price, updated_by, ref) VALUES (?, ?, ?, ?)"
                                    + " ON CONFLICT (id) DO UPDATE SET price = EXCLUDED.price * ?, updated_by = ? || EXCLUDED.updated_by");
                    for (int id : new int[] {1, 2, 3, 6, 7, 3, 6, 1}) {
                        ps.setInt(1, id);
                        ps.setBigDecimal(2, new BigDecimal("10.005").multiply(BigDecimal.valueOf(id)));
                        ps.setString(3, "row " + id);
                        ps.setObject(4, id > 5 ? new BigDecimal(id + ".5") : null, Types.NUMERIC);
                        ps.setInt(5, id % 3 == 0 ? 2 : 1);
                        ps.setString(6, id % 3 == 0 ? "doubler " : "plain ");
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    PreparedStatement byRef =
                            c.prepareStatement("INSERT INTO priced2 (id, price, updated_by, ref) VALUES (?, ?, ?, ?)"
                                    + " ON CONFLICT (ref) DO UPDATE SET updated_by = 'by ref ' || EXCLUDED.id");
                    Object[][] refs = {{20, "10.00"}, {21, null}, {22, "6.50"}, {23, null}, {24, "99.99"}, {25, "99.99"}
                    };
                    for (Object[] row : refs) {
                        byRef.setInt(1, (Integer) row[0]);
                        byRef.setBigDecimal(2, BigDecimal.ONE);
                        byRef.setString(3, "insert");
                        byRef.setBigDecimal(4, row[1] == null ? null : new BigDecimal((String) row[1]));
                        byRef.addBatch();
                    }
                    t.add("by ref counts", byRef.executeBatch());
                }));
        all.add(fallsBack(
                "onConflict=antijoin not applied",
                "upsert batch, onConflict=antijoin: generated keys and a serial column run as native ON CONFLICT",
                (env, t) -> {
                    Connection c = env.open("flushless.onConflict=antijoin");
                    c.createStatement().execute("CREATE TABLE tagged2 (id serial PRIMARY KEY, tag text UNIQUE)");
                    c.createStatement().execute("INSERT INTO tagged2 (tag) VALUES ('b')");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO tagged2 (tag) VALUES (?) ON CONFLICT (tag) DO NOTHING",
                            Statement.RETURN_GENERATED_KEYS);
                    PreparedStatement plain =
                            c.prepareStatement("INSERT INTO tagged2 (tag) VALUES (?) ON CONFLICT (tag) DO NOTHING");
                    for (String tag : new String[] {"a", "b", "c", "a"}) {
                        ps.setString(1, tag);
                        ps.addBatch();
                        plain.setString(1, tag + tag);
                        plain.addBatch();
                        plain.setString(1, tag);
                        plain.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    t.rows("keys", ps.getGeneratedKeys());
                    t.add("plain counts (the sequence is drawn for skipped rows too)", plain.executeBatch());
                }));
        all.add(rewritten(
                "upsert-do-update",
                "upsert batch: parameters in DO UPDATE SET, equal and different across rows",
                (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement()
                            .execute("CREATE TABLE priced (id int PRIMARY KEY, price numeric, updated_by text)");
                    c.createStatement().execute("INSERT INTO priced SELECT g, g, 'seed' FROM generate_series(1, 5) g");
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO priced (id, price, updated_by) VALUES (?, ?, 'insert')"
                                    + " ON CONFLICT (id) DO UPDATE SET price = EXCLUDED.price * ?, updated_by = ?");
                    for (int id = 1; id <= 8; id++) {
                        ps.setInt(1, id);
                        ps.setBigDecimal(2, BigDecimal.valueOf(id * 10L));
                        ps.setInt(3, id % 3 == 0 ? 2 : 1);
                        ps.setString(4, id % 3 == 0 ? "doubler" : "plain");
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                }));
        all.add(rewritten(
                "upsert-do-nothing",
                "upsert batch: generated keys of DO NOTHING are the inserted rows only",
                (env, t) -> {
                    Connection c = env.open("flushless.maxRowsPerStatement=3");
                    c.createStatement().execute("CREATE TABLE tagged (id serial PRIMARY KEY, tag text UNIQUE)");
                    c.createStatement().execute("INSERT INTO tagged (tag) VALUES ('b')");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO tagged (tag) VALUES (?) ON CONFLICT (tag) DO NOTHING",
                            Statement.RETURN_GENERATED_KEYS);
                    for (String tag : new String[] {"a", "b", "c", "a", "d", "e", "b"}) {
                        ps.setString(1, tag);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    t.rows("keys", ps.getGeneratedKeys());
                }));
        all.add(fallsBack("ON CONSTRAINT", "upsert batch: ON CONFLICT ON CONSTRAINT runs as sent", (env, t) -> {
            Connection c = env.connection();
            c.createStatement().execute("CREATE TABLE named_key (id int CONSTRAINT named_key_pk PRIMARY KEY, v text)");
            PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO named_key VALUES (?, ?) ON CONFLICT ON CONSTRAINT named_key_pk DO NOTHING");
            for (int id : new int[] {1, 1, 2}) {
                ps.setInt(1, id);
                ps.setString(2, "v");
                ps.addBatch();
            }
            t.add("counts", ps.executeBatch());
        }));
        all.add(fallsBack("other than INSERT", "statement batch with DDL or a SELECT runs as sent", (env, t) -> {
            Connection c = env.connection();
            Statement s = c.createStatement();
            s.addBatch("CREATE TABLE made (id int)");
            s.addBatch("INSERT INTO made VALUES (1)");
            s.addBatch("INSERT INTO made VALUES (2)");
            t.call("batch", s::executeBatch);
            s.addBatch("SELECT 1");
            s.addBatch("INSERT INTO made VALUES (3)");
            t.call("with select", s::executeBatch);
        }));
        return all;
    }

    /**
     * Inserts a batch into a new table, adds a trigger that skips some rows (through another connection of the same
     * variant, or, {@code outside}, a plain pgjdbc connection the driver does not see), and inserts another batch.
     */
    private static void lateTrigger(Behaviour.Env env, Transcript t, boolean outside) throws java.sql.SQLException {
        Connection c = env.connection();
        try (Connection ddl = outside ? env.openOutside() : env.open()) {
            ddl.createStatement().execute("CREATE TABLE late (id int PRIMARY KEY, v text)");
        }
        c.setAutoCommit(false);
        PreparedStatement ps = c.prepareStatement("INSERT INTO late VALUES (?, ?)");
        for (int i = 1; i <= 2; i++) {
            ps.setInt(1, i);
            ps.setString(2, "first");
            ps.addBatch();
        }
        t.add("before the trigger", ps.executeBatch());
        c.commit();
        try (Connection other = outside ? env.openOutside() : env.open()) {
            other.createStatement()
                    .execute("CREATE FUNCTION skip() RETURNS trigger LANGUAGE plpgsql AS"
                            + " $$ BEGIN IF NEW.v = 'skip' THEN RETURN NULL; END IF; RETURN NEW; END $$;"
                            + "CREATE TRIGGER late_skip BEFORE INSERT ON late FOR EACH ROW EXECUTE FUNCTION skip()");
        }
        for (int i = 3; i <= 5; i++) {
            ps.setInt(1, i);
            ps.setString(2, i == 4 ? "skip" : "keep");
            ps.addBatch();
        }
        t.add("after the trigger", ps.executeBatch());
        c.commit();
    }
}
