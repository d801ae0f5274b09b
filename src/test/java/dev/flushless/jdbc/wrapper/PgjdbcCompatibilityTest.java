package dev.flushless.jdbc.wrapper;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;

/**
 * Differences pgjdbc's own test suite found between bare pgjdbc and Flushless, each kept as a reproducer: counts under
 * {@code reWriteBatchedInserts=true}, {@code toString()} of a prepared statement (also after {@code addBatch()}), and
 * code that casts to pgjdbc's interfaces instead of unwrapping.
 */
@ExtendWith(PostgresExtension.class)
class PgjdbcCompatibilityTest {

    private static final String[] MODES = {
        "bare", "flushless.mode=off", "flushless.mode=batch", "flushless.mode=transaction"
    };

    private static Connection connect(TestDatabase db, String mode, Properties extra) throws SQLException {
        Properties properties = db.credentials();
        properties.putAll(extra);
        return DriverManager.getConnection(mode.equals("bare") ? db.pgjdbcUrl() : db.flushlessUrl(mode), properties);
    }

    /**
     * With pgjdbc's {@code reWriteBatchedInserts=true} the application sees pgjdbc's counts: {@code SUCCESS_NO_INFO}
     * (-2) for the rows of every multi-row statement pgjdbc sends (3 rows: a 2-row and a 1-row statement; 4 upserts, one
     * of them a conflict: one 4-row statement), in every
     * mode; with generated keys pgjdbc does not rewrite, and counts are exact.
     */
    @Test
    void countsUnderReWriteBatchedInsertsArePgjdbcs(TestDatabase db) throws SQLException {
        db.execute("CREATE TABLE rewritten (id int PRIMARY KEY, v text)");
        Properties rewrite = new Properties();
        rewrite.setProperty("reWriteBatchedInserts", "true");
        List<String> seen = new ArrayList<>();
        for (String mode : MODES) {
            db.execute("TRUNCATE rewritten");
            try (Connection c = connect(db, mode, rewrite)) {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO rewritten (id, v) VALUES (?, ?)");
                        PreparedStatement upsert = c.prepareStatement(
                                "INSERT INTO rewritten (id, v) VALUES (?, ?) ON CONFLICT (id) DO NOTHING");
                        PreparedStatement keyed = c.prepareStatement(
                                "INSERT INTO rewritten (id, v) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS)) {
                    String counts = batch(ps, 1, 3) + batch(upsert, 3, 6) + batch(keyed, 7, 8);
                    c.commit();
                    seen.add(mode + " " + counts);
                }
            }
            assertEquals(List.of(List.of("8")), db.rows("SELECT count(*) FROM rewritten"), mode);
        }
        for (String row : seen) {
            assertEquals("[-2, -2, 1][-2, -2, -2, -2][1, 1]", row.substring(row.indexOf(' ') + 1), row);
        }
    }

    private static String batch(PreparedStatement ps, int from, int to) throws SQLException {
        for (int id = from; id <= to; id++) {
            ps.setInt(1, id);
            ps.setString(2, "v" + id);
            ps.addBatch();
        }
        return java.util.Arrays.toString(ps.executeBatch());
    }

    /** A prepared statement renders as pgjdbc renders it: the SQL with its bound values (logs and tests rely on it). */
    @Test
    void aPreparedStatementRendersAsPgjdbcRendersIt(TestDatabase db) throws SQLException {
        List<String> rendered = new ArrayList<>();
        for (String mode : MODES) {
            try (Connection c = connect(db, mode, new Properties());
                    PreparedStatement ps = c.prepareStatement("SELECT ?::int + ?, ?")) {
                ps.setInt(1, 1);
                ps.setLong(2, 2);
                ps.setString(3, "x");
                rendered.add(ps.toString());
            }
        }
        assertEquals(1, rendered.stream().distinct().count(), rendered.toString());
        assertTrue(rendered.get(0).contains("'x'"), rendered.get(0));
    }

