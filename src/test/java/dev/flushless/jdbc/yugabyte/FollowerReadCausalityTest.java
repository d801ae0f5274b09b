package dev.flushless.jdbc.yugabyte;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.replica.FollowerReadCausality;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Follower reads' read-your-writes without a YugabyteDB: the decision, the clock of this driver's writes, the hooks
 * that feed it (a Flushless connection on PostgreSQL with {@code flushless.followerReads}, where follower reads are
 * ignored but writes are noted), and {@link FollowerReads} choosing the leaders, exercised with settings PostgreSQL
 * has: {@code application_name} stands for {@code yb_read_from_followers} ({@code 'false'}: the leaders).
 */
@ExtendWith(PostgresExtension.class)
class FollowerReadCausalityTest {

    private static final long MS = 1_000_000L;
    private static final String[] NAMES = {"application_name", "statement_timeout", "default_transaction_read_only"};
    private static final String[] VALUES = {"follower", "1234", "on"};

    @Test
    void theWindowIsTheStalenessPlusTheClockSkew() {
        long end = 7_000 * MS;
        assertTrue(FollowerReadCausality.readFromLeaders(end + 529 * MS, end, 0, 30, 500));
        assertFalse(FollowerReadCausality.readFromLeaders(end + 530 * MS, end, 0, 30, 500), "the window is open-ended");
        assertTrue(FollowerReadCausality.readFromLeaders(end + 1_499 * MS, end, 0, 1_000, 500));
        assertFalse(FollowerReadCausality.readFromLeaders(end + 30 * MS, end, 0, 30, 0), "no skew");
        long wrapped = Long.MAX_VALUE - 10 * MS; // System.nanoTime may wrap: differences still hold
        assertTrue(FollowerReadCausality.readFromLeaders(wrapped + 20 * MS, wrapped, 0, 30, 500));
    }

    @Test
    void theClockKeepsTheNewestWriteEndAndTheWritesRunning() {
        FollowerReadClock clock = new FollowerReadClock();
        long now = System.nanoTime();
        assertFalse(clock.readFromLeaders(now, 1_000), "nothing written");
        FollowerReadClock.Writer one = clock.writer();
        FollowerReadClock.Writer two = clock.writer();
        one.starting(true);
        two.starting(true);
        assertEquals(2, clock.writesRunning());
        assertTrue(clock.readFromLeaders(now + 3_600_000 * MS, 1_000), "a write runs: its commit time is not known");
        one.starting(false); // the connection's next statement, a read: its write has ended
        assertEquals(1, clock.writesRunning());
        long firstEnd = clock.lastWriteEnd();
        assertTrue(firstEnd - now >= 0);
        two.ended();
        two.ended(); // ending twice counts once
        assertEquals(0, clock.writesRunning());
        long end = clock.lastWriteEnd();
        assertTrue(end - firstEnd >= 0, "the newest end is kept");
        assertTrue(clock.readFromLeaders(end + 1_499 * MS, 1_000));
        assertFalse(clock.readFromLeaders(end + 1_500 * MS, 1_000));
        clock.writeStarted();
        clock.writeEnded(end - 5 * MS); // an older end does not move it back
        assertEquals(end, clock.lastWriteEnd());
        assertTrue(FollowerReadClock.forKey("db-a") == FollowerReadClock.forKey("db-a"), "shared by database");
        assertFalse(FollowerReadClock.forKey("db-a") == FollowerReadClock.forKey("db-b"));
    }

    @Test
    void commitsAndAutocommitWritesOfAConnectionThatIsNotReadOnlyAreNoted(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE ryw (id int PRIMARY KEY, v text)");
        FollowerReadClock clock = FollowerReadClock.forKey(db.name());
        try (Connection c = DriverManager.getConnection(
                        db.flushlessUrl("flushless.followerReads=5000&flushless.mode=off"), db.credentials());
                Statement s = c.createStatement()) {
            int before = clock.writesRunning();
            try (ResultSet rs = s.executeQuery("SELECT count(*) FROM ryw")) {
                rs.next();
            }
            assertEquals(before, clock.writesRunning(), "a proven read-only SELECT is no write");
            s.executeUpdate("INSERT INTO ryw VALUES (1, 'a')");
            assertEquals(before + 1, clock.writesRunning(), "an autocommit write runs until the next call");
            long start = System.nanoTime();
            c.clearWarnings(); // a pool takes the connection back
            assertEquals(before, clock.writesRunning());
            assertTrue(clock.lastWriteEnd() - start >= 0, "its end is noted when the connection is used again");

            c.setAutoCommit(false);
            s.executeUpdate("INSERT INTO ryw VALUES (2, 'b')");
            assertEquals(before, clock.writesRunning(), "a transaction's write is visible only at its commit");
            start = System.nanoTime();
            c.commit();
            assertEquals(before, clock.writesRunning());
            assertTrue(clock.lastWriteEnd() - start >= 0, "the commit's end is noted when it returns");

            c.setReadOnly(true);
            long end = clock.lastWriteEnd();
            try (ResultSet rs = s.executeQuery("SELECT v FROM ryw ORDER BY id")) {
                rs.next();
            }
            c.commit();
            assertEquals(end, clock.lastWriteEnd(), "a read-only connection writes nothing");
        }
    }

