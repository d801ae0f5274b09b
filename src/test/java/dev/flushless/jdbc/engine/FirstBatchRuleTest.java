package dev.flushless.jdbc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The first-batch rule ({@code flushless.coalesceFirstBatch=false}, the default): inside a transaction, a connection's
 * first batch into a table whose catalog facts it has not read runs as sent, and the facts are read in the round trip
 * of the COMMIT, so a fresh connection's batches cost bare pgjdbc's round trips (issue #27's held-out check: 50
 * parents and 200 children in one transaction), and the table's next batches are coalesced. Round trips are counted on
 * the driver's socket on connections with catalog facts of their own (the first connection of a process). The COMMIT
 * that carries the read fails, succeeds or is skipped exactly as pgjdbc's own. Nothing here is timed.
 */
@ExtendWith(PostgresExtension.class)
class FirstBatchRuleTest {

    /** Facts of its own, as the first connection of a process reads them; otherwise the driver's defaults. */
    private static final String FRESH = "flushless.mode=batch&flushless.catalogCacheSeconds=0";

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS fb_child, fb_parent, fb_deferred, fb_skew",
                "CREATE TABLE fb_skew (id int PRIMARY KEY, k int NOT NULL)",
                "CREATE TABLE fb_parent (id int PRIMARY KEY, name text NOT NULL)",
                "CREATE TABLE fb_child (id int PRIMARY KEY, parent_id int NOT NULL REFERENCES fb_parent,"
                        + " amount numeric(8,2), at timestamp)",
                "CREATE TABLE fb_deferred (id int, CONSTRAINT fb_deferred_id UNIQUE (id) DEFERRABLE INITIALLY DEFERRED)");
    }

    private interface Work {
        String run(Connection c) throws SQLException;
    }

    /** What a connection did: the work's outcome, its round trips, and (Flushless) its report. */
    private record Observed(String outcome, long roundTrips, FlushlessReport report) {}

    /** Runs {@code works} one after the other on one fresh connection of {@code url} (null: bare pgjdbc). */
    private Observed[] observe(String url, Work... works) throws SQLException {
        String key = "first-batch-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
        Observed[] observed = new Observed[works.length];
        try (Connection c = DriverManager.getConnection(url == null ? db.pgjdbcUrl() : url, properties)) {
            c.setAutoCommit(false);
            for (int i = 0; i < works.length; i++) {
                socket.reset();
                String outcome = works[i].run(c);
                observed[i] = new Observed(
                        outcome,
                        socket.roundTrips(),
                        url == null ? null : c.unwrap(FlushlessConnection.class).report());
            }
        }
        return observed;
    }

    private String url(String settings) {
        return TestDatabase.withParameters(db.flushlessDefaultsUrl(), settings);
    }

    /** 50 parents and 200 children (4 per parent), two batches, then commit; ids from {@code first}. */
    private static Work parentsAndChildren(int first) {
        return c -> {
            StringBuilder counts = new StringBuilder();
            try (PreparedStatement parents = c.prepareStatement("INSERT INTO fb_parent (id, name) VALUES (?, ?)")) {
                for (int i = 0; i < 50; i++) {
                    parents.setInt(1, first + i);
                    parents.setString(2, "p" + i);
                    parents.addBatch();
                }
                counts.append(java.util.Arrays.toString(parents.executeBatch()).length());
            }
            try (PreparedStatement children =
                    c.prepareStatement("INSERT INTO fb_child (id, parent_id, amount, at) VALUES (?, ?, ?, ?)")) {
                for (int i = 0; i < 200; i++) {
                    children.setInt(1, first + i);
                    children.setInt(2, first + i / 4);
                    children.setBigDecimal(3, i % 7 == 0 ? null : java.math.BigDecimal.valueOf(i, 2));
                    children.setTimestamp(4, new java.sql.Timestamp(1_700_000_000_000L + i));
                    children.addBatch();
                }
                counts.append(' ')
                        .append(java.util.Arrays.toString(children.executeBatch())
                                .length());
            }
            c.commit();
            return counts.toString();
        };
    }

    private String rows(int first) throws SQLException {
        return db.rows("SELECT count(*), sum(p.id - " + first + "), sum(c.amount), max(c.at) FROM fb_parent p JOIN"
                        + " fb_child c ON c.parent_id = p.id WHERE p.id >= " + first + " AND p.id < " + (first + 1000))
                .toString();
    }

    @Test
    void aFreshConnectionsFirstBatchesTakeBaresRoundTripsAndTheNextAreCoalesced() throws SQLException {
        Observed[] bare = observe(null, parentsAndChildren(0), parentsAndChildren(1000));
        Observed[] flushless = observe(url(FRESH), parentsAndChildren(10_000), parentsAndChildren(11_000));
        assertEquals(bare[0].outcome(), flushless[0].outcome());
        assertEquals(rows(0), rows(10_000));
        assertEquals(rows(1000), rows(11_000));
        assertEquals(
                bare[0].roundTrips(),
                flushless[0].roundTrips(),
                "the first transaction: bare pgjdbc's round trips, the catalog read rides with the COMMIT; "
                        + flushless[0].report());
        assertEquals(Map.of("first-batch", 250L), flushless[0].report().fallbacks());
        assertTrue(
                flushless[0].report().rewrites().isEmpty(),
                flushless[0].report().toString());
        assertEquals(Map.of("first-batch", 250L), flushless[1].report().fallbacks(), "no new fallback");
        assertTrue(!flushless[1].report().rewrites().isEmpty(), "coalesced: " + flushless[1].report());
        assertTrue(flushless[1].roundTrips() <= bare[1].roundTrips(), flushless[1] + " against " + bare[1]);
        System.out.println("[first batch] fresh connection, 50 parents + 200 children: " + flushless[0].roundTrips()
                + " then " + flushless[1].roundTrips() + " round trips, bare pgjdbc " + bare[0].roundTrips() + " then "
                + bare[1].roundTrips());

        Observed eager = observe(url(FRESH + "&flushless.coalesceFirstBatch=true"), parentsAndChildren(20_000))[0];
        assertTrue(eager.report().fallbacks().isEmpty(), eager.report().toString());
        assertTrue(eager.roundTrips() > bare[0].roundTrips(), "catalog reads of their own: " + eager);
    }

    /**
     * Two batches into one table in the first transaction: the first runs as sent, the second reads the facts and is
     * coalesced, and the COMMIT carries no second read of them (pg_stat_statements counts one lookup).
     */
    @Test
    void aTableReadByTheTransactionsNextBatchIsNotReadAgainAtCommit() throws SQLException {
        db.resetStatementCounts();
        Work twoBatches = c -> {
            String counts = "";
            for (int batch = 0; batch < 2; batch++) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO fb_parent (id, name) VALUES (?, ?)")) {
                    for (int i = 0; i < 50; i++) {
                        ps.setInt(1, 30_000 + batch * 50 + i);
                        ps.setString(2, "p" + i);
                        ps.addBatch();
                    }
                    counts += ps.executeBatch().length + " ";
                }
            }
            return counts + commit(c);
        };
        Observed observed = observe(url(FRESH), twoBatches)[0];
        assertEquals("50 50 committed", observed.outcome());
        assertEquals(Map.of("first-batch", 50L), observed.report().fallbacks());
        assertEquals(
                Long.valueOf(50),
                observed.report().rewrites().get("insert-unnest"),
                observed.report().toString());
        assertEquals(1, db.statementCount("%to_regclass%"), "the table's facts are read once");
        assertEquals(List.of(List.of("100")), db.rows("SELECT count(*) FROM fb_parent WHERE id >= 30000"));
    }

    /** What {@code commit()} did: "committed", or the exception's class, SQLState and message. */
    private static String commit(Connection c) {
        try {
            c.commit();
            return "committed";
        } catch (SQLException e) {
            return e.getClass().getName() + " " + e.getSQLState() + " " + e.getMessage();
        }
    }

    /** A batch of 60 rows of {@code fb_deferred} starting at {@code first}, with a duplicate when asked. */
    private static String deferredBatch(Connection c, int first, boolean duplicate) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO fb_deferred (id) VALUES (?)")) {
            for (int i = 0; i < 60; i++) {
                ps.setInt(1, duplicate && i == 59 ? first : first + i);
                ps.addBatch();
            }
            return Integer.toString(ps.executeBatch().length);
        }
    }

    /**
     * A COMMIT that fails (a deferred unique constraint) fails as pgjdbc's own, catalog read or not: the same class,
     * SQLState and message, the transaction over and nothing stored; the connection works on, and its next COMMIT
     * reads the facts.
     */
    @Test
    void aCommitThatFailsFailsAsBaresAndTheConnectionWorksOn() throws SQLException {
        Work failing = c -> deferredBatch(c, 0, true) + " " + commit(c) + " "
                + db.rows("SELECT count(*) FROM fb_deferred").get(0);
        Work working = c -> deferredBatch(c, 100, false) + " " + commit(c);
        Observed[] bare = observe(null, failing, working);
        db.execute("TRUNCATE fb_deferred");
        Observed[] flushless = observe(url(FRESH), failing, working);
        assertTrue(bare[0].outcome().contains(" 23505 "), bare[0].outcome());
        assertEquals(bare[0].outcome(), flushless[0].outcome());
        assertEquals(bare[1].outcome(), flushless[1].outcome());
        assertEquals(bare[0].roundTrips(), flushless[0].roundTrips());
        assertEquals(bare[1].roundTrips(), flushless[1].roundTrips(), "the first-batch rule again, then its read");
        assertEquals(Map.of("first-batch", 120L), flushless[1].report().fallbacks());
        assertEquals(java.util.List.of(java.util.List.of("60")), db.rows("SELECT count(*) FROM fb_deferred"));
    }

    /**
     * A serialization failure of the COMMIT that carries the read (SERIALIZABLE write skew: this transaction read k = 2
     * and wrote k = 1, another read k = 1, wrote k = 2 and committed first) is pgjdbc's own: the same class, SQLState
     * and message, in bare pgjdbc's round trips, never re-run; the connection works on. The read's rows are lost with
     * the failed execution (pgjdbc keeps no results of it), so the next COMMIT carries the read again, in its own
     * round trip as before.
     */
    @Test
    void aSerializationFailureOfTheCommitIsBares() throws SQLException {
        Work skew = c -> {
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            String read = count(c, 2);
            String counts = skewBatch(c, 0, 1);
            try (Connection other = db.bare()) {
                other.setAutoCommit(false);
                other.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                count(other, 1);
                skewBatch(other, 1000, 2);
                other.commit();
            }
            return read + " " + counts + " " + commit(c);
        };
        Work working = c -> skewBatch(c, 2000, 3) + " " + commit(c);
        Observed[] bare = observe(null, skew, working);
        db.execute("TRUNCATE fb_skew");
        Observed[] flushless = observe(url(FRESH), skew, working);
        assertTrue(bare[0].outcome().contains(" 40001 "), bare[0].outcome());
        for (int i = 0; i < bare.length; i++) {
            assertEquals(bare[i].outcome(), flushless[i].outcome());
            assertEquals(bare[i].roundTrips(), flushless[i].roundTrips(), "work " + i + ": " + flushless[i].report());
        }
        assertEquals(Map.of("first-batch", 120L), flushless[1].report().fallbacks(), "never re-run, nothing coalesced");
    }

    private static String count(Connection c, int k) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT count(*) FROM fb_skew WHERE k = " + k)) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** A batch of 60 rows of {@code fb_skew} with ids from {@code first} and {@code k}. */
    private static String skewBatch(Connection c, int first, int k) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO fb_skew (id, k) VALUES (?, ?)")) {
            for (int i = 0; i < 60; i++) {
                ps.setInt(1, first + i);
                ps.setInt(2, k);
                ps.addBatch();
            }
            return Integer.toString(ps.executeBatch().length);
        }
    }

    /**
     * In a transaction that failed, {@code commit()} is pgjdbc's (no catalog read rides on it), and {@code rollback()}
     * drops the read: the table's next first batch runs as sent again, and its COMMIT reads the facts.
     */
    @Test
    void aFailedTransactionOrARollbackCarriesNoRead() throws SQLException {
        Work failed = c -> {
            String counts = deferredBatch(c, 200, false);
            String error;
            try (Statement s = c.createStatement()) {
                s.execute("SELECT 1 / 0");
                error = "no error";
            } catch (SQLException e) {
                error = e.getSQLState();
            }
            return counts + " " + error + " " + commit(c);
        };
        Work rolledBack = c -> {
            String counts = deferredBatch(c, 300, false);
            c.rollback();
            return counts;
        };
        Work committed = c -> deferredBatch(c, 400, false) + " " + commit(c);
        Observed[] bare = observe(null, failed, rolledBack, committed);
        db.execute("TRUNCATE fb_deferred");
        Observed[] flushless = observe(url(FRESH), failed, rolledBack, committed);
        for (int i = 0; i < bare.length; i++) {
            assertEquals(bare[i].outcome(), flushless[i].outcome());
            assertEquals(bare[i].roundTrips(), flushless[i].roundTrips(), "work " + i + ": " + flushless[i].report());
        }
        assertEquals(Map.of("first-batch", 180L), flushless[2].report().fallbacks());
        Observed after = observe(url(FRESH), c -> deferredBatch(c, 500, false) + " " + commit(c))[0];
        assertEquals(Map.of("first-batch", 60L), after.report().fallbacks(), "a fresh connection: its own facts");
    }
}
