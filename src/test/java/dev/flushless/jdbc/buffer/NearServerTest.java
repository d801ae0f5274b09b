package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flushless.bufferMinRoundTripMicros}: a transaction buffers its writes only where the connection's reads take
 * at least that long; nearer, they run as sent (counted as {@code near-server}), with bare pgjdbc's round trips. The
 * thresholds are chosen far from any time the test takes (1 s against a local read; 1 ms against a proxy that delays
 * each way by 2 ms), so no assertion depends on the machine's speed.
 */
@ExtendWith(PostgresExtension.class)
class NearServerTest {

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute("DROP TABLE IF EXISTS ns_row", "CREATE TABLE ns_row (id int PRIMARY KEY, note text)");
    }

    private record Session(Connection connection, RoundTripCountingSocketFactory.Counter socket) {}

    private Session open(String url) throws SQLException {
        String key = "near-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        Connection c = DriverManager.getConnection(url, properties);
        c.setAutoCommit(false);
        return new Session(c, RoundTripCountingSocketFactory.counter(key));
    }

    private static void reads(Connection c, int n) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM ns_row WHERE id > ?")) {
            for (int i = 0; i < n; i++) {
                ps.setInt(1, i);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
            }
        }
    }

    /** Three INSERTs and a commit; returns the round trips they took. */
    private static long writes(Session s, int firstId) throws SQLException {
        long before = s.socket().roundTrips();
        try (PreparedStatement ps = s.connection().prepareStatement("INSERT INTO ns_row (id, note) VALUES (?, ?)")) {
            for (int id = firstId; id < firstId + 3; id++) {
                ps.setInt(1, id);
                ps.setString(2, "n" + id);
                assertEquals(1, ps.executeUpdate());
            }
        }
        s.connection().commit();
        return s.socket().roundTrips() - before;
    }

    private static long nearServer(Connection c) throws SQLException {
        return c.unwrap(FlushlessConnection.class).report().fallbacks().entrySet().stream()
                .filter(e -> e.getKey().startsWith("near-server"))
                .mapToLong(java.util.Map.Entry::getValue)
                .sum();
    }

    private long bareTrips(int firstId) throws SQLException {
        Session bare = open(db.pgjdbcUrl());
        try (Connection c = bare.connection()) {
            return writes(bare, firstId);
        }
    }

    @Test
    void nearerThanTheThresholdAtransactionRunsItsWritesAsSent() throws SQLException {
        Session s = open(db.flushlessUrl("flushless.mode=transaction&flushless.bufferMinRoundTripMicros=1000000"));
        try (Connection c = s.connection()) {
            reads(c, ExchangeTimes.MIN_SAMPLES);
            c.commit(); // the next transaction decides with the reads timed
            dev.flushless.jdbc.stats.FlushlessReport before =
                    c.unwrap(FlushlessConnection.class).report();
            assertEquals(bareTrips(100), writes(s, 1), "as sent: bare pgjdbc's round trips");
            dev.flushless.jdbc.stats.FlushlessReport after =
                    c.unwrap(FlushlessConnection.class).report();
            assertEquals(3, nearServer(c), after.toString());
            // each write counted once: three issued, three sent, three round trips and the COMMIT's
            assertEquals(3, after.statementsIssued() - before.statementsIssued(), after.toString());
            assertEquals(3, after.statementsSent() - before.statementsSent(), after.toString());
            assertEquals(4, after.roundTrips() - before.roundTrips(), after.toString());
        }
        try (Statement check = db.bare().createStatement();
                ResultSet rs = check.executeQuery("SELECT count(*) FROM ns_row WHERE id < 100")) {
            rs.next();
            assertEquals(3, rs.getInt(1));
        }
    }

    @Test
    void untilReadsAreTimedAndWithinOneTransactionTheDecisionStands() throws SQLException {
        Session s = open(db.flushlessUrl("flushless.mode=transaction&flushless.bufferMinRoundTripMicros=1000000"));
        try (Connection c = s.connection()) {
            writes(s, 1000); // reads the table's catalog facts (one round trip of its own)
            assertEquals(1, writes(s, 1), "no read timed yet: buffered, sent with the COMMIT");
            reads(c, ExchangeTimes.MIN_SAMPLES); // this transaction decided at its start: it still buffers
            assertEquals(1, writes(s, 4), "the reads' transaction still buffered its writes");
            long asSent = writes(s, 7);
            assertTrue(asSent > 1, "the next transaction runs its writes as sent: " + asSent);
            assertEquals(3, nearServer(c));
        }
    }

    @Test
    void aServerFartherThanTheThresholdBuffers() throws Exception {
        try (LatencyProxy proxy = LatencyProxy.forUrl(db.pgjdbcUrl(), 2_000)) {
            Session s = open(proxy.proxiedUrl(
                    db.flushlessUrl("flushless.mode=transaction&flushless.bufferMinRoundTripMicros=1000")));
            try (Connection c = s.connection()) {
                writes(s, 1000); // reads the table's catalog facts (one round trip of its own)
                reads(c, ExchangeTimes.MIN_SAMPLES);
                c.commit();
                assertEquals(1, writes(s, 1), "buffered, sent with the COMMIT");
                assertFalse(nearServer(c) > 0);
            }
        }
    }

    @Test
    void theEstimateIsTheLeastOfTheLastWindowOfReads() {
        ExchangeTimes times = new ExchangeTimes();
        assertTrue(times.pays(150), "nothing timed: buffer");
        for (int i = 0; i < ExchangeTimes.MIN_SAMPLES; i++) {
            times.add(50_000);
        }
        assertFalse(times.pays(150));
        assertTrue(times.pays(0), "0: always");
        for (int i = 0; i < ExchangeTimes.WINDOW; i++) {
            times.add(2_000_000);
        }
        assertTrue(times.pays(150), "the near reads left the window");
        times.add(100_000);
        assertFalse(times.pays(150), "one near read is enough");
    }

    @Test
    void theServersReadsOfTheLastPeriodsBoundTheEstimate() {
        long period = ServerReadTimes.PERIOD_NANOS;
        long t0 = 10 * period;
        ServerReadTimes server = new ServerReadTimes(t0);
        assertEquals(-1, server.leastNanos(t0), "nothing timed");
        server.add(500_000, t0);
        server.add(90_000, t0 + 1);
        server.add(300_000, t0 + 2);
        assertEquals(90_000, server.leastNanos(t0 + 3));
        server.add(400_000, t0 + period);
        assertEquals(90_000, server.leastNanos(t0 + period), "the previous period's least still counts");
        assertEquals(400_000, server.leastNanos(t0 + 2 * period), "nothing read in this period yet: the last one's");
        server.add(600_000, t0 + 2 * period);
        assertEquals(400_000, server.leastNanos(t0 + 2 * period));
        server.add(300_000, t0 + period); // timed before the period moved on: joins the current one, moves nothing back
        assertEquals(300_000, server.leastNanos(t0 + 2 * period));
        assertEquals(300_000, server.leastNanos(t0 + period), "a clock read before the period moved on");
        assertEquals(-1, server.leastNanos(t0 + 4 * period), "no recent reads");

        ServerReadTimes near = new ServerReadTimes(System.nanoTime());
        ExchangeTimes slow = new ExchangeTimes(() -> near);
        for (int i = 0; i < ExchangeTimes.MIN_SAMPLES; i++) {
            slow.add(2_000_000);
        }
        assertTrue(slow.pays(150), "its own reads alone: far");
        near.add(50_000);
        assertFalse(slow.pays(150), "another connection's near read to the same server: near");
    }

    /**
     * On a host whose cores are saturated every read of one connection may wait for a CPU: its own least read then
     * measures the queue. The near reads of another connection to the same server bound its round trip too.
     */
    @Test
    void anotherConnectionsNearReadsToTheSameServerMakeItNear() throws SQLException {
        String url = db.flushlessUrl("flushless.mode=transaction&flushless.bufferMinRoundTripMicros=200000");
        Session s = open(url);
        try (Connection c = s.connection();
                Connection other = DriverManager.getConnection(url, db.credentials())) {
            try (PreparedStatement slow = c.prepareStatement("SELECT pg_sleep(0.25)")) {
                for (int i = 0; i < ExchangeTimes.MIN_SAMPLES; i++) {
                    slow.executeQuery().close(); // each at least 250 ms: its own reads alone would be far
                }
            }
            other.setAutoCommit(false);
            reads(other, ExchangeTimes.MIN_SAMPLES); // just now, well under 200 ms each
            c.commit(); // the next transaction decides with both connections' reads
            assertEquals(bareTrips(100), writes(s, 1), "as sent: bare pgjdbc's round trips");
            assertEquals(
                    3,
                    nearServer(c),
                    c.unwrap(FlushlessConnection.class).report().toString());
        }
    }
}
