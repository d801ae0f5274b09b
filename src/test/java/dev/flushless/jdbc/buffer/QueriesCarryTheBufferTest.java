package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.util.PSQLException;

/**
 * {@code flushless.mode=transaction}: a query that must see (or be locked after) the buffered writes carries them in
 * its own round trip: the writes still run first, in the application's order, and the query's result set, warnings
 * and errors are its own. Round trips are counted on the driver's socket.
 */
@ExtendWith(PostgresExtension.class)
class QueriesCarryTheBufferTest {

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS carried_item, carried_stock",
                "CREATE TABLE carried_stock (id int PRIMARY KEY, qty int NOT NULL)",
                "CREATE TABLE carried_item (id int PRIMARY KEY, stock int REFERENCES carried_stock (id), note text)",
                "INSERT INTO carried_stock SELECT g, 10 FROM generate_series(1, 10) g");
    }

    private record Session(Connection connection, RoundTripCountingSocketFactory.Counter socket) {}

    private Session transactional() throws SQLException {
        String key = "carried-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        Connection c = DriverManager.getConnection(db.flushlessUrl("flushless.mode=transaction"), properties);
        c.setAutoCommit(false);
        try (PreparedStatement warm =
                c.prepareStatement("INSERT INTO carried_item (id, stock, note) VALUES (?, ?, ?)")) {
            warm.setInt(1, -1); // reads the table's catalog facts
            warm.setInt(2, 1);
            warm.setString(3, "warm");
            warm.executeUpdate();
        }
        try (PreparedStatement warm = c.prepareStatement("SELECT qty FROM carried_stock WHERE id = ? FOR UPDATE")) {
            warm.setInt(1, 1); // a locking read of carried_stock reads its facts (what it locks is tracked by oid)
            warm.executeQuery().close();
        }
        c.rollback();
        return new Session(c, RoundTripCountingSocketFactory.counter(key));
    }

    private static void insertItem(Connection c, int id, int stock) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO carried_item (id, stock, note) VALUES (?, ?, ?)")) {
            ps.setInt(1, id);
            ps.setInt(2, stock);
            ps.setString(3, "n" + id);
            assertEquals(1, ps.executeUpdate());
        }
    }

    @Test
    void aLockingReadCarriesTheBufferedWritesInItsRoundTrip() throws SQLException {
        Session s = transactional();
        try (Connection c = s.connection()) {
            s.socket().reset();
            insertItem(c, 1, 1);
            insertItem(c, 2, 2);
            assertEquals(0, s.socket().roundTrips());
            try (PreparedStatement ps = c.prepareStatement("SELECT qty FROM carried_stock WHERE id = ? FOR UPDATE")) {
                ps.setInt(1, 3);
                try (ResultSet rs = ps.executeQuery()) {
                    assertSame(ps, rs.getStatement());
                    assertTrue(rs.next());
                    assertEquals(10, rs.getInt(1));
                    assertFalse(rs.next());
                }
            }
            assertEquals(1, s.socket().roundTrips(), "the INSERTs went with the locking read");
            try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM carried_item WHERE id > 0")) {
                try (ResultSet rs = ps.executeQuery()) { // nothing buffered now: as sent
                    rs.next();
                    assertEquals(2, rs.getInt(1));
                }
            }
            insertItem(c, 3, 3);
            try (Statement st = c.createStatement()) {
                assertTrue(st.execute("SELECT id FROM carried_item WHERE id > 0 ORDER BY id"));
                assertEquals(-1, st.getUpdateCount());
                try (ResultSet rs = st.getResultSet()) {
                    int rows = 0;
                    while (rs.next()) {
                        rows++;
                    }
                    assertEquals(3, rows, "a read of a written table sees the carried INSERT");
                }
                assertFalse(st.getMoreResults());
                assertNull(st.getResultSet());
                assertEquals(-1, st.getUpdateCount());
            }
            assertEquals(3, s.socket().roundTrips());
            c.commit();
        }
        assertEquals(List.of(List.of("3")), db.rows("SELECT count(*) FROM carried_item WHERE id > 0"));
    }

    @Test
    void aQueryThatFailsAfterTheCarriedWritesRaisesItsOwnError() throws SQLException {
        Session s = transactional();
        try (Connection c = s.connection()) {
            insertItem(c, 10, 1);
            PSQLException e = assertThrows(PSQLException.class, () -> {
                try (PreparedStatement ps =
                        c.prepareStatement("SELECT 1 / (qty - 10) FROM carried_stock WHERE id = ? FOR UPDATE")) {
                    ps.setInt(1, 1);
                    ps.executeQuery();
                }
            });
            assertEquals("22012", e.getSQLState(), "the query's division by zero, as pgjdbc raises it");
            SQLException aborted = assertThrows(SQLException.class, () -> insertItem(c, 11, 1));
            assertEquals("25P02", aborted.getSQLState(), "the transaction is aborted, as under bare pgjdbc");
            c.rollback();
        }
        assertEquals(List.of(List.of("0")), db.rows("SELECT count(*) FROM carried_item WHERE id > 0"));
    }

    @Test
    void aCarriedWriteThatFailsRaisesItsOwnErrorAndTheQueryDoesNotRun() throws SQLException {
        Session s = transactional();
        try (Connection c = s.connection()) {
            insertItem(c, 20, 1);
            insertItem(c, 21, 99); // no such stock row: the foreign key fails when the INSERTs are sent
            SQLException e = assertThrows(SQLException.class, () -> {
                try (PreparedStatement ps =
                        c.prepareStatement("SELECT qty FROM carried_stock WHERE id = ? FOR UPDATE")) {
                    ps.setInt(1, 2);
                    ps.executeQuery();
                }
            });
            assertEquals("23503", e.getSQLState(), e.toString());
            assertTrue(e.getMessage().contains("INSERT INTO carried_item"), "names the buffered write: " + e);
            c.rollback();
        }
    }

    @Test
    void aQueryFetchedInChunksSendsTheBufferFirst() throws SQLException {
        Session s = transactional();
        try (Connection c = s.connection()) {
            insertItem(c, 30, 1);
            s.socket().reset();
            try (PreparedStatement ps = c.prepareStatement("SELECT id FROM carried_item WHERE id >= ?")) {
                ps.setFetchSize(1); // a cursor: pgjdbc fetches in chunks, which one execution with the writes cannot
                ps.setInt(1, 30);
                try (ResultSet rs = ps.executeQuery()) {
                    assertTrue(rs.next());
                    assertEquals(30, rs.getInt(1));
                }
            }
            assertEquals(2, s.socket().roundTrips(), "the buffer, then the query (with its first chunk)");
            c.commit();
        }
    }

    @Test
    void aQueryOfAStatementThatReturnsNoRowsFailsAsInPgjdbc() throws SQLException {
        Session s = transactional();
        try (Connection c = s.connection()) {
            insertItem(c, 40, 1);
            try (Statement st = c.createStatement()) {
                PSQLException e = assertThrows(
                        PSQLException.class,
                        () -> st.executeQuery("SELECT id INTO TEMPORARY carried_copy FROM carried_item"));
                assertInstanceOf(PSQLException.class, e);
            }
            c.rollback();
        }
    }
}
