package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.List;

/** Conformance behaviours: Statement and PreparedStatement batches, their update counts and errors, generated keys. */
final class Batches {

    private Batches() {}

    private static void ddl(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    private static void count(Connection c, Transcript t, String label, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            t.rows(label, s.executeQuery("SELECT count(*) AS n FROM " + table));
        }
    }

    /** Records a BatchUpdateException fully: counts, large counts and the chain of next exceptions. */
    private static void batchError(Transcript t, String label, Transcript.Call call) {
        try {
            t.add(label, call.run());
        } catch (BatchUpdateException e) {
            t.add(label + " threw", Transcript.describeException(e));
            t.add(label + " largeUpdateCounts", e.getLargeUpdateCounts());
            int n = 0;
            for (SQLException next = e.getNextException(); next != null && n < 5; next = next.getNextException()) {
                t.add(label + " next " + (++n), Transcript.describeException(next));
            }
        } catch (Exception e) {
            t.add(label + " threw other", Transcript.describeException(e));
        }
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("batch: Statement batch of INSERT, UPDATE and DELETE with update counts", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE sb (id int PRIMARY KEY, v text)");
                    Statement s = c.createStatement();
                    s.addBatch("INSERT INTO sb VALUES (1, 'a')");
                    s.addBatch("INSERT INTO sb VALUES (2, 'b'), (3, 'c'), (4, 'd')");
                    s.addBatch("UPDATE sb SET v = v || '!' WHERE id > 1");
                    s.addBatch("DELETE FROM sb WHERE id = 4");
                    s.addBatch("UPDATE sb SET v = 'none' WHERE id = 99");
                    s.addBatch("CREATE TABLE sb2 (x int)");
                    s.addBatch("INSERT INTO sb2 SELECT id FROM sb");
                    t.add("counts", s.executeBatch());
                    t.add("again is empty", s.executeBatch());
                    t.rows("rows", s.executeQuery("SELECT * FROM sb ORDER BY id"));
                }),
                of("batch: PreparedStatement batch of INSERT with update counts", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE pb (id int PRIMARY KEY, v text, n numeric)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO pb VALUES (?, ?, ?)");
                    for (int i = 1; i <= 50; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "v" + i);
                        if (i % 5 == 0) {
                            ps.setNull(3, Types.NUMERIC);
                        } else {
                            ps.setBigDecimal(3, java.math.BigDecimal.valueOf(i, 1));
                        }
                        ps.addBatch();
                    }
                    int[] counts = ps.executeBatch();
                    t.add("length", counts.length);
                    t.add("counts", counts);
                    t.add("update count after batch", ps.getUpdateCount());
                    count(c, t, "count", "pb");
                    t.rows("sum", c.createStatement().executeQuery("SELECT sum(id), sum(n), count(n) FROM pb"));
                }),
                of("batch: PreparedStatement batches of UPDATE and DELETE touching several rows", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE ud (id int PRIMARY KEY, grp int, v int)",
                            "INSERT INTO ud SELECT g, g % 4, 0 FROM generate_series(1, 20) g");
                    PreparedStatement up = c.prepareStatement("UPDATE ud SET v = v + ? WHERE grp = ?");
                    for (int g = 0; g < 5; g++) {
                        up.setInt(1, g + 1);
                        up.setInt(2, g);
                        up.addBatch();
                    }
                    t.add("update counts", up.executeBatch());
                    PreparedStatement del = c.prepareStatement("DELETE FROM ud WHERE id % ? = 0");
                    for (int m : new int[] {7, 5, 100}) {
                        del.setInt(1, m);
                        del.addBatch();
                    }
                    t.add("delete counts", del.executeBatch());
                    t.rows(
                            "rows",
                            c.createStatement()
                                    .executeQuery("SELECT grp, count(*), sum(v) FROM ud GROUP BY grp ORDER BY grp"));
                }),
                of("batch: executeLargeBatch returns long counts", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE lb (id int PRIMARY KEY)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO lb VALUES (?)");
                    for (int i = 1; i <= 3; i++) {
                        ps.setInt(1, i);
                        ps.addBatch();
                    }
                    t.call("prepared executeLargeBatch", ps::executeLargeBatch);
                    Statement s = c.createStatement();
                    s.addBatch("UPDATE lb SET id = id + 10");
                    s.addBatch("DELETE FROM lb WHERE id = 11");
                    t.call("statement executeLargeBatch", s::executeLargeBatch);
                    t.call("large update count", s::getLargeUpdateCount);
                    count(c, t, "count", "lb");
                }),
                of("batch: clearBatch, empty batch and batch of one", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE cb (id int PRIMARY KEY)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO cb VALUES (?)");
                    t.add("empty prepared batch", ps.executeBatch());
                    ps.setInt(1, 1);
                    ps.addBatch();
                    ps.setInt(1, 2);
                    ps.addBatch();
                    ps.clearBatch();
                    t.add("after clearBatch", ps.executeBatch());
                    ps.setInt(1, 3);
                    ps.addBatch();
                    t.add("batch of one", ps.executeBatch());
                    t.call("parameters kept after batch", ps::executeUpdate);
                    Statement s = c.createStatement();
                    t.add("empty statement batch", s.executeBatch());
                    s.addBatch("INSERT INTO cb VALUES (10)");
                    s.clearBatch();
                    t.add("statement after clearBatch", s.executeBatch());
                    s.addBatch("INSERT INTO cb VALUES (11)");
                    t.add("statement batch of one", s.executeBatch());
                    count(c, t, "count", "cb");
                }),
                of("batch: error in the middle of a prepared batch in autocommit", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE ea (id int PRIMARY KEY, v text)", "INSERT INTO ea VALUES (3, 'existing')");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO ea VALUES (?, ?)");
                    for (int i = 1; i <= 5; i++) {
                        ps.setInt(1, i);
                        ps.setString(2, "new " + i);
                        ps.addBatch();
                    }
                    batchError(t, "batch", ps::executeBatch);
                    t.add("autocommit", c.getAutoCommit());
                    t.rows("rows after", c.createStatement().executeQuery("SELECT * FROM ea ORDER BY id"));
                    ps.setInt(1, 6);
                    ps.setString(2, "after");
                    t.add("batch cleared, single insert", ps.executeUpdate());
                    t.add("next batch", ps.executeBatch());
                }),
                of("batch: error in the middle of a Statement batch in autocommit", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE es (id int PRIMARY KEY)");
                    Statement s = c.createStatement();
                    s.addBatch("INSERT INTO es VALUES (1)");
                    s.addBatch("INSERT INTO es VALUES (2)");
                    s.addBatch("INSERT INTO missing_table VALUES (3)");
                    s.addBatch("INSERT INTO es VALUES (4)");
                    batchError(t, "batch", s::executeBatch);
                    count(c, t, "count", "es");
                    s.addBatch("INSERT INTO es VALUES (5)");
                    s.addBatch("INSERT INTO es VALUES (5)");
                    batchError(t, "duplicate in batch", s::executeBatch);
                    count(c, t, "count after duplicate", "es");
                }),
                of("batch: error in the middle of a batch inside a transaction", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE et (id int PRIMARY KEY, v int CHECK (v >= 0))");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    t.add("before batch", s.executeUpdate("INSERT INTO et VALUES (100, 1)"));
                    PreparedStatement ps = c.prepareStatement("INSERT INTO et VALUES (?, ?)");
                    int[] values = {1, 2, -3, 4};
                    for (int i = 0; i < values.length; i++) {
                        ps.setInt(1, i + 1);
                        ps.setInt(2, values[i]);
                        ps.addBatch();
                    }
                    batchError(t, "batch", ps::executeBatch);
                    t.call("next statement", () -> s.executeQuery("SELECT count(*) FROM et"));
                    c.rollback();
                    count(c, t, "after rollback", "et");
                    for (int i = 0; i < values.length; i++) {
                        ps.setInt(1, i + 1);
                        ps.setInt(2, Math.abs(values[i]));
                        ps.addBatch();
                    }
                    t.add("retry", ps.executeBatch());
                    c.commit();
                    count(c, t, "after commit", "et");
                }),
                of("batch: error in the first and in the last entry", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE fl (id int PRIMARY KEY, v text NOT NULL)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO fl VALUES (?, ?)");
                    ps.setInt(1, 1);
                    ps.setNull(2, Types.VARCHAR);
                    ps.addBatch();
                    ps.setInt(1, 2);
                    ps.setString(2, "ok");
                    ps.addBatch();
                    batchError(t, "first fails", ps::executeBatch);
                    count(c, t, "count after first", "fl");
                    ps.setInt(1, 3);
                    ps.setString(2, "ok");
                    ps.addBatch();
                    ps.setInt(1, 4);
                    ps.setNull(2, Types.VARCHAR);
                    ps.addBatch();
                    batchError(t, "last fails", ps::executeBatch);
                    count(c, t, "count after last", "fl");
                }),
                of("batch: a SELECT and an INSERT RETURNING inside batches", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE qb (id int)");
                    Statement s = c.createStatement();
                    s.addBatch("INSERT INTO qb VALUES (1)");
                    s.addBatch("SELECT 1");
                    s.addBatch("INSERT INTO qb VALUES (2)");
                    batchError(t, "select in statement batch", s::executeBatch);
                    PreparedStatement ps = c.prepareStatement("INSERT INTO qb VALUES (?) RETURNING id");
                    ps.setInt(1, 3);
                    ps.addBatch();
                    batchError(t, "returning in prepared batch", ps::executeBatch);
                    count(c, t, "count", "qb");
                }),
                of("batch: upserts and conflicts report per-row counts", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE up (id int PRIMARY KEY, hits int)", "INSERT INTO up VALUES (2, 1)");
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO up VALUES (?, 1) ON CONFLICT (id) DO UPDATE SET hits = up.hits + 1");
                    for (int id : new int[] {1, 2, 3, 2, 1}) {
                        ps.setInt(1, id);
                        ps.addBatch();
                    }
                    t.add("upsert counts", ps.executeBatch());
                    PreparedStatement nothing =
                            c.prepareStatement("INSERT INTO up VALUES (?, 0) ON CONFLICT DO NOTHING");
                    for (int id : new int[] {3, 4, 4}) {
                        nothing.setInt(1, id);
                        nothing.addBatch();
                    }
                    t.add("do nothing counts", nothing.executeBatch());
                    t.rows("rows", c.createStatement().executeQuery("SELECT * FROM up ORDER BY id"));
                }),
                of("batch: later entries see earlier entries of the same batch", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE seq (id int PRIMARY KEY, prev_count int)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO seq VALUES (?, (SELECT count(*) FROM seq))");
                    for (int i = 1; i <= 5; i++) {
                        ps.setInt(1, i);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    Statement s = c.createStatement();
                    s.addBatch("UPDATE seq SET prev_count = prev_count * 10");
                    s.addBatch("DELETE FROM seq WHERE prev_count >= 30");
                    s.addBatch("INSERT INTO seq SELECT id + 100, prev_count FROM seq");
                    t.add("statement counts", s.executeBatch());
                    t.rows("rows", s.executeQuery("SELECT * FROM seq ORDER BY id"));
                }),
                of("batch: many rows in a transaction then reuse for single executes", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE mr (id int PRIMARY KEY, v text)");
                    c.setAutoCommit(false);
                    PreparedStatement ps = c.prepareStatement("INSERT INTO mr VALUES (?, ?)");
                    long total = 0;
                    for (int chunk = 0; chunk < 4; chunk++) {
                        for (int i = 0; i < 500; i++) {
                            int id = chunk * 500 + i;
                            ps.setInt(1, id);
                            ps.setString(2, "row " + id);
                            ps.addBatch();
                        }
                        for (int n : ps.executeBatch()) {
                            total += n;
                        }
                    }
                    t.add("total", total);
                    ps.setInt(1, -1);
                    ps.setString(2, "single");
                    t.add("single", ps.executeUpdate());
                    c.commit();
                    t.rows("summary", c.createStatement().executeQuery("SELECT count(*), sum(id), max(v) FROM mr"));
                    c.commit();
                }),
                of("batch: generated keys of a prepared batch", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE gk (id serial PRIMARY KEY, name text, created int DEFAULT 7)");
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO gk (name) VALUES (?)", Statement.RETURN_GENERATED_KEYS);
                    for (String name : new String[] {"a", "b", "c"}) {
                        ps.setString(1, name);
                        ps.addBatch();
                    }
                    t.add("counts", ps.executeBatch());
                    t.rows("keys", ps.getGeneratedKeys());
                    PreparedStatement named =
                            c.prepareStatement("INSERT INTO gk (name) VALUES (?)", new String[] {"id"});
                    for (String name : new String[] {"d", "e"}) {
                        named.setString(1, name);
                        named.addBatch();
                    }
                    t.add("named counts", named.executeBatch());
                    t.rows("named keys", named.getGeneratedKeys());
                    t.rows("rows", c.createStatement().executeQuery("SELECT * FROM gk ORDER BY id"));
                }),
                of(
                        "generated keys: RETURN_GENERATED_KEYS, column names and column indexes on single executes",
                        (env, t) -> {
                            Connection c = env.connection();
                            ddl(c, "CREATE TABLE gs (id bigserial PRIMARY KEY, code text, created int DEFAULT 7)");
                            PreparedStatement all = c.prepareStatement(
                                    "INSERT INTO gs (code) VALUES (?)", Statement.RETURN_GENERATED_KEYS);
                            all.setString(1, "x");
                            t.add("update", all.executeUpdate());
                            ResultSet keys = all.getGeneratedKeys();
                            t.add("keys statement identity", keys.getStatement() == all);
                            t.rows("all keys", keys);
                            PreparedStatement names = c.prepareStatement(
                                    "INSERT INTO gs (code) VALUES (?)", new String[] {"id", "created"});
                            names.setString(1, "y");
                            t.add("names update", names.executeUpdate());
                            t.rows("name keys", names.getGeneratedKeys());
                            t.call("column indexes", () -> {
                                PreparedStatement indexes =
                                        c.prepareStatement("INSERT INTO gs (code) VALUES (?)", new int[] {1});
                                indexes.setString(1, "z");
                                return indexes.executeUpdate();
                            });
                            PreparedStatement noKeys =
                                    c.prepareStatement("INSERT INTO gs (code) VALUES (?)", Statement.NO_GENERATED_KEYS);
                            noKeys.setString(1, "w");
                            t.add("no keys update", noKeys.executeUpdate());
                            t.rows("no keys", noKeys.getGeneratedKeys());
                            Statement s = c.createStatement();
                            t.add(
                                    "statement update",
                                    s.executeUpdate(
                                            "INSERT INTO gs (code) VALUES ('s1'), ('s2')",
                                            Statement.RETURN_GENERATED_KEYS));
                            t.rows("statement keys", s.getGeneratedKeys());
                            t.add(
                                    "statement execute names",
                                    s.execute("INSERT INTO gs (code) VALUES ('s3')", new String[] {"code"}));
                            t.rows("statement name keys", s.getGeneratedKeys());
                            t.call(
                                    "statement column indexes",
                                    () -> s.executeUpdate("INSERT INTO gs (code) VALUES ('s4')", new int[] {1}));
                            t.add(
                                    "update keys",
                                    s.executeUpdate(
                                            "UPDATE gs SET created = 8 WHERE code LIKE 's%'",
                                            Statement.RETURN_GENERATED_KEYS));
                            t.rows("update keys", s.getGeneratedKeys());
                            t.rows("rows", s.executeQuery("SELECT * FROM gs ORDER BY id"));
                        }),
                of("batch: Statement batch with generated keys requested and DDL mixed in", (env, t) -> {
                    Connection c = env.connection();
                    Statement s = c.createStatement();
                    s.addBatch("CREATE TABLE mix (id serial PRIMARY KEY, v text)");
                    s.addBatch("INSERT INTO mix (v) VALUES ('a')");
                    s.addBatch("ALTER TABLE mix ADD COLUMN w int DEFAULT 1");
                    s.addBatch("INSERT INTO mix (v, w) VALUES ('b', 2), ('c', 3)");
                    s.addBatch("SET LOCAL work_mem = '8MB'");
                    t.add("counts", s.executeBatch());
                    t.rows("rows", s.executeQuery("SELECT * FROM mix ORDER BY id"));
                    t.rows("generated keys after statement batch", s.getGeneratedKeys());
                }));
    }
}
