package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flushless.mode=transaction}: an UPDATE of a row the transaction holds locked ({@code SELECT ... FOR UPDATE} by
 * the same key) has a known count and is buffered; every other UPDATE runs (or rides along) as before. Round trips on
 * the driver's socket show which; the final rows and counts are bare pgjdbc's.
 */
@ExtendWith(PostgresExtension.class)
class LockedUpdatesTest {

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS acct_note, acct",
                "CREATE TABLE acct (id int PRIMARY KEY, branch int NOT NULL, balance numeric(12,2) NOT NULL"
                        + " CHECK (balance >= 0), note text, code text UNIQUE, version int NOT NULL DEFAULT 0)",
                "CREATE TABLE acct_note (id int PRIMARY KEY, acct int REFERENCES acct (id), note text)",
                "INSERT INTO acct (id, branch, balance, code) SELECT g, g % 3, 100, 'c' || g FROM generate_series(1, 20)"
                        + " g");
    }

    private record Session(Connection connection, RoundTripCountingSocketFactory.Counter socket) {}

    private Session transactional(String... settings) throws SQLException {
        String key = "locked-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        String url = db.flushlessUrl(
                "flushless.mode=transaction" + (settings.length == 0 ? "" : "&" + String.join("&", settings)));
        Connection c = DriverManager.getConnection(url, properties);
        c.setAutoCommit(false);
        return new Session(c, RoundTripCountingSocketFactory.counter(key));
    }

    private static boolean lockRow(Connection c, String lock, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT balance FROM acct WHERE id = ? " + lock)) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static int addToBalance(Connection c, int id, String amount) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE acct SET balance = balance + ?, note = ? WHERE id = ?")) {
            ps.setBigDecimal(1, new java.math.BigDecimal(amount));
            ps.setString(2, "n" + id);
            ps.setInt(3, id);
            return ps.executeUpdate();
        }
    }

    /** Warms the shared catalog facts of acct (a first connection reads them). */
    private void warm() throws SQLException {
        Session warm = transactional();
        try (Connection c = warm.connection()) {
            lockRow(c, "FOR UPDATE", 20);
            addToBalance(c, 20, "0");
            c.rollback();
        }
    }

    @Test
    void anUpdateOfARowLockedForUpdateIsBufferedAndSentWithTheCommit() throws SQLException {
        warm();
        Session s = transactional();
        try (Connection c = s.connection()) {
            s.socket().reset();
            assertTrue(lockRow(c, "FOR UPDATE", 1));
            assertEquals(1, s.socket().roundTrips());
            assertEquals(1, addToBalance(c, 1, "5.50"));
            assertEquals(1, s.socket().roundTrips(), "the UPDATE's count is known: nothing is sent");
            assertTrue(lockRow(c, "FOR NO KEY UPDATE", 2));
            assertEquals(1, addToBalance(c, 2, "1"));
            c.commit();
            assertEquals(3, s.socket().roundTrips(), "two locking reads and the commit carrying both UPDATEs");
            assertTrue(
                    c.unwrap(FlushlessConnection.class).report().rewrites().containsKey(FlushPlanner.REWRITE_KIND),
                    c.unwrap(FlushlessConnection.class).report().toString());
        }
        assertEquals(
                List.of(List.of("1", "105.50", "n1"), List.of("2", "101.00", "n2")),
                db.rows("SELECT id, balance, note FROM acct WHERE id IN (1, 2) ORDER BY id"));
    }

    @Test
    void aBatchOfLockedRowsIsBufferedAndOneOfAnUnlockedRowIsNot() throws SQLException {
        warm();
        Session s = transactional();
        try (Connection c = s.connection()) {
            for (int id = 3; id <= 5; id++) {
                assertTrue(lockRow(c, "FOR UPDATE", id));
            }
            s.socket().reset();
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE acct SET balance = balance - ?, note = ? WHERE id = ?")) {
                for (int id : new int[] {3, 4, 5, 3}) { // row 3 twice: two statements of the flush
                    ps.setInt(1, 10);
                    ps.setString(2, "b" + id);
                    ps.setInt(3, id);
                    ps.addBatch();
                }
                assertArrayEquals(new int[] {1, 1, 1, 1}, ps.executeBatch());
                assertEquals(0, s.socket().roundTrips(), "every row is locked: buffered");
                for (int id : new int[] {5, 6}) { // row 6 is not locked by this transaction
                    ps.setInt(1, 1);
                    ps.setString(2, "c" + id);
                    ps.setInt(3, id);
                    ps.addBatch();
                }
                assertArrayEquals(new int[] {1, 1}, ps.executeBatch());
                assertEquals(1, s.socket().roundTrips(), "runs, carrying the buffer in its round trip");
            }
            c.commit();
        }
        assertEquals(
                List.of(
                        List.of("3", "80.00", "b3"),
                        List.of("4", "90.00", "b4"),
                        List.of("5", "89.00", "c5"),
                        List.of("6", "99.00", "c6")),
                db.rows("SELECT id, balance, note FROM acct WHERE id BETWEEN 3 AND 6 ORDER BY id"));
    }

    @Test
    void updatesWhoseCountIsNotKnownRunAsBefore() throws SQLException {
        warm();
        Session s = transactional();
        try (Connection c = s.connection()) {
            assertTrue(lockRow(c, "FOR SHARE", 7)); // a share lock does not cover an UPDATE
            s.socket().reset();
            assertEquals(1, addToBalance(c, 7, "1"));
            assertEquals(1, s.socket().roundTrips());
            assertEquals(1, addToBalance(c, 8, "1")); // never locked
            assertEquals(2, s.socket().roundTrips());
            assertTrue(lockRow(c, "FOR UPDATE", 9));
            s.socket().reset();
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE acct SET balance = ? WHERE id = ? AND version = ?")) {
                ps.setInt(1, 1); // the version is a conjunct the locking read did not fix: the count is unknown
                ps.setInt(2, 9);
                ps.setInt(3, 7);
                assertEquals(0, ps.executeUpdate());
            }
            assertEquals(1, s.socket().roundTrips());
            try (PreparedStatement ps = c.prepareStatement("UPDATE acct SET code = ? WHERE id = ?")) {
                ps.setString(1, "x9"); // sets a unique column: new index entries may wait for others
                ps.setInt(2, 9);
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(2, s.socket().roundTrips());
            c.commit();
        }
        assertEquals(List.of(List.of("x9", "100.00")), db.rows("SELECT code, balance FROM acct WHERE id = 9"));
    }

    @Test
    void locksAreForgottenWhenTheRowMayHaveChanged() throws SQLException {
        warm();
        Session s = transactional();
        try (Connection c = s.connection()) {
            assertTrue(lockRow(c, "FOR UPDATE", 10));
            try (Statement st = c.createStatement()) {
                assertEquals(1, st.executeUpdate("DELETE FROM acct WHERE id = 10"));
            }
            assertEquals(0, addToBalance(c, 10, "1"), "the row is gone: bare pgjdbc's count 0, not a buffered 1");
            assertTrue(lockRow(c, "FOR UPDATE", 11));
            Savepoint sp = c.setSavepoint();
            c.rollback(sp);
            c.releaseSavepoint(sp);
            s.socket().reset();
            assertEquals(1, addToBalance(c, 11, "1"));
            assertEquals(1, s.socket().roundTrips(), "a rollback to a savepoint forgets the locks: the UPDATE runs");
            c.commit();
            assertTrue(lockRow(c, "FOR UPDATE", 12));
            c.commit();
            s.socket().reset();
            assertEquals(1, addToBalance(c, 12, "1"));
            assertEquals(1, s.socket().roundTrips(), "the lock ended with its transaction");
            c.rollback();
        }
    }

    @Test
    void anErrorOfABufferedUpdateSurfacesAtCommitAndNothingIsCommitted() throws SQLException {
        warm();
        Session s = transactional();
        try (Connection c = s.connection()) {
            assertTrue(lockRow(c, "FOR UPDATE", 13));
            assertEquals(1, addToBalance(c, 13, "-500"), "buffered: the CHECK violation is not known yet");
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("23514", e.getSQLState(), e.toString());
        }
        assertEquals(List.of(List.of("100.00")), db.rows("SELECT balance FROM acct WHERE id = 13"));
    }

    @Test
    void theSameWorkGivesBarePgjdbcsCountsAndRows() throws SQLException {
        warm();
        String[] modes = {"bare", "transaction"};
        List<List<String>> expected = null;
        for (String mode : modes) {
            db.execute("UPDATE acct SET balance = 100, note = NULL, version = 0 WHERE id BETWEEN 14 AND 19");
            db.execute("DELETE FROM acct_note");
            StringBuilder counts = new StringBuilder();
            try (Connection c =
                    mode.equals("bare") ? db.bare() : transactional().connection()) {
                c.setAutoCommit(false);
                for (int id = 14; id <= 19; id++) {
                    if (id % 2 == 0) {
                        lockRow(c, "FOR UPDATE", id);
                    }
                    counts.append(addToBalance(c, id, "2.25")).append(' ');
                    try (PreparedStatement ps =
                            c.prepareStatement("INSERT INTO acct_note (id, acct, note) VALUES (?, ?, ?)")) {
                        ps.setInt(1, id);
                        ps.setInt(2, id);
                        ps.setString(3, "x");
                        counts.append(ps.executeUpdate()).append(' ');
                    }
                    try (PreparedStatement ps = c.prepareStatement("SELECT balance FROM acct WHERE id = ?")) {
                        ps.setInt(1, id - 1);
                        try (ResultSet rs = ps.executeQuery()) {
                            counts.append(rs.next() ? rs.getString(1) : "-").append(' ');
                        }
                    }
                }
                c.commit();
            }
            List<List<String>> rows = db.rows("SELECT id, balance, note, (SELECT count(*) FROM acct_note n WHERE"
                    + " n.acct = a.id) FROM acct a WHERE id BETWEEN 13 AND 19 ORDER BY id");
            rows.add(List.of(counts.toString()));
            if (expected == null) {
                expected = rows;
            } else {
                assertEquals(expected, rows, mode);
            }
        }
    }
}
