package dev.flushless.jdbc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.session.Subtransactions;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The driver's cap on its own guard savepoints per transaction ({@link Subtransactions}): a transaction with more
 * coalesced batches (or, in {@code mode=transaction}, flushes) than the cap runs the rest as sent, so that the backend
 * never marks its 64 cached subtransaction IDs overflowed where bare pgjdbc takes none. Counts and rows are bare
 * pgjdbc's; the next transaction coalesces again. The backend's own count is read where PostgreSQL reports it (16+).
 */
@ExtendWith(PostgresExtension.class)
class SubtransactionLimitTest {

    private static final int BATCHES = Subtransactions.LIMIT + 22;

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute("DROP TABLE IF EXISTS stl_item", "CREATE TABLE stl_item (id int PRIMARY KEY, v text)");
    }

    /** The subtransaction IDs the backend of {@code c} caches and whether they overflowed, or null before 16. */
    private String subxacts(Connection c) throws SQLException {
        if (db.serverVersionNum() < 160000) {
            return null;
        }
        int pid;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            pid = rs.getInt(1);
        }
        try (Connection watch = db.bare();
                PreparedStatement q = watch.prepareStatement("SELECT s.subxact_count, s.subxact_overflowed FROM"
                        + " pg_stat_get_backend_idset() AS b(id), pg_stat_get_backend_subxact(b.id) AS s"
                        + " WHERE pg_stat_get_backend_pid(b.id) = ?")) {
            q.setInt(1, pid);
            try (ResultSet rs = q.executeQuery()) {
                rs.next();
                return rs.getInt(1) + " " + rs.getBoolean(2);
            }
        }
    }

    /** {@link #BATCHES} batches of 10 rows in one transaction, then one more in the next; counts and subxacts. */
    private List<String> batches(Connection c) throws SQLException {
        List<String> out = new ArrayList<>();
        c.setAutoCommit(false);
        for (int b = 0; b <= BATCHES; b++) {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO stl_item (id, v) VALUES (?, ?)")) {
                for (int i = 0; i < 10; i++) {
                    ps.setInt(1, b * 10 + i);
                    ps.setString(2, i % 3 == 0 ? null : "v" + i);
                    ps.addBatch();
                }
                out.add(java.util.Arrays.toString(ps.executeBatch()));
            }
            if (b == BATCHES - 1) {
                out.add("subxacts " + subxacts(c));
                c.commit(); // the last batch runs in a new transaction
            }
        }
        c.commit();
        return out;
    }

    private String rows() throws SQLException {
        return db.rows("SELECT count(*), count(v), sum(id) FROM stl_item").toString();
    }

    @Test
    void batchModeRunsTheBatchesPastTheCapAsSent() throws SQLException {
        List<String> bare;
        try (Connection c = db.bare()) {
            bare = batches(c);
        }
        String bareRows = rows();
        db.execute("TRUNCATE stl_item");
        String url = TestDatabase.withParameters(
                db.flushlessDefaultsUrl(),
                "flushless.mode=batch&flushless.minBatchRows=2"
                        + "&flushless.coalesceFirstBatch=true&flushless.copy=off");
        try (Connection c = DriverManager.getConnection(url, db.credentials())) {
            List<String> flushless = batches(c);
            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            String subxacts = flushless.remove(BATCHES);
            String bareSubxacts = bare.remove(BATCHES);
            assertEquals(bare, flushless);
            assertEquals(bareRows, rows());
            assertEquals(
                    Long.valueOf(10L * (BATCHES - Subtransactions.LIMIT)),
                    report.fallbacks().get("subtransaction-limit"),
                    report.toString());
            assertEquals(
                    Long.valueOf(10L * (Subtransactions.LIMIT + 1)),
                    report.rewrites().get("insert-unnest"),
                    "the cap's batches, and the next transaction's: " + report);
            if (db.serverVersionNum() >= 160000) {
                assertEquals("subxacts 0 false", bareSubxacts);
                assertEquals("subxacts " + Subtransactions.LIMIT + " false", subxacts);
            }
            System.out.println("[subtransactions] " + BATCHES + " batches in one transaction: bare " + bareSubxacts
                    + ", Flushless " + subxacts + "; " + report);
        }
    }

    /** mode=transaction: each INSERT followed by a read flushes the buffer under a guard, until the cap. */
    @Test
    void transactionModeStopsBufferingAtTheCap() throws SQLException {
        String url = TestDatabase.withParameters(
                db.flushlessDefaultsUrl(),
                "flushless.mode=transaction" + "&flushless.bufferFirstWrite=true&flushless.bufferMinRoundTripMicros=0");
        try (Connection c = DriverManager.getConnection(url, db.credentials())) {
            c.setAutoCommit(false);
            for (int i = 0; i < BATCHES; i++) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO stl_item (id, v) VALUES (?, ?)")) {
                    ps.setInt(1, i);
                    ps.setString(2, "v" + i);
                    assertEquals(1, ps.executeUpdate());
                }
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT count(*) FROM stl_item")) {
                    rs.next();
                    assertEquals(i + 1, rs.getInt(1));
                }
            }
            String subxacts = subxacts(c);
            c.commit();
            if (subxacts != null) {
                assertTrue(subxacts.endsWith(" false"), subxacts);
                assertTrue(Integer.parseInt(subxacts.split(" ")[0]) <= Subtransactions.LIMIT, subxacts);
            }
            assertFalse(c.unwrap(FlushlessConnection.class).report().toString().isEmpty());
            System.out.println("[subtransactions] mode=transaction, " + BATCHES + " flushed writes: " + subxacts);
        }
        assertEquals(
                "[[" + BATCHES + "]]", db.rows("SELECT count(*) FROM stl_item").toString());
    }
}
