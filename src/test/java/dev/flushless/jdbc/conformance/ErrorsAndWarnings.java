package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.util.PSQLException;
import org.postgresql.util.ServerErrorMessage;

/** Conformance behaviours: errors (SQLState and message), closed objects, warnings and notices. */
final class ErrorsAndWarnings {

    private ErrorsAndWarnings() {}

    private static void ddl(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    /** Runs {@code call} and records the server error's fields (constraint, table, column...) when it fails. */
    private static void serverError(Transcript t, String label, Transcript.Call call) {
        try {
            t.add(label, call.run());
        } catch (Exception e) {
            t.add(label + " threw", Transcript.describeException(e));
            if (e instanceof SQLException sql) {
                t.add(label + " errorCode", sql.getErrorCode());
            }
            if (e instanceof PSQLException psql && psql.getServerErrorMessage() != null) {
                ServerErrorMessage m = psql.getServerErrorMessage();
                t.add(
                        label + " fields",
                        "severity=" + m.getSeverity() + " schema?=" + (m.getSchema() != null)
                                + " table=" + m.getTable() + " column=" + m.getColumn() + " constraint="
                                + m.getConstraint()
                                + " datatype=" + m.getDatatype() + " detail=" + m.getDetail() + " hint=" + m.getHint()
                                + " position=" + m.getPosition() + " routine=" + m.getRoutine());
            }
        }
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("error: syntax error and undefined table, column and function", (env, t) -> {
                    Statement s = env.connection().createStatement();
                    serverError(t, "syntax", () -> s.execute("SELEC 1"));
                    serverError(t, "syntax at end", () -> s.executeQuery("SELECT 1 +"));
                    serverError(t, "undefined table", () -> s.executeQuery("SELECT * FROM no_such_table"));
                    s.execute("CREATE TABLE known (id int)");
                    serverError(t, "undefined column", () -> s.executeQuery("SELECT nope FROM known"));
                    serverError(t, "undefined function", () -> s.executeQuery("SELECT no_such_function(1)"));
                    PreparedStatement ps =
                            env.connection().prepareStatement("SELECT * FROM no_such_table WHERE id = ?");
                    ps.setInt(1, 1);
                    serverError(t, "prepared undefined table", ps::executeQuery);
                    t.rows("connection still usable", s.executeQuery("SELECT 1 AS ok"));
                }),
                of("error: unique, foreign key, check and not-null violations", (env, t) -> {
                    Connection c = env.connection();
                    ddl(
                            c,
                            "CREATE TABLE parent (id int PRIMARY KEY, code text UNIQUE)",
                            "CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent(id),"
                                    + " qty int NOT NULL CONSTRAINT qty_positive CHECK (qty > 0))",
                            "INSERT INTO parent VALUES (1, 'a')",
                            "INSERT INTO child VALUES (1, 1, 5)");
                    Statement s = c.createStatement();
                    serverError(t, "unique pk", () -> s.executeUpdate("INSERT INTO parent VALUES (1, 'b')"));
                    serverError(t, "unique code", () -> s.executeUpdate("INSERT INTO parent VALUES (2, 'a')"));
                    serverError(t, "fk insert", () -> s.executeUpdate("INSERT INTO child VALUES (2, 99, 1)"));
                    serverError(t, "fk delete", () -> s.executeUpdate("DELETE FROM parent WHERE id = 1"));
                    serverError(t, "check", () -> s.executeUpdate("INSERT INTO child VALUES (3, 1, 0)"));
                    serverError(
                            t, "not null", () -> s.executeUpdate("INSERT INTO child (id, parent_id) VALUES (4, 1)"));
                    PreparedStatement ps = c.prepareStatement("INSERT INTO child VALUES (?, ?, ?)");
                    ps.setInt(1, 5);
                    ps.setInt(2, 1);
                    ps.setInt(3, -1);
                    serverError(t, "prepared check", ps::executeUpdate);
                    ps.setInt(3, 1);
                    t.add("prepared ok", ps.executeUpdate());
                }),
                of("error: data errors (division by zero, overflow, invalid input, truncation)", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE de (id int PRIMARY KEY, small int2, v varchar(3), d date)");
                    Statement s = c.createStatement();
                    serverError(t, "division by zero", () -> s.executeQuery("SELECT 1 / 0"));
                    serverError(t, "numeric division by zero", () -> s.executeQuery("SELECT 1.5 / 0"));
                    serverError(
                            t,
                            "smallint overflow",
                            () -> s.executeUpdate("INSERT INTO de (id, small) VALUES (1, 40000)"));
                    serverError(t, "invalid integer", () -> s.executeQuery("SELECT 'abc'::int"));
                    serverError(t, "too long", () -> s.executeUpdate("INSERT INTO de (id, v) VALUES (2, 'abcd')"));
                    serverError(
                            t,
                            "invalid date",
                            () -> s.executeUpdate("INSERT INTO de (id, d) VALUES (3, '2023-02-30')"));
                    serverError(
                            t,
                            "raise exception",
                            () -> s.execute(
                                    "DO $$ BEGIN RAISE EXCEPTION 'custom % failure', 42 USING ERRCODE = 'P0001', HINT = 'try again',"
                                            + " DETAIL = 'some detail'; END $$"));
                    serverError(
                            t,
                            "raise custom sqlstate",
                            () -> s.execute(
                                    "DO $$ BEGIN RAISE SQLSTATE 'XY123' USING MESSAGE = 'custom state'; END $$"));
                    PreparedStatement ps = c.prepareStatement("SELECT 100 / ?");
                    ps.setInt(1, 0);
                    serverError(t, "prepared division by zero", ps::executeQuery);
                    ps.setInt(1, 7);
                    t.rows("prepared ok", ps.executeQuery());
                }),
                of("error: type mismatches reported by the server for parameters", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE tm (id int, d date)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO tm VALUES (?, ?)");
                    ps.setString(1, "1");
                    ps.setDate(2, java.sql.Date.valueOf("2024-01-01"));
                    serverError(t, "string into int", ps::executeUpdate);
                    ps.setInt(1, 1);
                    ps.setInt(2, 5);
                    serverError(t, "int into date", ps::executeUpdate);
                    PreparedStatement ambiguous = c.prepareStatement("SELECT ? + ?");
                    ambiguous.setObject(1, null);
                    ambiguous.setObject(2, null);
                    serverError(t, "operator on unknown nulls", ambiguous::executeQuery);
                }),
                of("error: closed statements, result sets and connections", (env, t) -> {
                    Connection c = env.connection();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1");
                    t.add("statement closed before", s.isClosed());
                    s.close();
                    t.add("statement closed", s.isClosed());
                    t.add("result set closed with statement", rs.isClosed());
                    t.call("executeQuery on closed statement", () -> s.executeQuery("SELECT 1"));
                    t.call("executeUpdate on closed statement", () -> s.executeUpdate("SELECT 1"));
                    t.call("addBatch on closed statement", () -> {
                        s.addBatch("SELECT 1");
                        return "added";
                    });
                    t.call("getConnection of closed statement", () -> s.getConnection() == c);
                    t.call("next on closed result set", rs::next);
                    t.call("getStatement of closed result set", () -> rs.getStatement() == s);
                    s.close();
                    t.add("close twice", "ok");
                    PreparedStatement ps = c.prepareStatement("SELECT ?::int");
                    ps.close();
                    t.call("setInt on closed prepared", () -> {
                        ps.setInt(1, 1);
                        return "set";
                    });
                    t.call("executeQuery on closed prepared", ps::executeQuery);
                    Statement closeOnCompletion = c.createStatement();
                    closeOnCompletion.closeOnCompletion();
                    t.add("isCloseOnCompletion", closeOnCompletion.isCloseOnCompletion());
                    ResultSet last = closeOnCompletion.executeQuery("SELECT 2");
                    last.close();
                    t.add("closed on completion", closeOnCompletion.isClosed());

                    Connection other = env.open();
                    Statement os = other.createStatement();
                    t.add("valid", other.isValid(5));
                    other.close();
                    t.add("connection closed", other.isClosed());
                    t.add("valid after close", other.isValid(5));
                    t.add("statement of closed connection closed", os.isClosed());
                    t.call("createStatement on closed connection", other::createStatement);
                    t.call("prepareStatement on closed connection", () -> other.prepareStatement("SELECT 1"));
                    t.call("execute on statement of closed connection", () -> os.executeQuery("SELECT 1"));
                    t.call("commit on closed connection", () -> {
                        other.commit();
                        return "ok";
                    });
                    t.call("setAutoCommit on closed connection", () -> {
                        other.setAutoCommit(false);
                        return "ok";
                    });
                    t.call("getMetaData on closed connection", () -> other.getMetaData() != null);
                    other.close();
                    t.add("close twice", "ok");
                }),
                of("error: a connection whose backend is terminated", (env, t) -> {
                    Connection c = env.connection();
                    Connection victim = env.open();
                    int pid = victim.unwrap(org.postgresql.PGConnection.class).getBackendPID();
                    PreparedStatement kill = c.prepareStatement("SELECT pg_terminate_backend(?)");
                    kill.setInt(1, pid);
                    t.rows("terminated", kill.executeQuery());
                    for (int i = 0; i < 50; i++) {
                        try (ResultSet rs = c.createStatement()
                                .executeQuery("SELECT count(*) FROM pg_stat_activity WHERE pid = " + pid)) {
                            rs.next();
                            if (rs.getInt(1) == 0) {
                                break;
                            }
                        }
                        Thread.sleep(10);
                    }
                    // whether pgjdbc reads the FATAL message (57P01) or hits the closed socket (08006) depends on
                    // timing, so only the fact that it failed is recorded
                    t.call("query on terminated connection fails", () -> {
                        try {
                            return victim.createStatement()
                                    .executeQuery("SELECT 1")
                                    .next();
                        } catch (SQLException e) {
                            return "failed";
                        }
                    });
                    t.add("isValid", victim.isValid(1));
                    t.call("still failing", () -> {
                        try {
                            return victim.createStatement()
                                    .executeQuery("SELECT 1")
                                    .next();
                        } catch (SQLException e) {
                            return "failed";
                        }
                    });
                }),
                of(
                        "warning: RAISE NOTICE and WARNING reach Statement.getWarnings, clearWarnings empties them",
                        (env, t) -> {
                            Connection c = env.connection();
                            Statement s = c.createStatement();
                            t.warnings("initial statement", s.getWarnings());
                            t.warnings("initial connection", c.getWarnings());
                            s.execute(
                                    "DO $$ BEGIN RAISE NOTICE 'first notice %', 1; RAISE WARNING 'a warning'; RAISE NOTICE 'second'; END $$");
                            t.warnings("statement", s.getWarnings());
                            t.warnings("connection", c.getWarnings());
                            s.clearWarnings();
                            t.warnings("statement after clear", s.getWarnings());
                            s.execute("DO $$ BEGIN RAISE NOTICE 'again'; END $$");
                            t.warnings("statement again", s.getWarnings());
                            s.execute("SELECT 1");
                            t.warnings("statement after next execute", s.getWarnings());
                            s.execute("SET client_min_messages = warning");
                            s.execute("DO $$ BEGIN RAISE NOTICE 'hidden'; RAISE WARNING 'shown'; END $$");
                            t.warnings("filtered", s.getWarnings());
                            s.execute("RESET client_min_messages");
                            c.clearWarnings();
                            t.warnings("connection after clear", c.getWarnings());
                        }),
                of("warning: notices from prepared statements, queries and DDL", (env, t) -> {
                    Connection c = env.connection();
                    Statement s = c.createStatement();
                    s.execute("CREATE FUNCTION noisy(x int) RETURNS int LANGUAGE plpgsql AS"
                            + " $$ BEGIN RAISE NOTICE 'noisy %', x; RETURN x * 2; END $$");
                    PreparedStatement ps = c.prepareStatement("SELECT noisy(?)");
                    ps.setInt(1, 21);
                    ResultSet rs = ps.executeQuery();
                    t.warnings("prepared after execute", ps.getWarnings());
                    rs.next();
                    t.add("value", rs.getInt(1));
                    t.warnings("result set", rs.getWarnings());
                    rs.close();
                    ResultSet multi = s.executeQuery("SELECT noisy(g) FROM generate_series(1, 3) g");
                    int sum = 0;
                    while (multi.next()) {
                        sum += multi.getInt(1);
                    }
                    t.add("sum", sum);
                    t.warnings("query notices", s.getWarnings());
                    s.execute("DROP TABLE IF EXISTS does_not_exist");
                    t.warnings("drop if exists", s.getWarnings());
                    s.execute("CREATE TABLE IF NOT EXISTS twice (id int)");
                    s.execute("CREATE TABLE IF NOT EXISTS twice (id int)");
                    t.warnings("create if not exists", s.getWarnings());
                    t.warnings("connection", c.getWarnings());
                }),
                of("warning: notices inside a transaction and SQLWarning of a closed statement", (env, t) -> {
                    Connection c = env.connection();
                    c.setAutoCommit(false);
                    Statement s = c.createStatement();
                    s.execute("DO $$ BEGIN RAISE NOTICE 'in transaction'; END $$");
                    t.warnings("statement", s.getWarnings());
                    c.commit();
                    t.warnings("after commit", s.getWarnings());
                    t.warnings("connection after commit", c.getWarnings());
                    s.close();
                    t.call("getWarnings on closed statement", () -> s.getWarnings() == null);
                    c.setAutoCommit(true);
                }));
    }
}
