package dev.flushless.jdbc.locks;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Lock neutrality (docs/semantics.md): Flushless never waits on a lock that bare pgjdbc's own statement would not
 * wait on, and never holds one longer. Another session holds locks or runs DDL; the application's work runs on its
 * own thread while a watcher reads {@code pg_locks}. A run passes when the work finishes while the other session still
 * holds its lock, and fails at once when the work's backend is seen waiting for a lock bare pgjdbc does not wait for
 * (or, as a last resort, after a minute without either: nothing here can hang the build). No timing is asserted.
 */
@ExtendWith(PostgresExtension.class)
class LockNeutralityTest {

    /** Every setting a user might leave on, each a connection configuration of its own. */
    private static final String[] CONFIGURATIONS = {
        "flushless.mode=off",
        "flushless.mode=batch",
        "flushless.mode=transaction",
        "flushless.mode=batch&flushless.onConflict=antijoin",
        "flushless.mode=transaction&flushless.onConflict=antijoin",
        "flushless.mode=batch&flushless.groupCommit=true",
        "flushless.mode=transaction&flushless.exactSequences=true",
        // the driver's defaults: small batches and first writes need no catalog read (issue #16's reproducer)
        "defaults:flushless.mode=batch",
        "defaults:flushless.mode=transaction",
        // facts of its own on every connection: a first batch in a transaction reads them in its COMMIT's round trip
        "defaults:flushless.mode=batch&flushless.catalogCacheSeconds=0",
    };

    /** Prefix of a configuration that keeps the driver's default size rules. */
    private static final String DEFAULTS = "defaults:";

    private static final AtomicInteger IDS = new AtomicInteger(1000);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static ExecutorService pool;

    @BeforeAll
    static void schema(TestDatabase db) throws SQLException {
        pool = Executors.newCachedThreadPool();
        db.execute(
                "CREATE TABLE x (id int PRIMARY KEY, v text)",
                // the tables another session locks: each has a column default (a pg_attrdef row to deparse) and a
                // sequence, as in the reported hang
                "CREATE TABLE y (id int PRIMARY KEY, d text DEFAULT 'dflt')",
                "CREATE TABLE w (id serial PRIMARY KEY, at timestamptz DEFAULT now(), n numeric DEFAULT 0)",
                "CREATE TABLE z (id int PRIMARY KEY, v text)",
                "INSERT INTO z VALUES (1, 'one')",
                "CREATE TABLE customer (id int PRIMARY KEY, name text DEFAULT 'anon')",
                "CREATE TABLE history (installed_rank int PRIMARY KEY, script text NOT NULL,"
                        + " installed_on timestamptz NOT NULL DEFAULT now())");
    }

    @AfterAll
    static void stop() {
        pool.shutdownNow();
    }

