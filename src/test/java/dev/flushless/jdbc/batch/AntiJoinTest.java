package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flushless.onConflict=antijoin} forced on PostgreSQL: the same counts and rows as bare pgjdbc's ON CONFLICT
 * (keys repeated inside a batch, NULL and composite keys, DO NOTHING and DO UPDATE, autocommit and transactions),
 * one statement per chunk, the fallbacks to native with their reasons, and what a concurrent insert of the same
 * key does (autocommit: retried natively; in a transaction: the named error, SQLState 23505).
 */
@ExtendWith(PostgresExtension.class)
class AntiJoinTest {

    private static final String ANTI_JOIN = "flushless.onConflict=antijoin";

    /** One upsert statement over its own table, created fresh per variant. */
    private record Upsert(String table, String ddl, String sql, int parameters) {}

    private static final List<Upsert> UPSERTS = List.of(
            new Upsert(
                    "single_nothing",
                    "CREATE TABLE %s (k int UNIQUE, v int, note text)",
                    "INSERT INTO %s (k, v, note) VALUES (?, ?, ?) ON CONFLICT (k) DO NOTHING",
                    3),
            new Upsert(
                    "pair_nothing",
                    "CREATE TABLE %s (a int, b text, v int NOT NULL, note text, UNIQUE (a, b))",
                    "INSERT INTO %s (a, b, v, note) VALUES (?, ?, ?, ?) ON CONFLICT (b, a) DO NOTHING",
                    4),
            new Upsert(
                    "single_update",
                    "CREATE TABLE %s (k int UNIQUE, v int, note text)",
                    "INSERT INTO %s AS t (k, v, note) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE"
                            + " SET v = t.v + EXCLUDED.v, note = EXCLUDED.note || '/' || t.note WHERE t.v < 40",
                    3),
            new Upsert(
                    "pair_update",
                    "CREATE TABLE %s (a int, b text, v int NOT NULL, note text, UNIQUE (a, b))",
                    "INSERT INTO %s (a, b, v, note) VALUES (?, ?, ?, ?) ON CONFLICT (a, b) DO UPDATE"
                            + " SET v = EXCLUDED.v * 2, note = coalesce(%s.note, '') || EXCLUDED.note",
                    4));

    @Test
    void randomBatchesGiveBarePgjdbcsCountsAndRows(TestDatabase db) throws Exception {
        for (boolean autocommit : new boolean[] {true, false}) {
            for (Upsert upsert : UPSERTS) {
                String bareTable = upsert.table() + (autocommit ? "_ac" : "_tx") + "_bare";
                String flushlessTable = upsert.table() + (autocommit ? "_ac" : "_tx") + "_fl";
                Random random = new Random(upsert.table().hashCode() + (autocommit ? 1 : 2));
                List<List<Object[]>> batches = new ArrayList<>();
                for (int b = 0; b < 6; b++) {
                    List<Object[]> rows = new ArrayList<>();
                    int size = 1 + random.nextInt(b == 5 ? 60 : 12);
                    for (int r = 0; r < size; r++) {
                        Object key = random.nextInt(8) == 0 ? null : random.nextInt(10);
                        Object text = random.nextInt(6) == 0 ? null : "t" + random.nextInt(3);
                        rows.add(new Object[] {key, text, random.nextInt(30), "n" + b + "." + r});
                    }
                    batches.add(rows);
                }
                List<String> bare = run(db, db.bare(), bareTable, upsert, batches, autocommit, null);
                List<String> flushless;
                try (Connection c = DriverManager.getConnection(
                        db.flushlessUrl(ANTI_JOIN + "&flushless.maxRowsPerStatement=16"), db.credentials())) {
                    flushless = run(
                            db, c, flushlessTable, upsert, batches, autocommit, c.unwrap(FlushlessConnection.class));
                }
                assertEquals(bare, flushless, upsert.sql() + (autocommit ? " in autocommit" : " in a transaction"));
            }
        }
    }

