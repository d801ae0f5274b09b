package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.PGNotification;
import org.postgresql.PGStatement;
import org.postgresql.copy.CopyIn;
import org.postgresql.copy.CopyManager;
import org.postgresql.largeobject.LargeObject;
import org.postgresql.largeobject.LargeObjectManager;

/** Conformance behaviours: pgjdbc's own API reached through {@code unwrap} (COPY, LISTEN/NOTIFY, large objects). */
final class PgjdbcExtensions {

    private PgjdbcExtensions() {}

    private static void ddl(Connection c, String... sql) throws java.sql.SQLException {
        try (Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    /** Collects notifications until {@code expected} arrived or about five seconds passed. */
    private static List<String> notifications(PGConnection pg, int expected) throws java.sql.SQLException {
        List<String> received = new ArrayList<>();
        for (int attempt = 0; attempt < 25 && received.size() < expected; attempt++) {
            PGNotification[] batch = pg.getNotifications(200);
            if (batch != null) {
                for (PGNotification n : batch) {
                    received.add(n.getName() + ":" + n.getParameter());
                }
            }
        }
        return received;
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("copy in and out through unwrap(PGConnection).getCopyAPI()", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE copied (id int PRIMARY KEY, name text)");
                    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                    t.add(
                            "copied in",
                            copy.copyIn(
                                    "COPY copied FROM STDIN (FORMAT csv)",
                                    new StringReader("1,one\n2,two\n3,\"th,ree\"\n")));
                    java.io.StringWriter out = new java.io.StringWriter();
                    t.add(
                            "copied out",
                            copy.copyOut("COPY (SELECT * FROM copied ORDER BY id) TO STDOUT (FORMAT csv)", out));
                    t.add("csv", out.toString());
                }),
                of("copy: 10,000 rows in from a Reader and out again", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE many (id int PRIMARY KEY, name text, amount numeric(10,2))");
                    StringBuilder data = new StringBuilder();
                    for (int i = 1; i <= 10_000; i++) {
                        data.append(i)
                                .append('\t')
                                .append("name ")
                                .append(i)
                                .append('\t')
                                .append(i % 100)
                                .append('.')
                                .append(i % 7)
                                .append('\n');
                    }
                    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                    t.add("copied in", copy.copyIn("COPY many FROM STDIN", new StringReader(data.toString())));
                    t.rows(
                            "summary",
                            c.createStatement()
                                    .executeQuery("SELECT count(*), sum(id), sum(amount), max(name) FROM many"));
                    java.io.StringWriter out = new java.io.StringWriter();
                    t.add("copied out", copy.copyOut("COPY many TO STDOUT", out));
                    t.add("out length", out.toString().length());
                    t.add("out first lines", out.toString().lines().limit(2).toList());
                }),
                of("copy: copyIn of bytes from an InputStream and copyOut to an OutputStream", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE bytes_in (id int, label text)");
                    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                    byte[] csv = "1,caf\u00e9\n2,\u2713 done\n3,\n".getBytes(StandardCharsets.UTF_8);
                    t.add(
                            "copied in",
                            copy.copyIn("COPY bytes_in FROM STDIN (FORMAT csv)", new ByteArrayInputStream(csv)));
                    t.add(
                            "copied in small buffer",
                            copy.copyIn(
                                    "COPY bytes_in FROM STDIN (FORMAT csv)",
                                    new ByteArrayInputStream("4,four\n".getBytes(StandardCharsets.UTF_8)),
                                    2));
                    ByteArrayOutputStream out = new ByteArrayOutputStream();
                    t.add(
                            "copied out",
                            copy.copyOut(
                                    "COPY (SELECT * FROM bytes_in ORDER BY id) TO STDOUT (FORMAT csv, HEADER)", out));
                    t.add("out", out.toString(StandardCharsets.UTF_8));
                    ByteArrayOutputStream binary = new ByteArrayOutputStream();
                    t.add(
                            "binary copied out",
                            copy.copyOut(
                                    "COPY (SELECT id FROM bytes_in ORDER BY id) TO STDOUT (FORMAT binary)", binary));
                    t.add("binary length", binary.size());
                }),
                of("copy: low-level CopyIn, a failing copy and copy in a rolled-back transaction", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE low (id int PRIMARY KEY, v text)");
                    CopyManager copy = c.unwrap(PGConnection.class).getCopyAPI();
                    CopyIn in = copy.copyIn("COPY low FROM STDIN");
                    t.add("active", in.isActive());
                    t.add("field count", in.getFieldCount());
                    for (int i = 1; i <= 3; i++) {
                        byte[] row = (i + "\trow " + i + "\n").getBytes(StandardCharsets.UTF_8);
                        in.writeToCopy(row, 0, row.length);
                    }
                    t.add("endCopy", in.endCopy());
                    t.add("handled rows", in.getHandledRowCount());
                    t.call(
                            "bad data",
                            () -> copy.copyIn("COPY low FROM STDIN", new StringReader("4\tok\nnot-a-number\tbad\n")));
                    t.call("duplicate key", () -> copy.copyIn("COPY low FROM STDIN", new StringReader("1\tdup\n")));
                    CopyIn cancelled = copy.copyIn("COPY low FROM STDIN");
                    byte[] row = "9\tnever\n".getBytes(StandardCharsets.UTF_8);
                    cancelled.writeToCopy(row, 0, row.length);
                    cancelled.cancelCopy();
                    t.add("cancelled active", cancelled.isActive());
                    t.rows("after failures", c.createStatement().executeQuery("SELECT * FROM low ORDER BY id"));
                    c.setAutoCommit(false);
                    t.add(
                            "copied in transaction",
                            copy.copyIn("COPY low FROM STDIN", new StringReader("5\tfive\n6\tsix\n")));
                    t.rows("inside", c.createStatement().executeQuery("SELECT count(*) FROM low"));
                    c.rollback();
                    t.rows("after rollback", c.createStatement().executeQuery("SELECT count(*) FROM low"));
                    c.commit();
                }),
                of("listen/notify: notifications through unwrap(PGConnection).getNotifications()", (env, t) -> {
                    Connection c = env.connection();
                    PGConnection pg = c.unwrap(PGConnection.class);
                    Statement s = c.createStatement();
                    s.execute("LISTEN events");
                    s.execute("LISTEN \"Other Channel\"");
                    t.add("nothing yet", pg.getNotifications() == null ? 0 : pg.getNotifications().length);
                    Connection sender = env.open();
                    Statement ss = sender.createStatement();
                    ss.execute("NOTIFY events, 'first'");
                    PreparedStatement notify = sender.prepareStatement("SELECT pg_notify(?, ?)");
                    notify.setString(1, "events");
                    notify.setString(2, "second");
                    notify.executeQuery().close();
                    sender.setAutoCommit(false);
                    ss.execute("NOTIFY events, 'third'");
                    ss.execute("NOTIFY events, 'third'");
                    ss.execute("NOTIFY \"Other Channel\"");
                    ss.execute("NOTIFY unheard, 'x'");
                    sender.commit();
                    sender.setAutoCommit(true);
                    t.add("received", notifications(pg, 4));
                    sender.setAutoCommit(false);
                    ss.execute("NOTIFY events, 'rolled back'");
                    sender.rollback();
                    sender.setAutoCommit(true);
                    s.execute("NOTIFY events, 'to myself'");
                    t.add("own notification", notifications(pg, 1));
                    s.execute("UNLISTEN *");
                    ss.execute("NOTIFY events, 'after unlisten'");
                    s.execute("SELECT 1");
                    PGNotification[] none = pg.getNotifications();
                    t.add("after unlisten", none == null ? 0 : none.length);
                    t.add(
                            "sender pid is not ours",
                            pg.getBackendPID()
                                    != sender.unwrap(PGConnection.class).getBackendPID());
                }),
                of("large objects: create, write, read, seek, truncate and unlink in a transaction", (env, t) -> {
                    Connection c = env.connection();
                    LargeObjectManager lom = c.unwrap(PGConnection.class).getLargeObjectAPI();
                    t.call("open in autocommit", () -> {
                        long oid = lom.createLO();
                        lom.unlink(oid);
                        return "ok";
                    });
                    c.setAutoCommit(false);
                    long oid = lom.createLO(LargeObjectManager.READWRITE);
                    byte[] data = new byte[5000];
                    for (int i = 0; i < data.length; i++) {
                        data[i] = (byte) (i % 251);
                    }
                    try (LargeObject lo = lom.open(oid, LargeObjectManager.READWRITE)) {
                        lo.write(data);
                        t.add("tell after write", lo.tell());
                        t.add("size", lo.size());
                        lo.seek(10);
                        t.add("read at 10", lo.read(5));
                        lo.seek(-3, LargeObject.SEEK_END);
                        t.add("read last", lo.read(10));
                        lo.truncate(100);
                        t.add("size after truncate", lo.size());
                        lo.seek(0);
                        t.add("input stream", lo.getInputStream().readAllBytes().length);
                    }
                    c.commit();
                    PreparedStatement ps = c.prepareStatement("SELECT length(lo_get(?)), md5(lo_get(?))");
                    ps.setLong(1, oid);
                    ps.setLong(2, oid);
                    t.rows("via sql", ps.executeQuery());
                    try (LargeObject lo = lom.open(oid, LargeObjectManager.READ)) {
                        t.add("read back", lo.read(8));
                    }
                    c.commit();
                    LargeObject readOnly = lom.open(oid, LargeObjectManager.READ);
                    t.call("write to read-only", () -> {
                        readOnly.write(new byte[] {1});
                        return "written";
                    });
                    t.call("close in aborted transaction", () -> {
                        readOnly.close();
                        return "closed";
                    });
                    c.rollback();
                    lom.unlink(oid);
                    c.commit();
                    t.call("open after unlink", () -> {
                        try (LargeObject lo = lom.open(oid, LargeObjectManager.READ)) {
                            return lo.size();
                        } catch (java.sql.SQLException e) {
                            return "SQLState " + e.getSQLState();
                        }
                    });
                    c.rollback();
                }),
                of("pgjdbc: PGStatement and PGConnection settings through unwrap", (env, t) -> {
                    Connection c = env.connection();
                    PGConnection pg = c.unwrap(PGConnection.class);
                    t.add("connection prepareThreshold", pg.getPrepareThreshold());
                    t.add("default fetch size", pg.getDefaultFetchSize());
                    t.add("autosave", pg.getAutosave());
                    t.add("escapeIdentifier", pg.escapeIdentifier("Mixed \"Case\""));
                    t.add("escapeLiteral", pg.escapeLiteral("it's"));
                    t.add("server_encoding", pg.getParameterStatus("server_encoding"));
                    t.add("client_encoding", pg.getParameterStatus("client_encoding"));
                    t.add("integer_datetimes", pg.getParameterStatus("integer_datetimes"));
                    PreparedStatement ps = c.prepareStatement("SELECT ?::int * 2");
                    PGStatement pgs = ps.unwrap(PGStatement.class);
                    t.add("statement prepareThreshold", pgs.getPrepareThreshold());
                    t.add("useServerPrepare before", pgs.isUseServerPrepare());
                    pgs.setPrepareThreshold(1);
                    for (int i = 1; i <= 3; i++) {
                        ps.setInt(1, i);
                        t.rows("run " + i, ps.executeQuery());
                    }
                    t.add("useServerPrepare after", pgs.isUseServerPrepare());
                    pgs.setUseServerPrepare(false);
                    t.add("useServerPrepare off", pgs.isUseServerPrepare());
                    ps.setInt(1, 10);
                    t.rows("unprepared", ps.executeQuery());
                    t.add(
                            "last OID",
                            c.createStatement().unwrap(PGStatement.class).getLastOID());
                }),
                of("pgjdbc: PGInterval, PGpoint and other PGobject types", (env, t) -> {
                    Connection c = env.connection();
                    ddl(c, "CREATE TABLE geo (id int PRIMARY KEY, iv interval, p point, b box, m money)");
                    PreparedStatement ps = c.prepareStatement("INSERT INTO geo VALUES (?, ?, ?, ?, ?::money)");
                    ps.setInt(1, 1);
                    ps.setObject(2, new org.postgresql.util.PGInterval(1, 2, 3, 4, 5, 6.5));
                    ps.setObject(3, new org.postgresql.geometric.PGpoint(1.5, -2));
                    ps.setObject(4, new org.postgresql.geometric.PGbox(0, 0, 2, 3));
                    ps.setString(5, "12.34");
                    t.add("insert", ps.executeUpdate());
                    ps.setInt(1, 2);
                    ps.setObject(2, new org.postgresql.util.PGInterval("3 days 04:05:06"));
                    ps.setNull(3, java.sql.Types.OTHER);
                    ps.setObject(4, null);
                    ps.setString(5, "-1");
                    t.add("insert 2", ps.executeUpdate());
                    ResultSet rs = c.createStatement().executeQuery("SELECT * FROM geo ORDER BY id");
                    while (rs.next()) {
                        Object iv = rs.getObject("iv");
                        Object p = rs.getObject("p");
                        t.add(
                                "row " + rs.getInt("id"),
                                iv.getClass().getSimpleName() + " " + iv + " | "
                                        + (p == null ? null : p.getClass().getSimpleName() + " " + p) + " | "
                                        + rs.getObject("b")
                                        + " | " + rs.getString("m"));
                    }
                    t.call("money as double", () -> {
                        try (ResultSet m = c.createStatement().executeQuery("SELECT m FROM geo WHERE id = 1")) {
                            m.next();
                            return m.getDouble(1);
                        }
                    });
                }));
    }
}