    /** Work an application does on x (and reads of z), each on a fresh connection so that the catalog is read. */
    private enum Work {
        AUTOCOMMIT_BATCH {
            @Override
            String run(Connection c) throws SQLException {
                int id = IDS.addAndGet(10);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO x (id, v) VALUES (?, ?)")) {
                    for (int i = 0; i < 3; i++) {
                        ps.setInt(1, id + i);
                        ps.setString(2, "v" + i);
                        ps.addBatch();
                    }
                    return java.util.Arrays.toString(ps.executeBatch());
                }
            }
        },
        TRANSACTION_INSERT_COMMIT {
            @Override
            String run(Connection c) throws SQLException {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO x (id, v) VALUES (?, ?)")) {
                    ps.setInt(1, IDS.addAndGet(10));
                    ps.setString(2, "t");
                    int count = ps.executeUpdate();
                    c.commit();
                    return Integer.toString(count);
                }
            }
        },
        /**
         * A batch large enough to coalesce under the driver's defaults, then commit: on a fresh connection it runs as
         * sent and its table's catalog facts are read in the COMMIT's round trip (the first-batch rule); with the
         * facts read first, it is coalesced and leaves its guard savepoint open to the COMMIT (OpenGuards).
         */
        TRANSACTION_BATCH_COMMIT {
            @Override
            String run(Connection c) throws SQLException {
                c.setAutoCommit(false);
                int id = IDS.addAndGet(100) - 90; // 60 ids clear of the works before and after
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO x (id, v) VALUES (?, ?)")) {
                    for (int i = 0; i < 60; i++) {
                        ps.setInt(1, id + i);
                        ps.setString(2, "b" + i);
                        ps.addBatch();
                    }
                    int[] counts = ps.executeBatch();
                    c.commit();
                    return counts.length + " rows, "
                            + java.util.Arrays.stream(counts).sum() + " inserted";
                }
            }
        },
        TRANSACTION_INSERT_THEN_READ_OTHER_TABLE {
            @Override
            String run(Connection c) throws SQLException {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO x (id, v) VALUES (?, ?)");
                        Statement s = c.createStatement()) {
                    ps.setInt(1, IDS.addAndGet(10));
                    ps.setString(2, "r");
                    int count = ps.executeUpdate();
                    String read;
                    try (ResultSet rs = s.executeQuery("SELECT v FROM z WHERE id = 1")) {
                        rs.next();
                        read = rs.getString(1);
                    }
                    c.commit();
                    return count + " " + read;
                }
            }
        },
        STATEMENT_BATCH {
            @Override
            String run(Connection c) throws SQLException {
                int id = IDS.addAndGet(10);
                try (Statement s = c.createStatement()) {
                    s.addBatch("INSERT INTO x (id, v) VALUES (" + id + ", 'a')");
                    s.addBatch("INSERT INTO x (id, v) VALUES (" + (id + 1) + ", 'b')");
                    s.addBatch("UPDATE z SET v = 'one' WHERE id = 1");
                    return java.util.Arrays.toString(s.executeBatch());
                }
            }
        },
        UPSERT_BATCH {
            @Override
            String run(Connection c) throws SQLException {
                int id = IDS.addAndGet(10);
                try (PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO x (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v")) {
                    for (int i = 0; i < 3; i++) {
                        ps.setInt(1, id + i % 2);
                        ps.setString(2, "u" + i);
                        ps.addBatch();
                    }
                    return java.util.Arrays.toString(ps.executeBatch());
                }
            }
        },
        UPDATE_BATCH_IN_TRANSACTION {
            @Override
            String run(Connection c) throws SQLException {
                c.setAutoCommit(false);
                try (PreparedStatement ps = c.prepareStatement("UPDATE z SET v = ? WHERE id = ?")) {
                    for (int i = 0; i < 3; i++) {
                        ps.setString(1, "one");
                        ps.setInt(2, 1 + i);
                        ps.addBatch();
                    }
                    String counts = java.util.Arrays.toString(ps.executeBatch());
                    c.commit();
                    return counts;
                }
            }
        },
        SINGLE_AUTOCOMMIT_INSERT {
            @Override
            String run(Connection c) throws SQLException {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO x (id, v) VALUES (?, ?)")) {
                    ps.setInt(1, IDS.addAndGet(10));
                    ps.setString(2, "s");
                    return Integer.toString(ps.executeUpdate());
                }
            }
        };

        abstract String run(Connection c) throws SQLException;
    }

    /**
     * The reported hang: another session holds ACCESS EXCLUSIVE on y (which has a column default) while the
     * application writes x. Bare pgjdbc does not wait; neither may Flushless, in any configuration and for any work
     * that makes it read the catalog.
     */
    @Test
    void anExclusiveLockOnAnotherTableDelaysNoWork(TestDatabase db) throws Exception {
        assertNoWorkWaits(db, "LOCK TABLE y IN ACCESS EXCLUSIVE MODE; LOCK TABLE w IN ACCESS EXCLUSIVE MODE");
    }

    /** The same with a migration's ALTER TABLE open on unrelated tables (what Flyway keeps open while it works). */
    @Test
    void anOpenAlterTableOnAnotherTableDelaysNoWork(TestDatabase db) throws Exception {
        assertNoWorkWaits(
                db, "ALTER TABLE y ADD COLUMN extra int DEFAULT 7; ALTER TABLE w ALTER COLUMN n SET DEFAULT 1");
    }

    private void assertNoWorkWaits(TestDatabase db, String holderSql) throws Exception {
        List<String> problems = new ArrayList<>();
        for (Work work : Work.values()) {
            String bare = runWhileHeld(db, holderSql, null, work);
            for (String configuration : CONFIGURATIONS) {
                String flushless = runWhileHeld(db, holderSql, configuration, work);
                if (!bare.equals(flushless)) {
                    problems.add(
                            work + " with " + configuration + ": " + flushless + " where bare pgjdbc gave " + bare);
                }
            }
        }
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }

    /**
     * Runs {@code work} on a fresh connection (bare when {@code configuration} is null) while another session holds
     * the locks of {@code holderSql} in an open transaction; returns the work's result, or how it waited.
     */
    private String runWhileHeld(TestDatabase db, String holderSql, String configuration, Work work) throws Exception {
        try (Connection holder = db.bare()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute(holderSql);
            }
            try {
                Watched result = watch(db, configuration, work::run);
                return result.waitedOn == null ? result.value : "waited for " + result.waitedOn;
            } finally {
                holder.rollback();
            }
        }
    }

    /**
     * DDL in progress on the written table itself: bare pgjdbc's INSERT waits for it, so Flushless may wait too, but
     * only for that table, and its result after the DDL commits is bare pgjdbc's (the new column's default is filled).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "bare",
                "flushless.mode=off",
                "flushless.mode=batch",
                "flushless.mode=transaction",
                "flushless.mode=batch&flushless.groupCommit=true"
            })
    void ddlInProgressOnTheWrittenTableIsWaitedForAsBareDoes(String configuration, TestDatabase db) throws Exception {
        db.execute("DROP TABLE IF EXISTS target", "CREATE TABLE target (id int PRIMARY KEY, v text)");
        String settings = configuration.equals("bare") ? null : configuration;
        try (Connection holder = db.bare()) {
            holder.setAutoCommit(false);
            try (Statement s = holder.createStatement()) {
                s.execute("ALTER TABLE target ADD COLUMN note text DEFAULT 'n'");
            }
            Future<String> work = pool.submit(() -> {
                try (Connection c = connect(db, settings, "target-writer")) {
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO target (id, v) VALUES (?, ?)")) {
                        for (int i = 1; i <= 3; i++) {
                            ps.setInt(1, i);
                            ps.setString(2, "v" + i);
                            ps.addBatch();
                        }
                        return java.util.Arrays.toString(ps.executeBatch());
                    }
                }
            });
            String waitedOn = waitUntilWaiting(db, "target-writer", work);
            assertEquals("relation target", waitedOn, "the INSERT waits only for the table under DDL");
            holder.commit();
            assertEquals("[1, 1, 1]", work.get(60, TimeUnit.SECONDS));
        }
        assertEquals(
                List.of(List.of("1", "v1", "n"), List.of("2", "v2", "n"), List.of("3", "v3", "n")),
                db.rows("SELECT id, v, note FROM target ORDER BY id"));
    }

    /**
     * Flyway's pattern: a migration's ALTER TABLE stays open on one connection while the schema-history row is written
     * on a second connection in its own transaction. With flushless.mode=transaction the history INSERT's catalog
     * lookup used to wait for the migration's lock, and the migration waited for the history: a deadlock forever.
     */
    @Test
    void aMigrationAndItsHistoryRowOnTwoConnectionsDoNotDeadlock(TestDatabase db) throws Exception {
        try (Connection migration = connect(db, "flushless.mode=transaction", "migration")) {
            migration.setAutoCommit(false);
            try (Statement s = migration.createStatement()) {
                s.execute("ALTER TABLE customer ADD COLUMN email text DEFAULT 'none'");
            }
            Watched history = watch(db, "flushless.mode=transaction", c -> {
                c.setAutoCommit(false);
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO history (installed_rank, script) VALUES (?, ?)")) {
                    ps.setInt(1, 1);
                    ps.setString(2, "V1__customer_email.sql");
                    int count = ps.executeUpdate();
                    c.commit();
                    return Integer.toString(count);
                }
            });
            assertEquals("1", history.value, "history row written while the migration is open: " + history.waitedOn);
            try (Statement s = migration.createStatement()) {
                s.executeUpdate("UPDATE customer SET email = 'x'");
            }
            migration.commit();
        }
        assertEquals(List.of(List.of("V1__customer_email.sql")), db.rows("SELECT script FROM history"));
        assertEquals(
                List.of(List.of("email")),
                db.rows("SELECT column_name FROM information_schema.columns"
                        + " WHERE table_name = 'customer' AND column_name = 'email'"));
    }

    /**
     * Never holds a lock longer: inside an open transaction, after work whose rewriting reads the catalog, the locks the
     * application's backend holds are a subset of those bare pgjdbc's backend holds after the same work (the catalog
     * lookups run between a savepoint and its rollback, which releases the locks they took).
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "flushless.mode=batch",
                "flushless.mode=transaction",
                "flushless.mode=batch&flushless.onConflict=antijoin"
            })
    void insideATransactionNoLockIsHeldThatBareDoesNotHold(String configuration, TestDatabase db) throws Exception {
        db.execute("CREATE TABLE IF NOT EXISTS held (id int PRIMARY KEY, v text, at timestamptz DEFAULT now())");
        TreeSet<String> bare = locksAfterWork(db, null);
        TreeSet<String> flushless = locksAfterWork(db, configuration);
        TreeSet<String> extra = new TreeSet<>(flushless);
        extra.removeAll(bare);
        assertTrue(extra.isEmpty(), configuration + " holds " + extra + " beyond bare pgjdbc's " + bare);
        assertFalse(bare.isEmpty(), "bare pgjdbc holds the written tables' locks: the comparison means something");
    }

    /** The relation locks the backend holds, in an open transaction, after a batch, an upsert and a read. */
    private TreeSet<String> locksAfterWork(TestDatabase db, String configuration) throws Exception {
        String application = "held-" + NAMES.incrementAndGet();
        try (Connection c = connect(db, configuration, application)) {
            c.setAutoCommit(false);
            int id = IDS.addAndGet(10);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO held (id, v) VALUES (?, ?)");
                    PreparedStatement upsert = c.prepareStatement(
                            "INSERT INTO held (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v");
                    Statement s = c.createStatement()) {
                s.execute("SELECT 1"); // the transaction is open on the server before the work, as in most applications
                for (int i = 0; i < 3; i++) {
                    insert.setInt(1, id + i);
                    insert.setString(2, "i");
                    insert.addBatch();
                }
                assertArrayEquals(new int[] {1, 1, 1}, insert.executeBatch());
                for (int i = 0; i < 2; i++) {
                    upsert.setInt(1, id + 5 + i);
                    upsert.setString(2, "u");
                    upsert.addBatch();
                }
                assertArrayEquals(new int[] {1, 1}, upsert.executeBatch());
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM held WHERE id >= " + id)) {
                    rs.next();
                    assertEquals(5, rs.getInt(1));
                }
                TreeSet<String> locks = new TreeSet<>();
                try (Connection observer = db.bare();
                        PreparedStatement ps =
                                observer.prepareStatement("SELECT l.relation::regclass::text || ' ' || l.mode"
                                        + " FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                                        + " WHERE a.application_name = ? AND l.locktype = 'relation' AND l.granted")) {
                    ps.setString(1, application);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            locks.add(rs.getString(1));
                        }
                    }
                }
                c.rollback();
                return locks;
            }
        }
    }

    // ---- watching a backend ----

    /** A JDBC action on a connection. */
    @FunctionalInterface
    private interface Action {
        String run(Connection c) throws SQLException;
    }

    /** What a watched action did: its result, or the lock it was seen waiting for. */
    private record Watched(String value, String waitedOn) {}

    /**
     * Runs {@code action} on a fresh connection on another thread and watches its backend: returns the result when it
     * finishes, or, as soon as the backend waits for a lock, what it waits for (then the action is left to finish when
     * the lock is released by the caller). Fails after a minute of neither, so that a hang cannot hang the build.
     */
    private Watched watch(TestDatabase db, String configuration, Action action) throws Exception {
        String application = "watched-" + NAMES.incrementAndGet();
        Future<String> result = pool.submit(() -> {
            try (Connection c = connect(db, configuration, application)) {
                return action.run(c);
            }
        });
        String waitedOn = waitUntilWaiting(db, application, result);
        return waitedOn == null ? new Watched(result.get(), null) : new Watched(null, waitedOn);
    }

    /** Null when {@code work} finished without waiting for a lock; else the first lock it waits for. */
    private static String waitUntilWaiting(TestDatabase db, String application, Future<?> work) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        try (Connection observer = db.bare();
                PreparedStatement ps =
                        observer.prepareStatement("SELECT l.locktype || ' ' || coalesce(l.relation::regclass::text,"
                                + " l.transactionid::text, '') FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid"
                                + " WHERE a.application_name = ? AND NOT l.granted")) {
            ps.setString(1, application);
            while (System.nanoTime() < deadline) {
                if (work.isDone()) {
                    work.get(); // an exception of the work fails the test with its cause
                    return null;
                }
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next()) {
                        return rs.getString(1);
                    }
                }
                Thread.sleep(5);
            }
        }
        fail("the work neither finished nor waited for a lock within a minute");
        return null;
    }

    private static Connection connect(TestDatabase db, String configuration, String application) throws SQLException {
        Properties properties = db.credentials();
        properties.setProperty("ApplicationName", application);
        if (configuration == null) {
            return DriverManager.getConnection(db.pgjdbcUrl(), properties);
        }
        // "defaults:..." runs with the driver's default size rules (the other configurations read the catalog at once)
        return DriverManager.getConnection(
                configuration.startsWith(DEFAULTS)
                        ? TestDatabase.withParameters(
                                db.flushlessDefaultsUrl(), configuration.substring(DEFAULTS.length()))
                        : db.flushlessUrl(configuration),
                properties);
    }
}
