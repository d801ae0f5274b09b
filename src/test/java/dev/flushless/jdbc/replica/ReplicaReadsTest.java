package dev.flushless.jdbc.replica;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Replica reads against a real primary and a real hot standby (streaming replication, embedded binaries of the
 * build's PostgreSQL major: 18 by default, 11 with -Ppostgres11). No timings are asserted: replay is paused where a
 * test needs the replica to lag.
 */
class ReplicaReadsTest {

    private static StandbyPair pair;
    private static final String DB = "replica_reads";

    @BeforeAll
    static void start() throws Exception {
        pair = StandbyPair.start();
        pair.createDatabase(DB);
        try (Connection c = DriverManager.getConnection(pair.primaryUrl(DB));
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE kv (id int PRIMARY KEY, v int NOT NULL)");
            s.execute("INSERT INTO kv SELECT g, 0 FROM generate_series(1, 100) g");
        }
        pair.awaitReplay();
        System.out.println("[flushless tests] standby pair: PostgreSQL " + pair.versionNum);
    }

    @AfterAll
    static void stop() throws Exception {
        if (pair != null) {
            pair.close();
        }
    }

    /** A Flushless URL of the pair's primary naming its standby, with {@code extra} settings; {@code tag} keeps the
     * cluster (and so its causal floor) apart from other tests'. */
    private static String url(String tag, String extra) {
        return "jdbc:flushless:postgresql://localhost:" + pair.primaryPort() + "/" + DB + "?user=postgres"
                + "&ApplicationName=" + tag + "&flushless.replicas=localhost:" + pair.standbyPort()
                + (extra.isEmpty() ? "" : "&" + extra);
    }

    private static boolean inRecovery(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    private static int value(Connection c, int id) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT v FROM kv WHERE id = ?")) {
            ps.setInt(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                assertTrue(rs.next());
                return rs.getInt(1);
            }
        }
    }

    private static FlushlessReport report(Connection c) throws SQLException {
        return c.unwrap(FlushlessConnection.class).report();
    }

    @Test
    void readOnlyTransactionsAndProvenSelectsRunOnTheReplica() throws Exception {
        try (Connection c = DriverManager.getConnection(url("routes", ""))) {
            // autocommit: an unproven SELECT (a function outside the allow-list) stays on the primary
            assertFalse(inRecovery(c));
            assertEquals(1, report(c).primaryReads().get(PrimaryReason.NOT_PROVEN.code()));
            // a proven SELECT runs on the replica
            value(c, 1);
            assertEquals(1, report(c).replicaReads());
            // a read-only transaction runs on the replica as a whole, whatever it calls
            c.setReadOnly(true);
            c.setAutoCommit(false);
            assertTrue(inRecovery(c));
            value(c, 2);
            try (Statement s = c.createStatement()) {
                assertTrue(s.execute("SELECT v FROM kv WHERE id = 3"));
                try (ResultSet rs = s.getResultSet()) {
                    assertTrue(rs.next());
                    assertEquals(rs.getStatement(), s);
                }
                assertFalse(s.getMoreResults());
                assertEquals(-1, s.getUpdateCount());
            }
            // a write in it fails as read-only, as on the primary
            SQLException write = assertThrows(
                    SQLException.class, () -> c.createStatement().executeUpdate("UPDATE kv SET v = 1 WHERE id = 1"));
            assertEquals("25006", write.getSQLState());
            c.rollback();
            // a read-write transaction stays on the primary
            c.setReadOnly(false);
            value(c, 4);
            assertFalse(inRecovery(c));
            c.commit();
            c.setAutoCommit(true);
            FlushlessReport r = report(c);
            assertTrue(r.primaryReads().containsKey(PrimaryReason.READ_WRITE_TRANSACTION.code()), r.toString());
            // a session change stops routing
            try (Statement s = c.createStatement()) {
                s.execute("SET statement_timeout = '10s'");
            }
            long before = report(c).replicaReads();
            value(c, 5);
            assertEquals(before, report(c).replicaReads());
            assertTrue(report(c).primaryReads().containsKey(PrimaryReason.SESSION_STATE.code()));
        }
    }

    /**
     * Many threads write (a committed transaction, or an autocommit UPDATE) and read their write back at once, in a
     * read-only transaction or an autocommit SELECT, on other connections: never a missed write.
     */
    @Test
    void readsNeverMissTheirOwnWrites() throws Exception {
        String url = url("ryw", "");
        int threads = 8;
        int rounds = 40;
        AtomicInteger missed = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> futures = new ArrayList<>();
        long replicaReadsBefore = dev.flushless.jdbc.FlushlessDriver.report().replicaReads();
        for (int t = 0; t < threads; t++) {
            int id = 10 + t;
            futures.add(pool.submit(() -> {
                try (Connection writer = DriverManager.getConnection(url);
                        Connection reader = DriverManager.getConnection(url)) {
                    for (int round = 1; round <= rounds; round++) {
                        if (round % 4 == 0) {
                            try (PreparedStatement ps = writer.prepareStatement("UPDATE kv SET v = ? WHERE id = ?")) {
                                ps.setInt(1, round);
                                ps.setInt(2, id);
                                ps.executeUpdate(); // autocommit
                            }
                        } else {
                            writer.setAutoCommit(false);
                            try (PreparedStatement ps = writer.prepareStatement("UPDATE kv SET v = ? WHERE id = ?")) {
                                ps.setInt(1, round);
                                ps.setInt(2, id);
                                ps.executeUpdate();
                            }
                            writer.commit();
                            writer.setAutoCommit(true);
                        }
                        int seen;
                        if (round % 2 == 0) {
                            reader.setReadOnly(true);
                            reader.setAutoCommit(false);
                            seen = value(reader, id);
                            reader.commit();
                            reader.setAutoCommit(true);
                            reader.setReadOnly(false);
                        } else {
                            seen = value(reader, id);
                        }
                        if (seen != round) {
                            missed.incrementAndGet();
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        pool.shutdown();
        assertEquals(0, missed.get(), "reads that missed their own write");
        assertTrue(
                dev.flushless.jdbc.FlushlessDriver.report().replicaReads() > replicaReadsBefore,
                "some reads ran on the replica");
    }

    /**
     * With replay paused, a write is not on the replica: read-your-writes waits, then reads on the primary (and sees
     * it); without read-your-writes the same read runs on the replica and misses it: the stale read it prevents.
     */
    @Test
    void pausedReplayShowsTheStaleReadItPrevents() throws Exception {
        try (Connection writer = DriverManager.getConnection(url("paused", ""));
                Connection ryw = DriverManager.getConnection(url("paused", "flushless.replicaMaxWaitMs=30"));
                Connection stale = DriverManager.getConnection(url("paused-off", "flushless.readYourWrites=false"))) {
            pair.pauseReplay();
            try {
                writer.setAutoCommit(false);
                try (Statement s = writer.createStatement()) {
                    s.executeUpdate("UPDATE kv SET v = 777 WHERE id = 50");
                }
                writer.commit();
                for (Connection c : new Connection[] {ryw, stale}) {
                    c.setReadOnly(true);
                    c.setAutoCommit(false);
                }
                assertEquals(777, value(ryw, 50));
                ryw.commit();
                assertEquals(0, value(stale, 50), "without read-your-writes the replica's stale row is read");
                stale.commit();
                assertEquals(1, report(ryw).primaryReads().get(PrimaryReason.WAIT_TIMEOUT.code()));
                assertEquals(1, report(stale).replicaReads());
                // the rest of a transaction that fell back stays on the primary
                assertEquals(777, value(ryw, 50));
                assertFalse(inRecovery(ryw));
                ryw.commit();
            } finally {
                pair.resumeReplay();
            }
            pair.awaitReplay();
            assertEquals(777, value(stale, 50));
            stale.commit();
        }
    }

    @Test
    void causalTokensCarryThePosition() throws Exception {
        try (Connection a = DriverManager.getConnection(url("token-a", ""));
                Connection b = DriverManager.getConnection(url("token-b", "flushless.replicaMaxWaitMs=20"))) {
            try (Statement s = a.createStatement()) {
                s.executeUpdate("UPDATE kv SET v = v + 1 WHERE id = 60"); // autocommit: the token reads the position
            }
            String token = a.unwrap(FlushlessConnection.class).causalToken();
            assertTrue(token.startsWith("pg:"), token);
            pair.pauseReplay();
            try {
                int expected;
                try (Statement s = a.createStatement();
                        ResultSet rs = s.executeQuery("SELECT v FROM kv WHERE id = 60 FOR SHARE")) {
                    rs.next();
                    expected = rs.getInt(1);
                }
                b.unwrap(FlushlessConnection.class).awaitCausalToken(token);
                // b's cluster never saw a's write, but the token says it must: wait, then the primary (replay paused)
                assertEquals(expected, value(b, 60));
            } finally {
                pair.resumeReplay();
            }
            SQLException bad = assertThrows(
                    SQLException.class,
                    () -> b.unwrap(FlushlessConnection.class).awaitCausalToken("nonsense"));
            assertEquals("22023", bad.getSQLState());
        }
    }

    @Test
    void badReplicaSettingsAreRefused() throws Exception {
        SQLException value = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(
                        url("bad", "").replace("flushless.replicas=", "flushless.replicas=a:b,")));
        assertEquals("22023", value.getSQLState());
        assertTrue(value.getMessage().contains("flushless.replicas"), value.getMessage());
        // the primary named as its own replica: not in recovery
        String notStandby = "jdbc:flushless:postgresql://localhost:" + pair.primaryPort() + "/" + DB
                + "?user=postgres&flushless.replicas=localhost:" + pair.primaryPort();
        SQLException refused = assertThrows(SQLException.class, () -> DriverManager.getConnection(notStandby));
        assertEquals("22023", refused.getSQLState());
        assertTrue(refused.getMessage().contains("not a standby"), refused.getMessage());
        // an unreachable replica is skipped: the connection works, reads run on the primary
        String unreachable = "jdbc:flushless:postgresql://localhost:" + pair.primaryPort() + "/" + DB
                + "?user=postgres&ApplicationName=unreachable&flushless.replicas=127.0.0.1:1";
        try (Connection c = DriverManager.getConnection(unreachable)) {
            assertEquals(0, value(c, 1));
            assertEquals(1, report(c).primaryReads().get(PrimaryReason.NO_REPLICA.code()));
        }
    }
}
