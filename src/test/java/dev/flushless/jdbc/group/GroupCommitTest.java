package dev.flushless.jdbc.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.LatencyProxy.Cut;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import dev.flushless.jdbc.wrapper.WrapperInternals;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code flushless.groupCommit=true} against a real PostgreSQL: many threads, one autocommit single-row INSERT
 * each at a time, some of them violating constraints. Every good row is stored exactly once, every bad row is
 * rejected to its own caller with its own SQLState, and the server ran fewer INSERT statements than callers.
 */
@ExtendWith(PostgresExtension.class)
class GroupCommitTest {

    private static final int THREADS = 32;
    private static final int INSERTS = 500;

    /** What a row of thread {@code t}, insert {@code i}, is meant to do: null = succeed, else the SQLState. */
    private static String expectedError(int t, int i) {
        if (i % 97 == 13) {
            return "23505"; // duplicate of the seeded row
        }
        if (i % 89 == 7) {
            return "23514"; // check constraint
        }
        if (i % 131 == 5) {
            return "23502"; // not-null
        }
        return null;
    }

    @Test
    void thirtyTwoThreadsOfFiveHundredInsertsKeepEveryGoodRowOnceAndGiveEachBadRowItsOwnError(TestDatabase db)
            throws Exception {
        db.execute(
                "CREATE TABLE events (id bigint PRIMARY KEY, device int NOT NULL, reading numeric CHECK (reading >= 0),"
                        + " note text NOT NULL)",
                "INSERT INTO events VALUES (-1, 0, 0, 'seed')");
        String url = db.flushlessUrl("flushless.groupCommit=true");
        long groupedBefore = FlushlessStats.GLOBAL.rewritten("group-commit");
        if (db.hasStatementStats()) {
            db.resetStatementCounts();
        }
        CyclicBarrier start = new CyclicBarrier(THREADS);
        Map<String, String> wrongOutcomes = new ConcurrentHashMap<>();
        AtomicLong good = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            int thread = t;
            futures.add(pool.submit(() -> {
                try (Connection c = DriverManager.getConnection(url, db.credentials());
                        PreparedStatement ps = c.prepareStatement(
                                "INSERT INTO events (id, device, reading, note) VALUES (?, ?, ?, ?)")) {
                    start.await();
                    for (int i = 0; i < INSERTS; i++) {
                        String expected = expectedError(thread, i);
                        ps.setLong(1, "23505".equals(expected) ? -1 : (long) thread * INSERTS + i);
                        ps.setInt(2, thread);
                        ps.setBigDecimal(3, new java.math.BigDecimal("23514".equals(expected) ? -1 : i));
                        if ("23502".equals(expected)) {
                            ps.setNull(4, java.sql.Types.VARCHAR);
                        } else {
                            ps.setString(4, "t" + thread + " i" + i);
                        }
                        String outcome;
                        try {
                            int count = ps.executeUpdate();
                            outcome = count == 1 ? null : "count " + count;
                            if (count == 1) {
                                good.incrementAndGet();
                            }
                        } catch (SQLException e) {
                            outcome = e.getSQLState();
                        }
                        if (!java.util.Objects.equals(expected, outcome)) {
                            wrongOutcomes.put(thread + "/" + i, "expected " + expected + ", got " + outcome);
                        }
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : futures) {
            future.get();
        }
        pool.shutdown();
        assertEquals(Map.of(), wrongOutcomes);
        int expectedGood = 0;
        for (int t = 0; t < THREADS; t++) {
            for (int i = 0; i < INSERTS; i++) {
                if (expectedError(t, i) == null) {
                    expectedGood++;
                }
            }
        }
        assertEquals(expectedGood, good.get());
        assertEquals(
                List.of(List.of(String.valueOf(expectedGood + 1), String.valueOf(expectedGood + 1))),
                db.rows("SELECT count(*), count(DISTINCT id) FROM events"));
        assertEquals(
                List.of(List.of("0")),
                db.rows("SELECT count(*) FROM events WHERE id >= 0" + " AND note <> 't' || (id / " + INSERTS
                        + ") || ' i' || (id % " + INSERTS + ")"),
                "each row is its caller's");
        long grouped = FlushlessStats.GLOBAL.rewritten("group-commit") - groupedBefore;
        System.out.println(
                "[group commit] " + grouped + " of " + (THREADS * INSERTS) + " inserts ran grouped; most groups"
                        + " running at once in a lane: " + WrapperInternals.groupCommitMostRunning());
        assertTrue(grouped > 0, "no INSERT ran grouped");
        if (db.hasStatementStats()) {
            long statements = db.statementCount("%insert into events%");
            System.out.println("[group commit] server ran " + statements + " INSERT statements for "
                    + (THREADS * INSERTS) + " callers");
            assertTrue(statements < THREADS * INSERTS, "statements: " + statements);
        }
    }

    @Test
    void aLoneWriterRunsItsOwnStatementAndIneligibleInsertsAreNotGrouped(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE lone (id int PRIMARY KEY, v text)");
        try (Connection c =
                DriverManager.getConnection(db.flushlessUrl("flushless.groupCommit=true"), db.credentials())) {
            PreparedStatement ps = c.prepareStatement("INSERT INTO lone (id, v) VALUES (?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v" + i);
                assertEquals(1, ps.executeUpdate());
                assertEquals(1, ps.getUpdateCount());
            }
            PreparedStatement keys =
                    c.prepareStatement("INSERT INTO lone (id, v) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
            keys.setInt(1, 10);
            keys.setString(2, "k");
            assertEquals(1, keys.executeUpdate());
            try (var rs = keys.getGeneratedKeys()) {
                assertTrue(rs.next());
                assertEquals(10, rs.getInt("id"));
            }
            c.setAutoCommit(false);
            ps.setInt(1, 11);
            ps.setString(2, "in a transaction");
            assertEquals(1, ps.executeUpdate());
            c.rollback();
            assertEquals(0, c.unwrap(FlushlessConnection.class).flushlessStats().rewritten("group-commit"));
        }
        assertEquals(List.of(List.of("4")), db.rows("SELECT count(*) FROM lone"));
    }

    /** Lanes are kept per SQL text driver-wide, within a bound: many distinct INSERT texts do not grow it for ever. */
    @Test
    void manyDistinctInsertTextsKeepTheLanesWithinTheirBound(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE lanes_t (id int PRIMARY KEY, v text)");
        int bound = WrapperInternals.groupCommitLanes()[1];
        try (Connection c =
                DriverManager.getConnection(db.flushlessUrl("flushless.groupCommit=true"), db.credentials())) {
            for (int i = 0; i < bound + 100; i++) {
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO lanes_t (id, v) VALUES (?, ?) -- text " + i)) {
                    ps.setInt(1, i);
                    ps.setString(2, "v");
                    assertEquals(1, ps.executeUpdate());
                }
                assertTrue(
                        WrapperInternals.groupCommitLanes()[0] <= bound,
                        "lanes: " + WrapperInternals.groupCommitLanes()[0]);
            }
        }
        assertEquals(List.of(List.of(String.valueOf(bound + 100))), db.rows("SELECT count(*) FROM lanes_t"));
    }

    @Test
    void aLoneWriterNeverWaitsForCompanyNotEvenRightAfterABurst(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE solo (id int PRIMARY KEY, v text)");
        String url = db.flushlessUrl("flushless.groupCommit=true&flushless.groupCommit.maxDelayMicros=1000000");
        String insert = "INSERT INTO solo (id, v) VALUES (?, ?)";
        long waitsBefore = WrapperInternals.groupCommitCompanyWaits();
        try (Connection c = DriverManager.getConnection(url, db.credentials());
                PreparedStatement ps = c.prepareStatement(insert)) {
            for (int i = 0; i < 200; i++) {
                ps.setInt(1, i);
                ps.setString(2, "lone");
                assertEquals(1, ps.executeUpdate());
            }
            assertEquals(0, c.unwrap(FlushlessConnection.class).flushlessStats().rewritten("group-commit"));
        }
        assertEquals(0, WrapperInternals.groupCommitCompanyWaits() - waitsBefore, "a lone writer waited for company");

        int threads = 8;
        CyclicBarrier start = new CyclicBarrier(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> burst = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            burst.add(pool.submit(() -> {
                try (Connection c = DriverManager.getConnection(url, db.credentials());
                        PreparedStatement ps = c.prepareStatement(insert)) {
                    start.await();
                    for (int i = 0; i < 50; i++) {
                        ps.setInt(1, 1000 + thread * 50 + i);
                        ps.setString(2, "burst");
                        assertEquals(1, ps.executeUpdate());
                    }
                }
                return null;
            }));
        }
        for (Future<?> future : burst) {
            future.get();
        }
        pool.shutdown();
        long waitsAfterBurst = WrapperInternals.groupCommitCompanyWaits();
        try (Connection c = DriverManager.getConnection(url, db.credentials());
                PreparedStatement ps = c.prepareStatement(insert)) {
            for (int i = 0; i < 200; i++) {
                ps.setInt(1, 2000 + i);
                ps.setString(2, "lone again");
                assertEquals(1, ps.executeUpdate());
            }
        }
        assertEquals(
                0,
                WrapperInternals.groupCommitCompanyWaits() - waitsAfterBurst,
                "the lone writer after the burst waited for company");
        assertEquals(List.of(List.of("800")), db.rows("SELECT count(*) FROM solo"));
    }

    /**
     * While the table is locked every INSERT blocks in the server. Writers that arrive while others' statements
     * run must not queue behind them: each leads a group of its own, so all of them are in the server at once.
     */
    @Test
    void writersArrivingWhileGroupsRunLeadNewGroupsInsteadOfQueueing(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE held (id int PRIMARY KEY, v text)");
        String url = db.flushlessUrl("flushless.groupCommit=true");
        String insert = "INSERT INTO held (id, v) VALUES (?, ?)";
        int writers = 4;
        List<Connection> connections = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (Connection holder = db.bare();
                Connection watcher = db.bare()) {
            openWarmedWriters(db, url, insert, writers, connections);
            lockTable(holder, "held");
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                results.add(submitInsert(pool, connections.get(w), insert, w));
            }
            awaitBlockedInserts(watcher, "held", writers);
            holder.commit();
            for (Future<Integer> result : results) {
                assertEquals(1, result.get());
            }
        } finally {
            pool.shutdown();
            for (Connection c : connections) {
                c.close();
            }
        }
        assertTrue(
                WrapperInternals.groupCommitMostRunning() >= writers,
                "most running: " + WrapperInternals.groupCommitMostRunning());
        assertEquals(List.of(List.of(String.valueOf(2 * writers))), db.rows("SELECT count(*) FROM held"));
    }

    /**
     * A lane whose writers all run alone must still start grouping. With four of its statements running (held by a
     * table lock) and no writer released by a group, the next writer waits for company (up to maxDelayMicros) and
     * the writer after it joins its group: one statement for the two (a new lane, whose first epoch lets leaders
     * wait). Without the rule, nobody would wait, since nobody is "away", and a busy lane whose writers all ran alone
     * stayed so.
     */
    @Test
    void aCrowdedLaneGroupsNewArrivalsEvenWhenAllItsWritersRanAlone(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE crowded (id int PRIMARY KEY, v text)");
        String url = db.flushlessUrl("flushless.groupCommit=true&flushless.groupCommit.maxDelayMicros=1000000");
        String insert = "INSERT INTO crowded (id, v) VALUES (?, ?)";
        int alone = 4; // GroupCommit.MIN_COMPANY statements running
        int writers = alone + 2;
        List<Connection> connections = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (Connection holder = db.bare();
                Connection watcher = db.bare()) {
            openWarmedWriters(db, url, insert, writers, connections);
            lockTable(holder, "crowded");
            long groupedBefore = FlushlessStats.GLOBAL.rewritten("group-commit");
            List<Future<Integer>> results = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                if (w == alone) {
                    awaitBlockedInserts(watcher, "crowded", alone); // four lone statements run (blocked)
                }
                long waits = WrapperInternals.groupCommitCompanyWaits();
                results.add(submitInsert(pool, connections.get(w), insert, w));
                if (w == alone) { // the fifth writer must be waiting for company before the sixth comes
                    for (int poll = 0; poll < 6000 && WrapperInternals.groupCommitCompanyWaits() == waits; poll++) {
                        Thread.sleep(1);
                    }
                    assertEquals(
                            waits + 1,
                            WrapperInternals.groupCommitCompanyWaits(),
                            "the writer arriving at a crowded lane did not wait for company");
                }
            }
            awaitBlockedInserts(watcher, "crowded", alone + 1); // the fifth and sixth writers' rows: one statement
            holder.commit();
            for (Future<Integer> result : results) {
                assertEquals(1, result.get());
            }
            assertEquals(2, FlushlessStats.GLOBAL.rewritten("group-commit") - groupedBefore, "rows run grouped");
        } finally {
            pool.shutdown();
            for (Connection c : connections) {
                c.close();
            }
        }
        assertEquals(List.of(List.of(String.valueOf(2 * writers))), db.rows("SELECT count(*) FROM crowded"));
    }

    /**
     * The connection running a group of three dies before, during or after its grouped statement (the latency proxy
     * cuts it when the grouped INSERT passes). Nobody can know whether the group committed until the reply, so every
     * member gets SQLState class 08, as a caller of bare pgjdbc would for its own lost connection, and nothing is
     * re-run (which could insert a row twice); the table holds all three rows or none, as the cut decides. When the
     * reply arrived before the cut, all three committed and returned 1.
     */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void aLostLeaderConnectionGivesEveryMemberAnSqlState08AndNoRowTwice(Cut cut, TestDatabase db) throws Exception {
        String table = "gc_lost_" + cut.name().toLowerCase();
        db.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
        int members = 3;
        WrapperInternals.groupCommitTestGroupSize(members);
        ExecutorService pool = Executors.newFixedThreadPool(members);
        try (LatencyProxy proxy = LatencyProxy.forUrl(db.pgjdbcUrl(), 0)) {
            String url = proxy.proxiedUrl(
                    db.flushlessUrl("flushless.groupCommit=true&flushless.groupCommit.maxDelayMicros=1000000"));
            List<Connection> connections = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                connections.add(DriverManager.getConnection(url, db.credentials()));
            }
            proxy.cut(cut, "flushless_ins");
            List<Future<String>> outcomes = new ArrayList<>();
            for (int i = 0; i < members; i++) {
                Connection c = connections.get(i);
                int id = i + 1;
                outcomes.add(pool.submit(() -> {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
                        ps.setInt(1, id);
                        ps.setString(2, "row");
                        return "count " + ps.executeUpdate();
                    } catch (SQLException e) {
                        return "SQLState " + e.getSQLState();
                    }
                }));
            }
            List<String> seen = new ArrayList<>();
            for (Future<String> outcome : outcomes) {
                seen.add(outcome.get());
            }
            assertTrue(proxy.faultFired(), "the grouped INSERT was cut");
            String rows = db.rows("SELECT count(*) FROM " + table).get(0).get(0);
            if (cut == Cut.AFTER_REPLY) {
                assertEquals(List.of("count 1", "count 1", "count 1"), seen);
                assertEquals("3", rows);
            } else {
                for (String outcome : seen) {
                    assertTrue(outcome.startsWith("SQLState 08"), seen.toString());
                }
                assertEquals(cut == Cut.BEFORE_REPLY ? "3" : "0", rows, "all of the group or none");
            }
            for (Connection c : connections) {
                c.close();
            }
        } finally {
            WrapperInternals.groupCommitTestGroupSize(0);
            pool.shutdownNow();
        }
    }

    /**
     * Opens {@code n} Flushless connections into {@code connections} and runs one {@code insert} (id, text) on each,
     * so that each has read the catalog and its session before the test's INSERTs.
     */
    private static void openWarmedWriters(
            TestDatabase db, String url, String insert, int n, List<Connection> connections) throws SQLException {
        for (int w = 0; w < n; w++) {
            Connection c = DriverManager.getConnection(url, db.credentials());
            connections.add(c);
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setInt(1, -1 - w);
                ps.setString(2, "warm-up");
                assertEquals(1, ps.executeUpdate());
            }
        }
    }

    /** Locks {@code table} in a transaction of {@code holder}: INSERTs into it block until the holder commits. */
    private static void lockTable(Connection holder, String table) throws SQLException {
        holder.setAutoCommit(false);
        try (Statement s = holder.createStatement()) {
            s.execute("LOCK TABLE " + table + " IN EXCLUSIVE MODE");
        }
    }

    /** Runs {@code insert} with (id, "w" + id) on {@code c} in {@code pool}; the future holds its update count. */
    private static Future<Integer> submitInsert(ExecutorService pool, Connection c, String insert, int id) {
        return pool.submit(() -> {
            try (PreparedStatement ps = c.prepareStatement(insert)) {
                ps.setInt(1, id);
                ps.setString(2, "w" + id);
                return ps.executeUpdate();
            }
        });
    }

    /** Polls (bounded) until {@code n} sessions of the database wait for a lock in an INSERT into {@code table}. */
    private static void awaitBlockedInserts(Connection watcher, String table, int n) throws Exception {
        int blocked = 0;
        for (int poll = 0; poll < 6000; poll++) {
            try (Statement s = watcher.createStatement();
                    java.sql.ResultSet rs =
                            s.executeQuery("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                                    + " AND wait_event_type = 'Lock' AND query ILIKE '%insert into " + table + " %'")) {
                rs.next();
                blocked = rs.getInt(1);
            }
            if (blocked == n) {
                return;
            }
            Thread.sleep(10);
        }
        fail("INSERTs blocked in the server at once: " + blocked + ", expected " + n);
    }
}