    /** Runs the batches through {@code c} into a fresh {@code table}; returns the counts of each, then the rows. */
    private static List<String> run(
            TestDatabase db,
            Connection c,
            String table,
            Upsert upsert,
            List<List<Object[]>> batches,
            boolean autocommit,
            FlushlessConnection flushless)
            throws SQLException {
        List<String> observed = new ArrayList<>();
        try (c) {
            try (Statement s = c.createStatement()) {
                s.execute(String.format(upsert.ddl(), table));
                boolean single = upsert.parameters() == 3;
                s.execute("INSERT INTO " + table
                        + (single
                                ? " VALUES (1, 5, 'seed'), (4, 45, 'seed')"
                                : " VALUES (1, 't0', 5, 'seed'), (2, NULL, 6, 'seed'), (3, 't1', 7, NULL)"));
            }
            c.setAutoCommit(autocommit);
            PreparedStatement ps = c.prepareStatement(upsert.sql().replace("%s", table));
            for (List<Object[]> rows : batches) {
                for (Object[] row : rows) {
                    if (row[0] == null) {
                        ps.setNull(1, Types.INTEGER);
                    } else {
                        ps.setInt(1, (Integer) row[0]);
                    }
                    if (upsert.parameters() == 3) {
                        ps.setInt(2, (Integer) row[2]);
                        ps.setString(3, (String) row[3]);
                    } else {
                        ps.setString(2, (String) row[1]);
                        ps.setInt(3, (Integer) row[2]);
                        ps.setString(4, (String) row[3]);
                    }
                    ps.addBatch();
                }
                try {
                    observed.add(Arrays.toString(ps.executeBatch()));
                } catch (BatchUpdateException e) {
                    observed.add("error " + e.getSQLState() + " " + Arrays.toString(e.getUpdateCounts()));
                }
            }
            if (!autocommit) {
                try {
                    c.commit();
                } catch (SQLException e) {
                    observed.add("commit error " + e.getSQLState());
                }
            }
            if (flushless != null) {
                Map<String, Long> rewrites = flushless.report().rewrites();
                assertTrue(
                        rewrites.keySet().stream().anyMatch(k -> k.endsWith("-antijoin")),
                        flushless.report().toString());
                assertFalse(
                        rewrites.keySet().stream().anyMatch(k -> k.startsWith("upsert-") && !k.endsWith("-antijoin")),
                        "no batch ran natively: " + flushless.report());
            }
        }
        for (List<String> row : db.rows("SELECT t::text FROM " + table + " t ORDER BY 1")) {
            observed.add(row.get(0));
        }
        return observed;
    }

    @Test
    void oneStatementPerChunkAndOneFlushEach(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute(
                "CREATE TABLE chunked (id int PRIMARY KEY, v text)",
                "INSERT INTO chunked SELECT g, 'old' FROM generate_series(1, 1000, 7) g");
        try (Connection c = DriverManager.getConnection(
                db.flushlessUrl(ANTI_JOIN + "&flushless.maxRowsPerStatement=400"), db.credentials())) {
            PreparedStatement ps =
                    c.prepareStatement("INSERT INTO chunked (id, v) VALUES (?, ?) ON CONFLICT (id) DO NOTHING");
            db.resetStatementCounts();
            for (int i = 1; i <= 1000; i++) {
                ps.setInt(1, i);
                ps.setString(2, "new");
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int i = 1; i <= 1000; i++) {
                assertEquals((i - 1) % 7 == 0 ? 0 : 1, counts[i - 1], "row " + i);
            }
            assertEquals(3, db.statementCount("%flushless_e AS%"), "one statement per chunk of 400 rows");
            assertEquals(0, db.statementCount("%ON CONFLICT%"), "no native ON CONFLICT was sent");
            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            assertEquals(1000, report.rewrites().get("upsert-do-nothing-antijoin"));
            assertEquals(1000, report.estimatedFlushesBefore());
            assertEquals(3, report.estimatedFlushesAfter(), "one YugabyteDB flush per statement of 400 rows");
        }
        assertEquals(
                List.of(List.of("1000", "143")),
                db.rows("SELECT count(*), count(*) FILTER (WHERE v = 'old') FROM chunked"));
    }

