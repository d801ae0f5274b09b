package dev.flushless.jdbc.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.SchemaSnapshot;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code explain --url}: the tables' real catalog (a trigger, a serial column, column types and a unique key) shapes
 * what it prints, and the database is left exactly as it was: it reads only the catalog, in a read-only transaction.
 */
@ExtendWith(PostgresExtension.class)
class ExplainUrlTest {

    private static final String SCRIPT = "INSERT INTO audited (id, note) VALUES (?, ?);\n"
            + "INSERT INTO numbered (note) VALUES (?);\n"
            + "SELECT currval('numbered_id_seq');\n"
            + "UPDATE keyed SET note = ? WHERE id = ?;\n"
            + "INSERT INTO numbered (note) VALUES (?);\n"
            + "ROLLBACK;\n"
            + "UPDATE coded SET note = ? WHERE code = ?;\n";

    /** Exit code and both streams of one run. */
    private record Result(int code, String out, String err) {
        /** The output with every run of whitespace as one space (explanations wrap). */
        String flat() {
            return out.replaceAll("\\s+", " ");
        }
    }

    private static Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = FlushlessMain.run(
                ExplainTest.pinned(args),
                new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)),
                new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** {@code db}'s URL with its credentials in the query string. */
    private static String url(TestDatabase db) {
        StringBuilder url = new StringBuilder(db.pgjdbcUrl());
        Properties credentials = db.credentials();
        for (String name : credentials.stringPropertyNames()) {
            url.append(url.indexOf("?") < 0 ? '?' : '&')
                    .append(URLEncoder.encode(name, StandardCharsets.UTF_8))
                    .append('=')
                    .append(URLEncoder.encode(credentials.getProperty(name), StandardCharsets.UTF_8));
        }
        return url.toString();
    }

    @Test
    void theRealCatalogShapesTheExplanationAndNothingIsChanged(TestDatabase db) throws Exception {
        db.execute(
                "DROP TABLE IF EXISTS audited, numbered, keyed, coded",
                "CREATE TABLE audited (id text, note text)",
                "CREATE OR REPLACE FUNCTION audited_touch() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN NEW.note := NEW.note || '!'; RETURN NEW; END $$",
                "CREATE TRIGGER audited_touch BEFORE INSERT ON audited FOR EACH ROW EXECUTE PROCEDURE audited_touch()",
                "CREATE TABLE numbered (id serial PRIMARY KEY, note text)",
                "INSERT INTO numbered (note) VALUES ('before')",
                "CREATE TABLE keyed (id int PRIMARY KEY, note varchar(20))",
                "INSERT INTO keyed VALUES (1, 'one')",
                "CREATE TABLE coded (code text PRIMARY KEY, note text)");
        Map<String, List<List<String>>> before = SchemaSnapshot.of(db, Set.of());
        boolean stats = db.hasStatementStats();
        if (stats) {
            db.resetStatementCounts();
        }

        Result online = run(SCRIPT, "explain", "--mode", "transaction", "--rows", "10", "--url", url(db), "-");
        Result offline = run(SCRIPT, "explain", "--mode", "transaction", "--rows", "10", "-");

        assertEquals(0, online.code(), online.err());
        assertEquals(0, offline.code(), offline.err());
        String tx = online.flat().substring(online.flat().indexOf("== flushless.mode=transaction"));
        String offlineTx = offline.flat().substring(offline.flat().indexOf("== flushless.mode=transaction"));
        assertTrue(online.out().contains("Catalog: read from database " + db.name()), online.out());
        assertFalse(online.out().contains("Offline assumptions"), online.out());
        // the trigger: the INSERT is not buffered and runs as sent; offline it would be buffered
        assertTrue(
                tx.contains("[1] line 1: INSERT INTO audited (id, note) VALUES (?, ?) not buffered: table has user"
                        + " triggers runs as sent: nothing is buffered to send with it; 1 round trip"),
                tx);
        assertTrue(offlineTx.contains("[1] line 1: INSERT INTO audited (id, note) VALUES (?, ?) buffered"), offlineTx);
        // the serial column: currval waits for the buffered INSERT, and rollback() sends the buffer to draw its ids
        assertTrue(tx.contains("[2] line 2: INSERT INTO numbered (note) VALUES (?) buffered"), tx);
        assertTrue(tx.contains("[3] line 3: SELECT currval('numbered_id_seq') flush with it (sequence call)"), tx);
        assertTrue(
                offlineTx.contains("[3] line 3: SELECT currval('numbered_id_seq') runs without flushing"), offlineTx);
        assertTrue(
                tx.contains("[6] line 6: ROLLBACK flush first (before rollback()): a buffered table draws ids from a"
                        + " sequence"),
                tx);
        assertTrue(
                offlineTx.contains("[6] line 6: ROLLBACK rollback(): 1 buffered INSERT ([5]) discarded unsent"),
                offlineTx);
        // the column types: an integer key bound with setString is not coalesced (offline every column is text)
        String batch = online.flat().substring(0, online.flat().indexOf("== flushless.mode=transaction"));
        String offlineBatch = offline.flat().substring(0, offline.flat().indexOf("== flushless.mode=transaction"));
        assertTrue(
                batch.contains("[4] line 4: UPDATE keyed SET note = ? WHERE id = ? not coalesced, runs as sent: key"
                        + " column id of type integer bound with String"),
                batch);
        assertTrue(offlineBatch.contains("[4] line 4: UPDATE keyed SET note = ? WHERE id = ? coalesced"), offlineBatch);
        // the unique key: rows matching at most one row each are counted in the shorter form
        String coded = batch.substring(batch.indexOf("[7] line 7"), batch.indexOf("== Parameterless"));
        String offlineCoded =
                offlineBatch.substring(offlineBatch.indexOf("[7] line 7"), offlineBatch.indexOf("== Parameterless"));
        assertTrue(coded.contains("coalesced"), coded);
        assertFalse(coded.equals(offlineCoded), "the unique key changes the plan:\n" + coded + "\n" + offlineCoded);

        if (stats) { // read before the snapshot below, which queries the database too
            // what explain sent: the catalog lookups, in a transaction that began READ ONLY and was rolled back
            List<String> sent = statements(db);
            assertTrue(sent.stream().anyMatch(q -> q.equalsIgnoreCase("BEGIN READ ONLY")), String.join("\n", sent));
            for (String query : sent) {
                String q = query.toUpperCase(java.util.Locale.ROOT);
                assertTrue(
                        q.startsWith("BEGIN READ ONLY")
                                || q.startsWith("WITH RECURSIVE TARGET AS (SELECT TO_REGCLASS(")
                                || q.startsWith("SAVEPOINT ")
                                || q.startsWith("ROLLBACK")
                                || q.startsWith("RELEASE SAVEPOINT ")
                                || q.equals("SELECT CURRENT_CATALOG") // pgjdbc's getCatalog(), for the database's name
                                || q.startsWith("SET APPLICATION_NAME ")
                                || q.startsWith("SET EXTRA_FLOAT_DIGITS "), // pgjdbc's, at connect
                        "explain --url sent " + query);
            }
        }
        assertEquals(before, SchemaSnapshot.of(db, Set.of()), "explain --url changed the database");
    }

    /** The statements the server ran in {@code db} since the last reset. */
    private static List<String> statements(TestDatabase db) throws Exception {
        List<String> queries = new ArrayList<>();
        try (Connection admin = db.statisticsConnection();
                Statement s = admin.createStatement();
                ResultSet rs =
                        s.executeQuery("SELECT query FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                                + " WHERE d.datname = '" + db.name() + "'")) {
            while (rs.next()) {
                queries.add(rs.getString(1).strip().replaceAll("\\s+", " "));
            }
        }
        return queries;
    }

    @Test
    void anUnreachableDatabaseExitsWithTwoWithoutRepeatingTheUrl() {
        Result r = run("SELECT 1", "explain", "--url", "jdbc:postgresql://127.0.0.1:1/nowhere?password=secret", "-");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("cannot connect to the --url database"), r.err());
        assertFalse(r.err().contains("secret"), r.err());

        r = run("SELECT 1", "explain", "--url", "jdbc:unknown://host/db?password=secret", "-");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("no driver accepts the --url"), r.err());
        assertFalse(r.err().contains("secret"), r.err());
    }
}