    /**
     * After {@code addBatch()} a prepared statement renders every batched row as pgjdbc does ({@code ";\n"}-joined; the
     * rows Flushless records are not in pgjdbc's batch), and rendering leaves the values being set untouched: pgjdbc's
     * {@code PreparedStatementTest.ByteArray_setBytes_addBatch_toString}.
     */
    @Test
    void aBatchRendersItsRowsAsPgjdbcRendersThem(TestDatabase db) throws SQLException {
        db.execute("CREATE TABLE rendered (id int PRIMARY KEY, b bytea, v text)");
        List<String> rendered = new ArrayList<>();
        List<String> modes = new ArrayList<>(List.of(MODES));
        // the default size rule: the rows go to pgjdbc's batch as they are added (they would run as sent)
        modes.add("flushless.mode=batch&flushless.minBatchRows=50");
        for (String mode : modes) {
            db.execute("TRUNCATE rendered");
            try (Connection c = connect(db, mode, new Properties());
                    PreparedStatement ps = c.prepareStatement("INSERT INTO rendered VALUES (?, ?, ?)")) {
                for (int id = 1; id <= 2; id++) {
                    ps.setInt(1, id);
                    ps.setBytes(2, new byte[] {0, (byte) id});
                    ps.setString(3, "line" + id);
                    ps.addBatch();
                }
                ps.setInt(1, 3); // a row half set when the statement is rendered
                String batch = ps.toString();
                assertEquals(batch, ps.toString(), mode + ": rendering twice");
                ps.setBytes(2, new byte[] {0, 3});
                ps.setString(3, "line3");
                ps.addBatch();
                assertArrayEquals(new int[] {1, 1, 1}, ps.executeBatch(), mode);
                rendered.add(batch + " | " + ps.toString());
            }
            assertEquals(
                    List.of(
                            List.of("1", "\\x0001", "line1"),
                            List.of("2", "\\x0002", "line2"),
                            List.of("3", "\\x0003", "line3")),
                    db.rows("SELECT id, b, v FROM rendered ORDER BY id"),
                    mode);
        }
        assertEquals(1, rendered.stream().distinct().count(), String.join("\n\n", rendered));
        String[] bare = rendered.get(0).split(";\n| \\| ");
        assertEquals(3, bare.length, rendered.get(0));
        for (int id = 1; id <= 3; id++) {
            assertTrue(
                    bare[id - 1].contains("'\\x000" + id + "'::bytea") && bare[id - 1].contains("line" + id),
                    bare[id - 1]);
        }
    }

    /**
     * Code that casts to pgjdbc's interfaces instead of unwrapping works: {@code PGConnection} (COPY sees the rows
     * transaction mode buffered before it: the buffer is sent first), {@code PGStatement}; {@code unwrap} still hands
     * out pgjdbc's own objects.
     */
    @Test
    void castsToPgjdbcInterfacesWork(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE copied (id int PRIMARY KEY, v text)");
        for (String mode : MODES) {
            db.execute("TRUNCATE copied");
            try (Connection c = connect(db, mode, new Properties())) {
                assertTrue(c instanceof PGConnection, mode);
                PGConnection pg = (PGConnection) c;
                assertNotEquals(0, pg.getBackendPID());
                assertEquals("\"a b\"", pg.escapeIdentifier("a b"));
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO copied (id, v) VALUES (?, ?)")) {
                    ps.setInt(1, 1);
                    ps.setString(2, "buffered in transaction mode");
                    assertEquals(1, ps.executeUpdate());
                    assertTrue(ps instanceof PGStatement, mode);
                    ((PGStatement) ps).setPrepareThreshold(3);
                    assertEquals(3, ((PGStatement) ps).getPrepareThreshold());
                }
                long copied = pg.getCopyAPI().copyIn("COPY copied (id, v) FROM STDIN", new StringReader("2\tcopied\n"));
                assertEquals(1, copied);
                try (Statement s = c.createStatement();
                        java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM copied")) {
                    rs.next();
                    assertEquals(2, rs.getInt(1), mode + ": COPY ran after the buffered INSERT");
                }
                c.commit();
                assertTrue(
                        c.unwrap(PGConnection.class).getClass().getName().startsWith("org.postgresql."),
                        "unwrap hands out pgjdbc's connection");
            }
            assertArrayEquals(
                    new Object[] {"1", "2"},
                    db.rows("SELECT id FROM copied ORDER BY id").stream()
                            .map(r -> r.get(0))
                            .toArray(),
                    mode);
        }
    }
}