    @Test
    void aReadOnlyPeriodWithinTheWindowOfAWriteReadsFromTheLeaders(TestDatabase db) throws Exception {
        FollowerReadClock clock = new FollowerReadClock();
        FlushlessStats stats = FlushlessStats.forConnection();
        FollowerReads reads = new FollowerReads(NAMES, VALUES, clock, 60_000, stats);
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties("ryw-leaders"));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter("ryw-leaders");
        try (Connection c = DriverManager.getConnection(db.pgjdbcUrl(), properties)) {
            reads.readOnlyChanged(c, true);
            assertEquals("follower", setting(c), "nothing written: followers");
            assertFalse(reads.onLeaders());
            reads.readOnlyChanged(c, false);

            FollowerReadClock.Writer writer = clock.writer();
            writer.starting(true);
            writer.ended(); // a write committed just now
            socket.reset();
            reads.readOnlyChanged(c, true);
            assertEquals(1, socket.roundTrips(), "the leader setting travels in the round trip that sets the others");
            assertEquals("false", setting(c), "within the window: the leaders");
            assertTrue(reads.onLeaders());
            reads.statementStarting(c, true);
            assertEquals(1L, stats.primaryReads().get("recent-write"));
            reads.readOnlyChanged(c, false);
            assertEquals(defaultName(db), setting(c), "restored");
        }
    }

    @Test
    void aConnectionHeldOnFollowersGoesToTheLeadersAfterAWriteAndBackAtSetReadOnly(TestDatabase db) throws Exception {
        FollowerReadClock clock = new FollowerReadClock();
        FollowerReads reads = new FollowerReads(NAMES, VALUES, clock, 1, null);
        try (Connection c = db.bare()) {
            c.setAutoCommit(false);
            reads.readOnlyChanged(c, true);
            assertEquals("follower", setting(c));
            c.commit();
            FollowerReadClock.Writer writer = clock.writer();
            writer.starting(true);
            reads.statementStarting(c, false); // a transaction starts while a write runs
            assertTrue(reads.onLeaders());
            c.rollback(); // the switch was made outside the application's transaction: it stays
            assertEquals("false", setting(c));
            c.commit();
            writer.ended();
            reads.transactionEnded();
            reads.readOnlyChanged(c, true); // still within 1 + 500 ms: no change, nothing sent
            assertTrue(reads.onLeaders());
            Thread.sleep(600);
            reads.readOnlyChanged(c, true); // past the window: back to followers at the next setReadOnly(true)
            assertFalse(reads.onLeaders());
            assertEquals("follower", setting(c));
            c.commit();
            reads.readOnlyChanged(c, false);
            c.commit();
        }
    }

    @Test
    void withoutReadYourWritesReadsStayOnFollowers(TestDatabase db) throws Exception {
        FollowerReadClock clock = new FollowerReadClock();
        FollowerReadClock.Writer writer = clock.writer();
        writer.starting(true);
        writer.ended();
        FollowerReads reads = new FollowerReads(NAMES, VALUES, null, 60_000, null); // flushless.readYourWrites=false
        try (Connection c = db.bare()) {
            reads.readOnlyChanged(c, true);
            reads.statementStarting(c, true);
            assertEquals("follower", setting(c));
            assertFalse(reads.onLeaders());
            reads.readOnlyChanged(c, false);
        }
        try (Connection c = DriverManager.getConnection(
                db.flushlessUrl("flushless.followerReads=5000&flushless.readYourWrites=false"), db.credentials())) {
            assertEquals(
                    null,
                    c.unwrap(dev.flushless.jdbc.FlushlessConnection.class)
                            .flushlessStats()
                            .primaryReads()
                            .get("recent-write"));
        }
    }

    private static String setting(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW application_name")) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static String defaultName(TestDatabase db) throws SQLException {
        try (Connection c = db.bare()) {
            return setting(c);
        }
    }
}
