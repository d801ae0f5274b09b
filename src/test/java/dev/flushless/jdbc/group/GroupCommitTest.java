package dev.flushless.jdbc.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
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
        db.execute("CREATE TABLE events (id bigint PRIMARY KEY, device int NOT NULL, reading numeric CHECK (reading >= 0),"
                + " note text NOT NULL)", "INSERT INTO events VALUES (-1, 0, 0, 'seed')");
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
        assertEquals(List.of(List.of(String.valueOf(expectedGood + 1), String.valueOf(expectedGood + 1))),
                db.rows("SELECT count(*), count(DISTINCT id) FROM events"));
        assertEquals(List.of(List.of("0")), db.rows("SELECT count(*) FROM events WHERE id >= 0"
                + " AND note <> 't' || (id / " + INSERTS + ") || ' i' || (id % " + INSERTS + ")"), "each row is its caller's");
        long grouped = FlushlessStats.GLOBAL.rewritten("group-commit") - groupedBefore;
        System.out.println("[group commit] " + grouped + " of " + (THREADS * INSERTS) + " inserts ran grouped");
        assertTrue(grouped > 0, "no INSERT ran grouped");
        if (db.hasStatementStats()) {
            long statements = db.statementCount("%insert into events%");
            System.out.println("[group commit] server ran " + statements + " INSERT statements for " + (THREADS * INSERTS)
                    + " callers");
            assertTrue(statements < THREADS * INSERTS, "statements: " + statements);
        }
    }

    @Test
    void aLoneWriterRunsItsOwnStatementAndIneligibleInsertsAreNotGrouped(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE lone (id int PRIMARY KEY, v text)");
        try (Connection c = DriverManager.getConnection(db.flushlessUrl("flushless.groupCommit=true"), db.credentials())) {
            PreparedStatement ps = c.prepareStatement("INSERT INTO lone (id, v) VALUES (?, ?)");
            for (int i = 0; i < 3; i++) {
                ps.setInt(1, i);
                ps.setString(2, "v" + i);
                assertEquals(1, ps.executeUpdate());
                assertEquals(1, ps.getUpdateCount());
            }
            PreparedStatement keys = c.prepareStatement("INSERT INTO lone (id, v) VALUES (?, ?)", Statement.RETURN_GENERATED_KEYS);
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

}