    @Test
    void autoIsNativeOnPostgresqlWhichTheFlushModelChargesPerRow(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute("CREATE TABLE auto_native (id int PRIMARY KEY, v text)");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement ps =
                    c.prepareStatement("INSERT INTO auto_native (id, v) VALUES (?, ?) ON CONFLICT (id) DO NOTHING");
            db.resetStatementCounts();
            for (int i = 0; i < 500; i++) {
                ps.setInt(1, i % 250);
                ps.setString(2, "v");
                ps.addBatch();
            }
            ps.executeBatch();
            assertEquals(0, db.statementCount("%flushless_e AS%"));
            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            assertEquals(Map.of("upsert-do-nothing-unnest", 500L), report.rewrites());
            assertEquals(
                    500,
                    report.estimatedFlushesAfter(),
                    "a native ON CONFLICT flushes per row on YugabyteDB without batching");
        }
    }

    /** A batch the anti-join form cannot make exact: its table, statement, rows and the reason expected. */
    private record Inexact(String ddl, String sql, Object[][] rows, String reason, boolean fails) {}

    @Test
    void batchesTheAntiJoinCannotMakeExactRunNativelyWithTheReason(TestDatabase db) throws Exception {
        List<Inexact> cases = List.of(
                new Inexact(
                        "CREATE TABLE checked (id int PRIMARY KEY, qty int CHECK (qty >= 0)); INSERT INTO checked VALUES (1, 1)",
                        "INSERT INTO checked (id, qty) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                        new Object[][] {{1, -1}, {2, 3}},
                        "CHECK constraints",
                        true),
                new Inexact(
                        "CREATE TABLE not_null (id int PRIMARY KEY, qty int NOT NULL); INSERT INTO not_null VALUES (1, 1)",
                        "INSERT INTO not_null (id, qty) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                        new Object[][] {{1, null}, {2, 3}},
                        "NULL bound to NOT NULL column qty",
                        true),
                new Inexact(
                        "CREATE TABLE sequenced (id serial PRIMARY KEY, tag text UNIQUE, n int)",
                        "INSERT INTO sequenced (tag, n) VALUES (?, ?) ON CONFLICT (tag) DO NOTHING",
                        new Object[][] {{"a", 1}, {"a", 2}, {"b", 3}},
                        "column id draws from a sequence",
                        false),
                new Inexact(
                        "CREATE TABLE short_key (k varchar(3) PRIMARY KEY, n int); INSERT INTO short_key VALUES ('abc', 1)",
                        "INSERT INTO short_key (k, n) VALUES (?, ?) ON CONFLICT (k) DO NOTHING",
                        new Object[][] {{"abc   ", 1}, {"x", 2}},
                        "a value longer than column k",
                        false),
                new Inexact(
                        "CREATE TABLE no_index (id int, n int)",
                        "INSERT INTO no_index (id, n) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                        new Object[][] {{1, 1}, {2, 2}},
                        "no unique index matches the ON CONFLICT target",
                        true));
        for (Inexact c : cases) {
            db.execute(c.ddl().split("; "));
            try (Connection flushless = DriverManager.getConnection(db.flushlessUrl(ANTI_JOIN), db.credentials());
                    dev.flushless.jdbc.testing.FallbackLog log = new dev.flushless.jdbc.testing.FallbackLog()) {
                PreparedStatement ps = flushless.prepareStatement(c.sql());
                for (Object[] row : c.rows()) {
                    for (int p = 0; p < row.length; p++) {
                        ps.setObject(
                                p + 1,
                                row[p],
                                row[p] instanceof String || p == 0 && c.sql().contains("tag")
                                        ? Types.VARCHAR
                                        : Types.INTEGER);
                    }
                    ps.addBatch();
                }
                SQLException error = null;
                try {
                    ps.executeBatch();
                } catch (SQLException e) {
                    error = e;
                }
                Map<String, Long> fallbacks =
                        flushless.unwrap(FlushlessConnection.class).report().fallbacks();
                // the report counts the code; the text, with the reason, goes to the DEBUG log
                assertTrue(
                        fallbacks.containsKey(dev.flushless.jdbc.FallbackReason.ANTI_JOIN_NOT_APPLIED.code()),
                        c.sql() + ": " + fallbacks + (error == null ? "" : " " + error));
                assertTrue(
                        log.texts().stream()
                                .anyMatch(t -> t.startsWith(
                                                dev.flushless.jdbc.FallbackReason.ANTI_JOIN_NOT_APPLIED.code() + ": ")
                                        && t.contains(c.reason())),
                        c.sql() + ": " + log.texts());
                assertEquals(c.fails(), error != null, c.sql() + ": " + error);
            }
        }
        assertEquals(
                List.of(List.of("1", "a", "1"), List.of("3", "b", "3")),
                db.rows("SELECT * FROM sequenced ORDER BY id"),
                "native ON CONFLICT drew id 2 for the skipped row, as bare pgjdbc does");
        assertEquals(
                List.of(List.of("abc", "1"), List.of("x", "2")),
                db.rows("SELECT * FROM short_key ORDER BY k"),
                "'abc   ' is stored as 'abc' and conflicts");
    }

    @Test
    void aConcurrentInsertInAutocommitIsRetriedNativelyAsBarePgjdbcWouldSkipIt(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE race_ac_bare (k int PRIMARY KEY, v text)",
                "CREATE TABLE race_ac_fl (k int PRIMARY KEY, v text)");
        Connection[] opened = new Connection[1];
        int[] bare = race(db, "race_ac_bare", () -> opened[0] = db.bare(), true);
        opened[0].close();
        int[] flushless = race(
                db,
                "race_ac_fl",
                () -> opened[0] = DriverManager.getConnection(db.flushlessUrl(ANTI_JOIN), db.credentials()),
                true);
        FlushlessReport report = opened[0].unwrap(FlushlessConnection.class).report();
        assertTrue(
                report.fallbacks().containsKey(dev.flushless.jdbc.FallbackReason.ANTI_JOIN_RETRIED.code()),
                report.toString());
        assertTrue(report.rewrites().containsKey("upsert-do-nothing-unnest"), "the retry ran natively: " + report);
        opened[0].close();
        assertArrayEquals(new int[] {1, 0, 1}, bare);
        assertArrayEquals(bare, flushless);
        assertEquals(db.rows("SELECT * FROM race_ac_bare ORDER BY k"), db.rows("SELECT * FROM race_ac_fl ORDER BY k"));
    }

    @Test
    void aConcurrentInsertInATransactionRaisesTheNamedErrorWith23505(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE race_tx (k int PRIMARY KEY, v text)");
        Connection[] opened = new Connection[1];
        BatchUpdateException error = assertThrows(
                BatchUpdateException.class,
                () -> race(
                        db,
                        "race_tx",
                        () -> opened[0] = DriverManager.getConnection(db.flushlessUrl(ANTI_JOIN), db.credentials()),
                        false));
        try (Connection c = opened[0]) {
            assertEquals("23505", error.getSQLState());
            assertTrue(error.getMessage().contains("flushless.onConflict"), error.getMessage());
            assertTrue(error.getMessage().contains("concurrently"), error.getMessage());
            assertArrayEquals(
                    new int[] {Statement.EXECUTE_FAILED, Statement.EXECUTE_FAILED, Statement.EXECUTE_FAILED},
                    error.getUpdateCounts());
            // nothing of the batch was applied and the transaction is still usable
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM race_tx")) {
                rs.next();
                assertEquals(1, rs.getInt(1), "only the concurrent row");
            }
            c.rollback();
        }
        assertEquals(List.of(List.of("2", "theirs")), db.rows("SELECT * FROM race_tx"));
    }

    @FunctionalInterface
    private interface Opener {
        Connection open() throws SQLException;
    }

    /**
     * Another session inserts key 2 and holds its transaction open; the batch (keys 1, 2, 3, DO NOTHING) starts and,
     * once it waits for that session's lock, the other session commits. Returns the batch's counts; the caller
     * closes the connection {@code opener} opened.
     */
    private static int[] race(TestDatabase db, String table, Opener opener, boolean autocommit) throws Exception {
        ExecutorService executor = Executors.newSingleThreadExecutor();
        try (Connection other = db.bare()) {
            other.setAutoCommit(false);
            try (Statement s = other.createStatement()) {
                s.execute("INSERT INTO " + table + " VALUES (2, 'theirs')");
            }
            Connection c = opener.open();
            c.setAutoCommit(autocommit);
            Future<int[]> batch = executor.submit(() -> {
                PreparedStatement ps =
                        c.prepareStatement("INSERT INTO " + table + " (k, v) VALUES (?, ?) ON CONFLICT (k) DO NOTHING");
                for (int k = 1; k <= 3; k++) {
                    ps.setInt(1, k);
                    ps.setString(2, "mine");
                    ps.addBatch();
                }
                return ps.executeBatch();
            });
            waitForLockWait(db, batch);
            other.commit();
            try {
                int[] counts = batch.get(30, TimeUnit.SECONDS);
                if (!autocommit) {
                    c.commit();
                }
                return counts;
            } catch (java.util.concurrent.ExecutionException e) {
                if (e.getCause() instanceof BatchUpdateException b) {
                    throw b;
                }
                throw e;
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** Waits until a session of the database waits for a lock (the batch blocked on the uncommitted key). */
    private static void waitForLockWait(TestDatabase db, Future<?> batch) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < deadline && !batch.isDone()) {
            List<List<String>> waiting = db.rows("SELECT count(*) FROM pg_stat_activity WHERE datname = '" + db.name()
                    + "' AND wait_event_type = 'Lock'");
            if (!waiting.get(0).get(0).equals("0")) {
                return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError(
                "the batch never waited for the concurrent insert" + (batch.isDone() ? " (it finished)" : ""));
    }
}
