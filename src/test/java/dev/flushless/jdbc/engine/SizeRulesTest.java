package dev.flushless.jdbc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.buffer.FlushPlanner;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The rules that keep Flushless from paying more than it saves, with the driver's default settings (the other tests
 * pin {@link TestDatabase#REWRITE_EVERYTHING}):
 * <ul>
 *   <li>the size rule, {@code flushless.minBatchRows}: on PostgreSQL a batch of fewer than 50 rows (or SQL texts) runs
 *       as sent, before any catalog read, so it sends what bare pgjdbc sends; from 50 rows it is coalesced;</li>
 *   <li>the first-write rule, {@code flushless.bufferFirstWrite=false}: in {@code mode=transaction} a connection's
 *       first write into a table runs as sent without reading the table's catalog facts; its second is buffered.</li>
 * </ul>
 * Round trips are counted on the driver's socket and compared with bare pgjdbc's on a fresh connection (where a
 * catalog read would show as one more round trip). Nothing here is timed.
 */
@ExtendWith(PostgresExtension.class)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SizeRulesTest {

    private TestDatabase db;
    private int ids;

    @BeforeAll
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS sized, sized_other, sized_line, sized_order",
                "CREATE TABLE sized (id int PRIMARY KEY, v text)",
                "CREATE TABLE sized_other (id int PRIMARY KEY, v text)",
                "CREATE TABLE sized_order (id int PRIMARY KEY, customer text NOT NULL, version int NOT NULL)",
                "CREATE TABLE sized_line (id int PRIMARY KEY, order_id int NOT NULL REFERENCES sized_order,"
                        + " qty int NOT NULL)");
    }

    @Test
    void theDefaultsResolveByServer() throws SQLException {
        FlushlessConfig defaults = FlushlessConfig.defaults();
        assertEquals(50, defaults.minBatchRows(false), "PostgreSQL");
        assertEquals(2, defaults.minBatchRows(true), "YugabyteDB: every statement costs a consensus round trip");
        Properties one = new Properties();
        one.setProperty("flushless.minBatchRows", "1");
        assertEquals(2, FlushlessConfig.from(one).minBatchRows(false), "a batch of one row is never coalesced");
        Properties ten = new Properties();
        ten.setProperty("flushless.minBatchRows", "10");
        assertEquals(10, FlushlessConfig.from(ten).minBatchRows(true));
        assertEquals(null, Engine.sizeReason(50, 50, "rows"));
        assertEquals("small-batch", Engine.sizeReason(49, 50, "rows").reason().code());
        assertEquals("single-row", Engine.sizeReason(1, 50, "rows").reason().code());
        assertEquals(null, Engine.sizeReason(3, 0, "rows"), "writes buffered ahead: the batch saves their round trip");
    }

    /** What one piece of work did: its counts, the socket's round trips, and the report's change. */
    private record Observed(String counts, long roundTrips, FlushlessReport report) {}

    private interface Work {
        String run(Connection c) throws SQLException;
    }

    /** Runs {@code work} on a fresh connection of {@code url} (null: bare pgjdbc), counting its round trips only. */
    private Observed observe(String url, Work work) throws SQLException {
        String key = "size-rules-" + UUID.randomUUID();
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties(key));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
        try (Connection c = DriverManager.getConnection(url == null ? db.pgjdbcUrl() : url, properties)) {
            socket.reset();
            String counts = work.run(c);
            long trips = socket.roundTrips();
            return new Observed(
                    counts,
                    trips,
                    url == null ? null : c.unwrap(FlushlessConnection.class).report());
        }
    }

    private Work insertBatch(int rows) {
        return c -> {
            int first = (ids += 1000);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, first + i);
                    ps.setString(2, "v" + i);
                    ps.addBatch();
                }
                return java.util.Arrays.toString(ps.executeBatch());
            }
        };
    }

    private String defaults(String settings) {
        return TestDatabase.withParameters(db.flushlessDefaultsUrl(), settings);
    }

    @Test
    void aSmallBatchRunsAsSentAndReadsNoCatalog() throws SQLException {
        Observed bare = observe(null, insertBatch(3));
        Observed flushless = observe(defaults("flushless.mode=batch"), insertBatch(3));
        assertEquals(bare.counts(), flushless.counts());
        assertEquals(bare.roundTrips(), flushless.roundTrips(), "the same round trips as bare pgjdbc: no catalog read");
        assertEquals(Map.of("small-batch", 3L), flushless.report().fallbacks());
        assertTrue(flushless.report().rewrites().isEmpty(), flushless.report().toString());
    }

    @Test
    void fiftyRowsAreCoalesced() throws SQLException {
        Observed flushless = observe(defaults("flushless.mode=batch"), insertBatch(50));
        assertTrue(flushless.report().fallbacks().isEmpty(), flushless.report().toString());
        assertEquals(1, flushless.report().rewrites().size(), flushless.report().toString());
    }

    @Test
    void minBatchRowsTwoCoalescesThreeRows() throws SQLException {
        Observed flushless = observe(defaults("flushless.mode=batch&flushless.minBatchRows=2"), insertBatch(3));
        assertEquals("[1, 1, 1]", flushless.counts());
        assertEquals(1, flushless.report().rewrites().size(), flushless.report().toString());
    }

    @Test
    void aSmallStatementBatchRunsAsSent() throws SQLException {
        Work texts = c -> {
            int first = (ids += 1000);
            try (Statement s = c.createStatement()) {
                s.addBatch("INSERT INTO sized (id, v) VALUES (" + first + ", 'a')");
                s.addBatch("INSERT INTO sized (id, v) VALUES (" + (first + 1) + ", 'b')");
                s.addBatch("UPDATE sized SET v = 'c' WHERE id = " + first);
                return java.util.Arrays.toString(s.executeBatch());
            }
        };
        Observed bare = observe(null, texts);
        Observed flushless = observe(defaults("flushless.mode=batch"), texts);
        assertEquals(bare.counts(), flushless.counts());
        assertEquals(bare.roundTrips(), flushless.roundTrips());
        assertEquals(Map.of("small-batch", 3L), flushless.report().fallbacks());
    }

    /** A connection that keeps catalog facts of its own, as the first connection of a process reads them. */
    private static final String OWN_FACTS = "flushless.catalogCacheSeconds=0";

    /** Issue #16's reproducer in transaction mode: one INSERT and commit on a fresh connection, as bare pgjdbc sends. */
    @Test
    void theFirstWriteIntoATableRunsAsSentAndTheSecondIsBuffered() throws SQLException {
        Work insertAndCommit = c -> {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)")) {
                ps.setInt(1, ids += 1000);
                ps.setString(2, "t");
                int count = ps.executeUpdate();
                c.commit();
                return Integer.toString(count);
            }
        };
        Observed bare = observe(null, insertAndCommit);
        // facts of its own (catalogCacheSeconds=0): the first connection of a process, whose tables nobody read yet
        Observed flushless = observe(defaults(OWN_FACTS + "&flushless.mode=transaction"), insertAndCommit);
        assertEquals(bare.counts(), flushless.counts());
        assertEquals(bare.roundTrips(), flushless.roundTrips(), "no catalog read for a table written once");
        assertEquals(Map.of("first-write", 1L), flushless.report().fallbacks());

        Observed twice = observe(
                defaults(OWN_FACTS + "&flushless.mode=transaction"),
                c -> insertAndCommit.run(c) + " " + insertAndCommit.run(c));
        assertEquals("1 1", twice.counts());
        assertEquals(Map.of("first-write", 1L), twice.report().fallbacks());
        assertTrue(
                twice.report().rewrites().containsKey(FlushPlanner.REWRITE_KIND),
                "the second write is buffered and fused with the commit: " + twice.report());

        Observed eager =
                observe(defaults("flushless.mode=transaction&flushless.bufferFirstWrite=true"), insertAndCommit);
        assertTrue(eager.report().fallbacks().isEmpty(), eager.report().toString());
        assertTrue(
                eager.report().rewrites().containsKey(FlushPlanner.REWRITE_KIND),
                eager.report().toString());
    }

    /**
     * In {@code mode=transaction} a small batch is still buffered once the table's facts are read, and a small UPDATE
     * batch with writes buffered ahead of it is coalesced with them in one round trip (which saves theirs).
     */
    @Test
    void withWritesBufferedASmallBatchStillRidesAlong() throws SQLException {
        Observed observed = observe(defaults(OWN_FACTS + "&flushless.mode=transaction"), c -> {
            c.setAutoCommit(false);
            int first = (ids += 1000);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)");
                    PreparedStatement update = c.prepareStatement("UPDATE sized SET v = ? WHERE id = ?")) {
                for (int i = 0; i < 3; i++) { // the first write: as sent; then buffered
                    insert.setInt(1, first + i);
                    insert.setString(2, "i");
                    insert.executeUpdate();
                }
                for (int i = 0; i < 3; i++) {
                    update.setString(1, "u");
                    update.setInt(2, first + i);
                    update.addBatch();
                }
                String counts = java.util.Arrays.toString(update.executeBatch());
                c.commit();
                return counts;
            }
        });
        assertEquals("[1, 1, 1]", observed.counts());
        assertEquals(
                Map.of("first-write", 1L),
                observed.report().fallbacks(),
                observed.report().toString());
        assertEquals(
                2, observed.report().rewrites().size(), "the buffer and the coalesced UPDATE: " + observed.report());
        try (Connection c = db.bare();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*) FROM sized WHERE v = 'u'")) {
            rs.next();
            assertEquals(3, rs.getInt(1));
        }
    }

    /**
     * Issue #15's held-out check: an ORM-style flush on a fresh connection (5 parent INSERTs, 20 child INSERTs and 5
     * versioned UPDATEs as three batches, then commit) takes no more round trips than bare pgjdbc in either mode with
     * the defaults, and the same rows and counts. Before the size rules batch mode needed one catalog round trip per
     * table more.
     */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"batch", "transaction"})
    void aFreshConnectionsOrmFlushTakesNoMoreRoundTripsThanBare(String mode) throws SQLException {
        Work flush = c -> {
            int first = (ids += 1000);
            c.setAutoCommit(false);
            StringBuilder counts = new StringBuilder();
            try (PreparedStatement orders =
                    c.prepareStatement("INSERT INTO sized_order (id, customer, version) VALUES (?, ?, 0)")) {
                for (int i = 0; i < 5; i++) {
                    orders.setInt(1, first + i);
                    orders.setString(2, "c" + i);
                    orders.addBatch();
                }
                counts.append(java.util.Arrays.toString(orders.executeBatch()));
            }
            try (PreparedStatement lines =
                    c.prepareStatement("INSERT INTO sized_line (id, order_id, qty) VALUES (?, ?, ?)")) {
                for (int i = 0; i < 20; i++) {
                    lines.setInt(1, first + i);
                    lines.setInt(2, first + i % 5);
                    lines.setInt(3, i);
                    lines.addBatch();
                }
                counts.append(java.util.Arrays.toString(lines.executeBatch()));
            }
            try (PreparedStatement versions = c.prepareStatement(
                    "UPDATE sized_order SET customer = ?, version = ? WHERE id = ? AND version = ?")) {
                for (int i = 0; i < 5; i++) {
                    versions.setString(1, "d" + i);
                    versions.setInt(2, 1);
                    versions.setInt(3, first + i);
                    versions.setInt(4, 0);
                    versions.addBatch();
                }
                counts.append(java.util.Arrays.toString(versions.executeBatch()));
            }
            c.commit();
            return counts.toString();
        };
        Observed bare = observe(null, flush);
        Observed flushless = observe(defaults("flushless.mode=" + mode), flush);
        assertEquals(bare.counts(), flushless.counts());
        assertTrue(
                flushless.roundTrips() <= bare.roundTrips(),
                mode + ": " + flushless.roundTrips() + " round trips, bare pgjdbc " + bare.roundTrips() + "; "
                        + flushless.report());
        System.out.println("[size rules] fresh connection ORM flush, " + mode + ": " + flushless.roundTrips()
                + " round trips, bare pgjdbc " + bare.roundTrips() + "; " + flushless.report());
    }

    /**
     * The rows of {@code sized} with ids from {@code first} (ids relative to it), read on a bare connection: what a
     * piece of work wrote, to compare with what the same work wrote through bare pgjdbc.
     */
    private String rowsFrom(int first) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = db.bare();
                PreparedStatement ps =
                        c.prepareStatement("SELECT id, v FROM sized WHERE id >= ? AND id < ? + 1000 ORDER BY id")) {
            ps.setInt(1, first);
            ps.setInt(2, first);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.append(' ').append(rs.getInt(1) - first).append('=').append(rs.getString(2));
                }
            }
        }
        return out.toString();
    }

    /** Runs {@code work} (given its first id) on bare pgjdbc and on {@code url}: the same counts and rows written. */
    private Observed sameAsBare(String url, java.util.function.IntFunction<Work> work) throws SQLException {
        int bareFirst = (ids += 1000);
        Observed bare = observe(null, work.apply(bareFirst));
        int first = (ids += 1000);
        Observed flushless = observe(url, work.apply(first));
        assertEquals(bare.counts(), flushless.counts());
        assertEquals(rowsFrom(bareFirst), rowsFrom(first));
        return flushless;
    }

    /**
     * A small batch's rows also go to pgjdbc's own batch as they are added (so that running it as sent needs no
     * replay); the rows a batch may not run from there must leave it: a batch grown past the threshold, a cleared
     * batch, a stream parameter (recording stops), and the parameters stay set after the batch, as in pgjdbc.
     */
    @Test
    void rowsHandedToPgjdbcAsAddedRunExactlyOnce() throws SQLException {
        String url = defaults("flushless.mode=batch");
        Observed grown = sameAsBare(url, first -> c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)")) {
                for (int i = 0; i < 60; i++) { // past 50: coalesced from all 60 recorded rows
                    ps.setInt(1, first + i);
                    ps.setString(2, "g" + i);
                    ps.addBatch();
                }
                String counts = java.util.Arrays.toString(ps.executeBatch());
                for (int i = 0; i < 2; i++) { // then a small batch on the same statement: nothing left over
                    ps.setInt(1, first + 100 + i);
                    ps.addBatch();
                }
                return counts + java.util.Arrays.toString(ps.executeBatch());
            }
        });
        assertEquals(
                Map.of("small-batch", 2L),
                grown.report().fallbacks(),
                grown.report().toString());
        assertEquals(1, grown.report().rewrites().size(), grown.report().toString());

        Observed cleared = sameAsBare(url, first -> c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)")) {
                ps.setInt(1, first);
                ps.setString(2, "dropped");
                ps.addBatch();
                ps.setInt(1, first + 1);
                ps.addBatch();
                ps.clearBatch();
                ps.setInt(1, first + 2);
                ps.setString(2, "kept");
                ps.addBatch();
                String counts = java.util.Arrays.toString(ps.executeBatch());
                ps.setInt(1, first + 3); // the parameters set before the batch stay set
                return counts + ps.executeUpdate();
            }
        });
        assertEquals(
                Map.of("single-row", 1L),
                cleared.report().fallbacks(),
                cleared.report().toString());

        sameAsBare(url, first -> c -> {
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)")) {
                for (int i = 0; i < 2; i++) {
                    ps.setInt(1, first + i);
                    ps.setString(2, "s" + i);
                    ps.addBatch();
                }
                ps.setInt(1, first + 2);
                ps.setCharacterStream(2, new java.io.StringReader("stream")); // recording stops
                ps.addBatch();
                return java.util.Arrays.toString(ps.executeBatch());
            }
        });
    }

    /**
     * A batch whose rows went to pgjdbc's batch as they were added, but which takes another route when it runs (in
     * {@code mode=transaction} a write was buffered in between, so the batch is coalesced with it): each row runs
     * once, and the statement's next batch holds only its own rows.
     */
    @Test
    void aBatchHandedToPgjdbcThatRunsCoalescedRunsOnce() throws SQLException {
        Observed observed = sameAsBare(defaults("flushless.mode=transaction"), first -> c -> {
            c.setAutoCommit(false);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO sized (id, v) VALUES (?, ?)");
                    PreparedStatement update = c.prepareStatement("UPDATE sized SET v = v || ? WHERE id = ?")) {
                insert.setInt(1, first);
                insert.setString(2, "a");
                insert.executeUpdate(); // the first write: as sent
                for (int i = 0; i < 3; i++) { // nothing buffered yet: handed to pgjdbc's batch as added
                    update.setString(1, "+u");
                    update.setInt(2, first + (i == 0 ? 0 : 10 + i));
                    update.addBatch();
                }
                insert.setInt(1, first + 11);
                insert.executeUpdate(); // buffered
                insert.setInt(1, first + 12);
                insert.executeUpdate(); // buffered
                String counts = java.util.Arrays.toString(update.executeBatch());
                update.setString(1, "+w");
                update.setInt(2, first);
                update.addBatch();
                counts += java.util.Arrays.toString(update.executeBatch());
                c.commit();
                return counts;
            }
        });
        assertTrue(
                observed.report().rewrites().size() >= 1,
                "the UPDATE batch rode with the buffered writes: " + observed.report());
    }

    /** {@code explain} asks the same rule: with the defaults a batch of 3 rows runs as sent. */
    @Test
    void explainAppliesTheSameRules() throws Exception {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        dev.flushless.jdbc.tools.FlushlessMain.run(
                new String[] {"explain", "--rows", "3", "-"},
                new java.io.ByteArrayInputStream(
                        "INSERT INTO t (a) VALUES (?);".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8),
                System.err);
        String text = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.contains("batch of 3 rows, below flushless.minBatchRows (50)"), text);
    }
}
