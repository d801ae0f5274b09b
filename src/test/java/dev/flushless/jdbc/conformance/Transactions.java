package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;

/** Conformance behaviours: commit, rollback, autocommit, savepoints, isolation, read-only and aborted transactions. */
final class Transactions {

    private Transactions() {}

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

    private static void show(Connection c, Transcript t, String label, String setting) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SHOW " + setting)) {
            rs.next();
            t.add(label, rs.getString(1));
        }
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("transaction: commit makes writes visible to another connection", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE tc (id int PRIMARY KEY)");
                    Connection other = env.open();
                    c.setAutoCommit(false);
                    t.add("autocommit", c.getAutoCommit());
                    PreparedStatement ps = c.prepareStatement("INSERT INTO tc VALUES (?)");
                    for (int i = 1; i <= 3; i++) {
                        ps.setInt(1, i);
                        t.add("insert " + i, ps.executeUpdate());
                    }
                    count(c, t, "own view before commit", "tc");
                    count(other, t, "other view before commit", "tc");
                    c.commit();
                    count(other, t, "other view after commit", "tc");
                    t.add("commit again", "ok");
                    c.commit();
                }),
                of("transaction: rollback discards writes", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE tr (id int PRIMARY KEY, v text)", "INSERT INTO tr VALUES (1, 'kept')");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    t.add("insert", s.executeUpdate("INSERT INTO tr VALUES (2, 'gone')"));
                    t.add("update", s.executeUpdate("UPDATE tr SET v = 'changed' WHERE id = 1"));
                    t.add("delete", s.executeUpdate("DELETE FROM tr WHERE id = 1"));
                    count(c, t, "inside", "tr");
                    c.rollback();
                    t.rows("after rollback", s.executeQuery("SELECT * FROM tr ORDER BY id"));
                    c.rollback();
                    ddl(c, "CREATE TABLE rolled_back_ddl (x int)");
                    c.rollback();
                    t.rows(
                            "ddl rolled back",
                            s.executeQuery("SELECT count(*) FROM pg_tables WHERE tablename = 'rolled_back_ddl'"
                                    + " AND schemaname = current_schema()"));
                    c.commit();
                }),
                of("transaction: setAutoCommit(true) commits the open transaction", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE ac (id int PRIMARY KEY)");
                    Connection other = env.open();
                    c.setAutoCommit(false);
                    c.createStatement().executeUpdate("INSERT INTO ac VALUES (1)");
                    count(other, t, "other before", "ac");
                    c.setAutoCommit(true);
                    t.add("autocommit", c.getAutoCommit());
                    count(other, t, "other after switch", "ac");
                    c.setAutoCommit(true);
                    c.createStatement().executeUpdate("INSERT INTO ac VALUES (2)");
                    count(other, t, "other after autocommitted insert", "ac");
                    c.setAutoCommit(false);
                    c.setAutoCommit(false);
                    c.createStatement().executeUpdate("INSERT INTO ac VALUES (3)");
                    c.rollback();
                    c.setAutoCommit(true);
                    count(other, t, "final", "ac");
                }),
                of("transaction: commit and rollback in autocommit mode", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE am (id int)");
                    c.createStatement().executeUpdate("INSERT INTO am VALUES (1)");
                    t.call("commit in autocommit", () -> {
                        c.commit();
                        return "ok";
                    });
                    t.call("rollback in autocommit", () -> {
                        c.rollback();
                        return "ok";
                    });
                    t.call("setSavepoint in autocommit", () -> c.setSavepoint("sp") != null);
                    count(c, t, "count", "am");
                }),
                of("transaction: explicit BEGIN, COMMIT and ROLLBACK statements", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE eb (id int)");
                    Statement s = c.createStatement();
                    t.add("begin", s.executeUpdate("BEGIN"));
                    s.executeUpdate("INSERT INTO eb VALUES (1)");
                    t.add("rollback", s.executeUpdate("ROLLBACK"));
                    s.execute("BEGIN; INSERT INTO eb VALUES (2); COMMIT");
                    t.call("commit outside transaction", () -> s.executeUpdate("COMMIT"));
                    t.warnings("warnings", s.getWarnings());
                    t.add("autocommit", c.getAutoCommit());
                    count(c, t, "count", "eb");
                }),
                of("transaction: named savepoints, rollback to and release", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE sp (id int PRIMARY KEY)");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.executeUpdate("INSERT INTO sp VALUES (1)");
                    Savepoint first = c.setSavepoint("first");
                    t.add("name", first.getSavepointName());
                    t.call("id of named", first::getSavepointId);
                    s.executeUpdate("INSERT INTO sp VALUES (2)");
                    Savepoint second = c.setSavepoint("second");
                    s.executeUpdate("INSERT INTO sp VALUES (3)");
                    c.rollback(second);
                    count(c, t, "after rollback to second", "sp");
                    s.executeUpdate("INSERT INTO sp VALUES (4)");
                    c.rollback(first);
                    count(c, t, "after rollback to first", "sp");
                    t.call("rollback to second after first", () -> {
                        c.rollback(second);
                        return "ok";
                    });
                    c.rollback();
                    s.executeUpdate("INSERT INTO sp VALUES (5)");
                    Savepoint kept = c.setSavepoint("kept");
                    s.executeUpdate("INSERT INTO sp VALUES (6)");
                    c.releaseSavepoint(kept);
                    t.call("rollback to released", () -> {
                        c.rollback(kept);
                        return "ok";
                    });
                    c.rollback();
                    s.executeUpdate("INSERT INTO sp VALUES (7)");
                    Savepoint again = c.setSavepoint("again");
                    s.executeUpdate("INSERT INTO sp VALUES (8)");
                    c.releaseSavepoint(again);
                    c.commit();
                    t.rows("rows", s.executeQuery("SELECT * FROM sp ORDER BY id"));
                    c.commit();
                }),
                of("transaction: unnamed savepoints", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE us (id int)");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    Savepoint a = c.setSavepoint();
                    t.add("id a", a.getSavepointId());
                    t.call("name of unnamed", a::getSavepointName);
                    s.executeUpdate("INSERT INTO us VALUES (1)");
                    Savepoint b = c.setSavepoint();
                    t.add("id b", b.getSavepointId());
                    s.executeUpdate("INSERT INTO us VALUES (2)");
                    c.rollback(b);
                    Savepoint d = c.setSavepoint();
                    s.executeUpdate("INSERT INTO us VALUES (3)");
                    c.releaseSavepoint(d);
                    c.commit();
                    t.call("release after commit", () -> {
                        c.releaseSavepoint(a);
                        return "ok";
                    });
                    t.rows("rows", s.executeQuery("SELECT * FROM us ORDER BY id"));
                    c.commit();
                }),
                of("transaction: a savepoint recovers a transaction aborted by an error", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE rv (id int PRIMARY KEY)");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.executeUpdate("INSERT INTO rv VALUES (1)");
                    Savepoint before = c.setSavepoint("before_error");
                    t.call("duplicate", () -> s.executeUpdate("INSERT INTO rv VALUES (1)"));
                    t.call("while aborted", () -> s.executeUpdate("INSERT INTO rv VALUES (2)"));
                    c.rollback(before);
                    t.add("after rollback to savepoint", s.executeUpdate("INSERT INTO rv VALUES (3)"));
                    c.commit();
                    count(c, t, "count", "rv");
                    c.commit();
                }),
                of("transaction: an error aborts the transaction until rollback (25P02)", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE ab (id int PRIMARY KEY)");
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.executeUpdate("INSERT INTO ab VALUES (1)");
                    t.call("error", () -> s.executeQuery("SELECT 1 / 0"));
                    t.call("next statement", () -> s.executeUpdate("INSERT INTO ab VALUES (2)"));
                    PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM ab");
                    t.call("next prepared", ps::executeQuery);
                    t.call("commit of aborted", () -> {
                        c.commit();
                        return "committed";
                    });
                    t.add("autocommit", c.getAutoCommit());
                    count(c, t, "after commit of aborted", "ab");
                    s.executeUpdate("INSERT INTO ab VALUES (3)");
                    t.call("again error", () -> s.executeUpdate("INSERT INTO ab VALUES (3)"));
                    c.rollback();
                    s.executeUpdate("INSERT INTO ab VALUES (4)");
                    c.commit();
                    count(c, t, "final", "ab");
                    c.commit();
                }),
                of("transaction: isolation levels get, set and SHOW transaction_isolation", (env, t) -> {
                    Connection c = env.connection();
                    t.add("default", c.getTransactionIsolation());
                    show(c, t, "show default", "transaction_isolation");
                    int[] levels = {
                        Connection.TRANSACTION_READ_COMMITTED,
                        Connection.TRANSACTION_REPEATABLE_READ,
                        Connection.TRANSACTION_SERIALIZABLE,
                        Connection.TRANSACTION_READ_UNCOMMITTED
                    };
                    for (boolean autoCommit : new boolean[] {true, false}) {
                        c.setAutoCommit(autoCommit);
                        for (int level : levels) {
                            c.setTransactionIsolation(level);
                            t.add("autocommit " + autoCommit + " get " + level, c.getTransactionIsolation());
                            show(c, t, "autocommit " + autoCommit + " show " + level, "transaction_isolation");
                            if (!autoCommit) {
                                c.commit();
                            }
                        }
                    }
                    c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                    c.createStatement().executeQuery("SELECT 1").close();
                    t.call("change in the middle of a transaction", () -> {
                        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
                        return c.getTransactionIsolation();
                    });
                    c.rollback();
                    t.call("invalid level", () -> {
                        c.setTransactionIsolation(12345);
                        return "accepted";
                    });
                    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    c.setAutoCommit(true);
                    t.add("kept after autocommit", c.getTransactionIsolation());
                    Statement s = c.createStatement();
                    s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE");
                    t.add("after SET SESSION", c.getTransactionIsolation());
                }),
                of("transaction: repeatable read keeps its snapshot, read committed does not", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE snap (id int PRIMARY KEY, v int)", "INSERT INTO snap VALUES (1, 0)");
                    Connection other = env.open();
                    Statement write = other.createStatement();
                    for (int level :
                            new int[] {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ}) {
                        c.setAutoCommit(false);
                        c.setTransactionIsolation(level);
                        Statement s = c.createStatement();
                        t.rows(level + " first read", s.executeQuery("SELECT v FROM snap"));
                        write.executeUpdate("UPDATE snap SET v = v + 1");
                        t.rows(level + " second read", s.executeQuery("SELECT v FROM snap"));
                        c.commit();
                        t.rows(level + " after commit", s.executeQuery("SELECT v FROM snap"));
                        c.commit();
                        c.setAutoCommit(true);
                    }
                }),
                of("transaction: concurrent update under repeatable read fails with 40001", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE cu (id int PRIMARY KEY, v int)", "INSERT INTO cu VALUES (1, 10)");
                    Connection other = env.open();
                    c.setAutoCommit(false);
                    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
                    Statement s = c.createStatement();
                    t.rows("read", s.executeQuery("SELECT v FROM cu WHERE id = 1"));
                    t.add("other update", other.createStatement().executeUpdate("UPDATE cu SET v = 20 WHERE id = 1"));
                    t.call("conflicting update", () -> s.executeUpdate("UPDATE cu SET v = v + 1 WHERE id = 1"));
                    c.rollback();
                    t.add("retry", s.executeUpdate("UPDATE cu SET v = v + 1 WHERE id = 1"));
                    c.commit();
                    t.rows("final", s.executeQuery("SELECT v FROM cu"));
                    c.commit();
                }),
                of("transaction: read-only connection rejects writes with 25006", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE ro (id int)");
                    t.add("default readOnly", c.isReadOnly());
                    c.setReadOnly(true);
                    t.add("readOnly", c.isReadOnly());
                    c.setAutoCommit(false);
                    show(c, t, "transaction_read_only in transaction", "transaction_read_only");
                    Statement s = c.createStatement();
                    t.call("insert in read-only transaction", () -> s.executeUpdate("INSERT INTO ro VALUES (1)"));
                    c.rollback();
                    t.rows("select in read-only transaction", s.executeQuery("SELECT count(*) FROM ro"));
                    t.call("setReadOnly inside transaction", () -> {
                        c.setReadOnly(false);
                        return c.isReadOnly();
                    });
                    c.rollback();
                    c.setAutoCommit(true);
                    t.call("insert in read-only autocommit", () -> s.executeUpdate("INSERT INTO ro VALUES (2)"));
                    c.setReadOnly(false);
                    t.add("readOnly after reset", c.isReadOnly());
                    c.setAutoCommit(false);
                    t.add("insert after reset", s.executeUpdate("INSERT INTO ro VALUES (3)"));
                    c.commit();
                    s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY");
                    t.call("insert after SET SESSION READ ONLY", () -> s.executeUpdate("INSERT INTO ro VALUES (4)"));
                    c.rollback();
                    s.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE");
                    c.commit();
                }),
                of("transaction: closing a connection with an open transaction rolls it back", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE cl (id int)");
                    Connection other = env.open();
                    other.setAutoCommit(false);
                    other.createStatement().executeUpdate("INSERT INTO cl VALUES (1)");
                    other.close();
                    t.add("closed", other.isClosed());
                    count(c, t, "count", "cl");
                    Connection third = env.open();
                    third.setAutoCommit(false);
                    third.createStatement().executeUpdate("INSERT INTO cl VALUES (2)");
                    third.commit();
                    third.createStatement().executeUpdate("INSERT INTO cl VALUES (3)");
                    third.close();
                    count(c, t, "count after commit then close", "cl");
                }),
                of("transaction: DDL, sequences and temporary tables in transactions", (env, t) -> {
                    Connection c = env.connection();
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.execute("CREATE TABLE dd (id serial PRIMARY KEY, v text)");
                    s.execute("INSERT INTO dd (v) VALUES ('a'), ('b')");
                    c.rollback();
                    t.call("table after rollback", () -> s.executeQuery("SELECT * FROM dd"));
                    c.rollback();
                    s.execute("CREATE TABLE dd (id serial PRIMARY KEY, v text)");
                    c.commit();
                    s.execute("INSERT INTO dd (v) VALUES ('a'), ('b')");
                    c.rollback();
                    s.execute("INSERT INTO dd (v) VALUES ('c')");
                    c.commit();
                    t.rows("sequence not rolled back", s.executeQuery("SELECT * FROM dd ORDER BY id"));
                    s.execute("CREATE TEMPORARY TABLE tmp (x int) ON COMMIT DELETE ROWS");
                    s.execute("INSERT INTO tmp VALUES (1), (2)");
                    t.rows("temp inside", s.executeQuery("SELECT count(*) FROM tmp"));
                    c.commit();
                    t.rows("temp after commit", s.executeQuery("SELECT count(*) FROM tmp"));
                    c.commit();
                }),
                of("transaction: SELECT FOR UPDATE and NOWAIT against another connection", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE lk (id int PRIMARY KEY, v int)", "INSERT INTO lk VALUES (1, 0), (2, 0)");
                    Connection other = env.open();
                    c.setAutoCommit(false);
                    t.rows("locked", c.createStatement().executeQuery("SELECT * FROM lk WHERE id = 1 FOR UPDATE"));
                    Statement os = other.createStatement();
                    t.call("nowait", () -> os.executeQuery("SELECT * FROM lk WHERE id = 1 FOR UPDATE NOWAIT"));
                    t.rows("skip locked", os.executeQuery("SELECT id FROM lk ORDER BY id FOR UPDATE SKIP LOCKED"));
                    c.createStatement().executeUpdate("UPDATE lk SET v = 1 WHERE id = 1");
                    c.commit();
                    t.rows("after commit", os.executeQuery("SELECT * FROM lk WHERE id = 1 FOR UPDATE NOWAIT"));
                }),
                of("transaction: holdability and cursors across commit", (env, t) -> {
                    Connection c = env.connection();
                    t.add("holdability", c.getHoldability());
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.setFetchSize(2);
                    java.sql.ResultSet rs = s.executeQuery("SELECT g FROM generate_series(1, 6) g");
                    rs.next();
                    t.add("first", rs.getInt(1));
                    c.commit();
                    // only the SQLState: the message names pgjdbc's internal portal ("C_1"), a counter of the
                    // connection
                    t.call("next after commit", () -> {
                        try {
                            int n = 0;
                            while (rs.next()) {
                                n++;
                            }
                            return n;
                        } catch (SQLException e) {
                            return "SQLState " + e.getSQLState();
                        }
                    });
                    Statement held = c.createStatement(
                            java.sql.ResultSet.TYPE_FORWARD_ONLY,
                            java.sql.ResultSet.CONCUR_READ_ONLY,
                            java.sql.ResultSet.HOLD_CURSORS_OVER_COMMIT);
                    held.setFetchSize(2);
                    java.sql.ResultSet hrs = held.executeQuery("SELECT g FROM generate_series(1, 6) g");
                    hrs.next();
                    c.commit();
                    int n = 1;
                    while (hrs.next()) {
                        n++;
                    }
                    t.add("held rows", n);
                    t.add("held holdability", held.getResultSetHoldability());
                    c.commit();
                }));
    }
}
