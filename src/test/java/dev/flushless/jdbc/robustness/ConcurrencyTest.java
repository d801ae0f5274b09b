package dev.flushless.jdbc.robustness;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDataSource;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import javax.sql.DataSource;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * 16 threads share a HikariCP pool of 8 connections and run a fixed number of iterations of mixed work:
 * batch inserts, transactions of (in mode=transaction: buffered) inserts and commits, versioned update
 * batches, delete batches, upserts, reads, rollbacks, abandoned transactions (the pool rolls them back) and
 * contended counter updates. Run bare (pgjdbc under HikariCP), and through {@link FlushlessDataSource} in
 * mode=batch and mode=transaction, with the pool both in front of Flushless (the pool keeps Flushless
 * connections, whose wrapper state then outlives each borrower) and behind it (Flushless wraps each
 * pooled pgjdbc connection anew).
 *
 * <p>What it proves: every thread keeps its own model of what it committed (rows, versions, events); at the
 * end the tables hold exactly the union of the models: no lost rows (a committed write missing), no
 * duplicated rows (the events table has no unique key, so a write sent twice would show), nothing of a
 * rolled-back or abandoned transaction. Every update count is exact (a stale version gives 0). Reads inside
 * and outside transactions see exactly the reader's own committed (and, inside its transaction, pending)
 * writes. Wrapper state is never shared: while a thread holds a connection, the connection's report moves by
 * exactly what that thread did (the same counters moved by another connection's work would show). Deadlocks:
 * all work except the counters uses disjoint key ranges per thread, where bare pgjdbc cannot deadlock, and
 * any error there fails the test; the counter updates (sorted keys, shared by all threads) retry a
 * deadlock (40P01) the same way in every variant, and the counters must match what the threads committed.
 * The races are run by coalesced statements: both Flushless layerings pin {@link TestDatabase#REWRITE_EVERYTHING},
 * and where the server tracks statements, it must have executed fewer writes of {@code items} than the
 * application issued (bare pgjdbc: exactly as many), besides the reports counting coalesced rows.
 * No times are asserted; the work is bounded by iterations.
 */
@ExtendWith(PostgresExtension.class)
class ConcurrencyTest {

    private static final int THREADS = 16;
    private static final int POOL = 8;
    private static final int ITERATIONS = 27;
    private static final int COUNTERS = 4;

    @ParameterizedTest(name = "{0}, pool {1}")
    @CsvSource({
        "bare, in front of pgjdbc",
        "batch, in front of Flushless",
        "batch, behind Flushless",
        "transaction, in front of Flushless",
        "transaction, behind Flushless"
    })
    void sixteenThreadsOnAPoolOfEight(String mode, String layering, TestDatabase db) throws Exception {
        String schema = ("cc_" + mode + "_" + layering.split(" ")[0]).toLowerCase(Locale.ROOT);
        db.execute(
                "DROP SCHEMA IF EXISTS " + schema + " CASCADE",
                "CREATE SCHEMA " + schema,
                "CREATE TABLE " + schema + ".items (id bigint PRIMARY KEY, owner int NOT NULL, version int NOT NULL,"
                        + " qty int NOT NULL)",
                "CREATE TABLE " + schema + ".events (seq bigserial PRIMARY KEY, owner int NOT NULL, k bigint NOT NULL,"
                        + " payload text)",
                "CREATE TABLE " + schema + ".counters (id int PRIMARY KEY, n bigint NOT NULL)",
                "INSERT INTO " + schema + ".counters SELECT g, 0 FROM generate_series(0, " + (COUNTERS - 1) + ") g");
        AtomicLongArray committedIncrements = new AtomicLongArray(COUNTERS);
        AtomicLong deadlocks = new AtomicLong();
        AtomicLong itemWrites = new AtomicLong();
        List<Worker> workers = new ArrayList<>();
        boolean serverCounts = db.hasStatementStats();
        if (serverCounts) {
            db.resetStatementCounts();
        }
        try (Pool pool = Pool.open(db, mode, layering, schema)) {
            ExecutorService executor = Executors.newFixedThreadPool(THREADS);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < THREADS; t++) {
                    Worker worker = new Worker(t, pool.dataSource, mode, committedIncrements, deadlocks, itemWrites);
                    workers.add(worker);
                    futures.add(executor.submit(() -> {
                        worker.run();
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get(10, TimeUnit.MINUTES); // a guard against a hang, not a time assertion
                }
            } finally {
                executor.shutdownNow();
            }
        }

        // the tables hold exactly what the threads committed
        Map<Long, String> expectedItems = new TreeMap<>();
        Map<String, Long> expectedEvents = new TreeMap<>();
        for (Worker w : workers) {
            w.items.forEach((id, vq) -> expectedItems.put(id, w.owner + "/" + vq[0] + "/" + vq[1]));
            for (long k : w.events) {
                expectedEvents.merge(w.owner + ":" + k, 1L, Long::sum);
            }
        }
        Map<Long, String> actualItems = new TreeMap<>();
        for (List<String> row : db.rows("SELECT id, owner, version, qty FROM " + schema + ".items")) {
            actualItems.put(Long.parseLong(row.get(0)), row.get(1) + "/" + row.get(2) + "/" + row.get(3));
        }
        assertEquals(
                expectedItems, actualItems, mode + ", " + layering + ": items differ from what the threads committed");
        Map<String, Long> actualEvents = new TreeMap<>();
        for (List<String> row : db.rows("SELECT owner, k, count(*) FROM " + schema + ".events GROUP BY owner, k")) {
            actualEvents.put(row.get(0) + ":" + row.get(1), Long.parseLong(row.get(2)));
        }
        assertEquals(
                expectedEvents,
                actualEvents,
                mode + ", " + layering
                        + ": events (owner:key -> copies) differ from what the threads committed (lost or duplicated rows)");
        long[] counters = new long[COUNTERS];
        for (List<String> row : db.rows("SELECT id, n FROM " + schema + ".counters ORDER BY id")) {
            counters[Integer.parseInt(row.get(0))] = Long.parseLong(row.get(1));
        }
        long[] committed = new long[COUNTERS];
        for (int i = 0; i < COUNTERS; i++) {
            committed[i] = committedIncrements.get(i);
        }
        assertArrayEquals(
                committed, counters, mode + ", " + layering + ": counters differ from the committed increments");
        // the races above were run by coalesced statements: the server executed fewer writes of items than the
        // application issued (counted by the server, not by the driver); bare pgjdbc executes each one
        long rewrites = workers.stream().mapToLong(w -> w.rewrites).sum();
        String executed = "";
        if (serverCounts) {
            // a CTE chain writing items several times counts several times here: the comparison stays conservative
            long server = db.statementCount("%into items%")
                    + db.statementCount("%update items%")
                    + db.statementCount("%delete from items%");
            executed = ", item writes issued " + itemWrites.get() + ", executed by the server " + server;
            if (mode.equals("bare")) {
                assertEquals(itemWrites.get(), server, mode + ", " + layering + ": bare pgjdbc executes each write");
            } else {
                assertTrue(
                        server < itemWrites.get() / 2,
                        mode + ", " + layering + ": the writes of items were not coalesced" + executed);
            }
        }
        if (!mode.equals("bare")) {
            assertTrue(rewrites > 0, mode + ", " + layering + ": no batch was coalesced (report)");
        }
        System.out.println("[concurrency] " + mode + ", pool " + layering + ": " + expectedItems.size() + " items, "
                + expectedEvents.size() + " events, deadlocks retried on the shared counters: " + deadlocks.get()
                + ", rows coalesced (report) " + rewrites + executed);
    }

    /** The pool of one variant, and the data source the threads use. */
    private record Pool(DataSource dataSource, HikariDataSource pool) implements AutoCloseable {

        static Pool open(TestDatabase db, String mode, String layering, String schema) throws SQLException {
            String user = db.credentials().getProperty("user");
            HikariConfig config = new HikariConfig();
            config.setMaximumPoolSize(POOL);
            config.setPoolName("concurrency-" + mode + "-" + schema);
            Properties pgjdbc = db.credentials();
            pgjdbc.setProperty("currentSchema", schema);
            pgjdbc.setProperty("socketTimeout", "120"); // a hung read fails instead of blocking forever
            if (mode.equals("bare")) {
                config.setJdbcUrl(db.pgjdbcUrl());
                config.setDataSourceProperties(pgjdbc);
                HikariDataSource pool = new HikariDataSource(config);
                return new Pool(pool, pool);
            }
            if (layering.contains("in front")) {
                // HikariCP keeps Flushless connections (FlushlessDataSource configured by URL)
                FlushlessDataSource flushless = new FlushlessDataSource();
                flushless.setUrl(
                        db.flushlessUrl("flushless.mode=" + mode + "&currentSchema=" + schema + "&socketTimeout=120"));
                flushless.setUser(user);
                config.setDataSource(flushless);
                HikariDataSource pool = new HikariDataSource(config);
                return new Pool(pool, pool);
            }
            // Flushless wraps each connection HikariCP lends (FlushlessDataSource wrapping a DataSource)
            config.setJdbcUrl(db.pgjdbcUrl());
            config.setDataSourceProperties(pgjdbc);
            HikariDataSource pool = new HikariDataSource(config);
            Properties settings = new Properties();
            settings.setProperty("flushless.mode", mode);
            for (String pin :
                    TestDatabase.REWRITE_EVERYTHING.split("&")) { // as the URL variant: small batches coalesce
                String[] kv = pin.split("=", 2);
                settings.setProperty(kv[0], kv[1]);
            }
            return new Pool(new FlushlessDataSource(pool, settings), pool);
        }

        @Override
        public void close() {
            pool.close();
        }
    }

    /** One thread's work and its model of what it committed. */
    private static final class Worker {
        final int owner;
        final DataSource dataSource;
        final String mode;
        final boolean flushless;
        final AtomicLongArray committedIncrements;
        final AtomicLong deadlocks;
        /** Rows the application's statements wrote to items (every execution, committed or not). */
        final AtomicLong itemWrites;
        /** Rows the reports of the connections counted as coalesced while this thread held them. */
        long rewrites;
        /** Committed items: id -> {version, qty}. */
        final Map<Long, int[]> items = new TreeMap<>();
        /** Keys of committed events (each exactly once). */
        final List<Long> events = new ArrayList<>();

        private long nextId;
        private final java.util.Random random;

        Worker(
                int owner,
                DataSource dataSource,
                String mode,
                AtomicLongArray committedIncrements,
                AtomicLong deadlocks,
                AtomicLong itemWrites) {
            this.owner = owner;
            this.dataSource = dataSource;
            this.mode = mode;
            this.flushless = !mode.equals("bare");
            this.committedIncrements = committedIncrements;
            this.deadlocks = deadlocks;
            this.itemWrites = itemWrites;
            this.nextId = owner * 1_000_000L;
            this.random = new java.util.Random(owner);
        }

        void run() throws Exception {
            for (int i = 0; i < ITERATIONS; i++) {
                switch ((i + owner) % 9) {
                    case 0 -> batchInsertItems();
                    case 1 -> transactionOfInserts();
                    case 2 -> versionedUpdates(i % 2 == 0);
                    case 3 -> deletes();
                    case 4 -> upserts();
                    case 5 -> reads();
                    case 6 -> rolledBack();
                    case 7 -> abandoned();
                    default -> sharedCounters();
                }
            }
            reads();
        }

        /** Borrows a connection, checks it is in the variant's mode, and gives it back. */
        private Connection borrow() throws SQLException {
            Connection c = dataSource.getConnection();
            if (flushless) {
                assertEquals(
                        FlushlessConfig.Mode.valueOf(mode.toUpperCase(Locale.ROOT)),
                        c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            }
            assertTrue(c.getAutoCommit(), "a borrowed connection starts in autocommit");
            return c;
        }

        private FlushlessReport report(Connection c) throws SQLException {
            return flushless ? c.unwrap(FlushlessConnection.class).report() : null;
        }

        /** Adds the rows the connection's report counts as coalesced since {@code before}. */
        private void noteRewrites(FlushlessReport before, Connection c) throws SQLException {
            if (flushless) {
                rewrites += report(c).rewrites().values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        - before.rewrites().values().stream()
                                .mapToLong(Long::longValue)
                                .sum();
            }
        }

        /** The connection's report moved by exactly {@code issued} statements while this thread held it. */
        private void assertIssued(FlushlessReport before, Connection c, long issued, String what) throws SQLException {
            if (flushless) {
                FlushlessReport after = report(c);
                assertEquals(
                        issued,
                        after.statementsIssued() - before.statementsIssued(),
                        what
                                + ": statements counted on this connection while thread " + owner + " held it (before "
                                + before
                                + ", after " + after + ")");
            }
        }

        private void batchInsertItems() throws SQLException {
            try (Connection c = borrow();
                    PreparedStatement ps =
                            c.prepareStatement("INSERT INTO items (id, owner, version, qty) VALUES (?, ?, ?, ?)")) {
                FlushlessReport before = report(c);
                List<Long> ids = new ArrayList<>();
                for (int r = 0; r < 20; r++) {
                    long id = nextId++;
                    ids.add(id);
                    ps.setLong(1, id);
                    ps.setInt(2, owner);
                    ps.setInt(3, 0);
                    ps.setInt(4, r);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                itemWrites.addAndGet(20);
                assertArrayEquals(ones(20), counts);
                assertIssued(before, c, 20, "a 20-row batch");
                noteRewrites(before, c);
                for (int r = 0; r < ids.size(); r++) {
                    items.put(ids.get(r), new int[] {0, r});
                }
            }
        }

        private void transactionOfInserts() throws SQLException {
            try (Connection c = borrow()) {
                FlushlessReport before = report(c);
                c.setAutoCommit(false);
                List<Long> newEvents = new ArrayList<>();
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO events (owner, k, payload) VALUES (?, ?, ?)")) {
                    for (int r = 0; r < 10; r++) {
                        long k = nextId++;
                        ps.setInt(1, owner);
                        ps.setLong(2, k);
                        ps.setString(3, "event " + k);
                        assertEquals(1, ps.executeUpdate());
                        newEvents.add(k);
                    }
                }
                Map<Long, int[]> newItems = new TreeMap<>();
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO items (id, owner, version, qty) VALUES (?, ?, ?, ?)")) {
                    for (int r = 0; r < 5; r++) {
                        long id = nextId++;
                        ps.setLong(1, id);
                        ps.setInt(2, owner);
                        ps.setInt(3, 0);
                        ps.setInt(4, 100 + r);
                        ps.addBatch();
                        newItems.put(id, new int[] {0, 100 + r});
                    }
                    itemWrites.addAndGet(5);
                    assertArrayEquals(ones(5), ps.executeBatch());
                }
                try (Statement st = c.createStatement()) {
                    long k1 = nextId++;
                    long k2 = nextId++;
                    st.addBatch(
                            "INSERT INTO events (owner, k, payload) VALUES (" + owner + ", " + k1 + ", 'text batch')");
                    st.addBatch(
                            "INSERT INTO events (owner, k, payload) VALUES (" + owner + ", " + k2 + ", 'text batch')");
                    assertArrayEquals(ones(2), st.executeBatch());
                    newEvents.add(k1);
                    newEvents.add(k2);
                }
                c.commit();
                c.setAutoCommit(true);
                noteRewrites(before, c);
                events.addAll(newEvents);
                items.putAll(newItems);
            }
        }

        private void versionedUpdates(boolean inTransaction) throws SQLException {
            List<Long> ids = someItems(10);
            if (ids.isEmpty()) {
                return;
            }
            try (Connection c = borrow();
                    PreparedStatement ps =
                            c.prepareStatement("UPDATE items SET qty = ?, version = ? WHERE id = ? AND version = ?")) {
                FlushlessReport before = report(c);
                c.setAutoCommit(!inTransaction);
                int[] expected = new int[ids.size() + 1];
                for (int r = 0; r < ids.size(); r++) {
                    int[] vq = items.get(ids.get(r));
                    ps.setInt(1, vq[1] + 1);
                    ps.setInt(2, vq[0] + 1);
                    ps.setLong(3, ids.get(r));
                    ps.setInt(4, vq[0]);
                    ps.addBatch();
                    expected[r] = 1;
                }
                int[] stale = items.get(ids.get(0));
                ps.setInt(1, -1);
                ps.setInt(2, stale[0] + 7);
                ps.setLong(3, ids.get(0));
                ps.setInt(4, stale[0]); // the version the first row had: stale once that row is updated
                ps.addBatch();
                expected[ids.size()] = 0;
                itemWrites.addAndGet(expected.length);
                assertArrayEquals(expected, ps.executeBatch(), "versioned update counts (the last row is stale)");
                if (inTransaction) {
                    c.commit();
                    c.setAutoCommit(true);
                }
                noteRewrites(before, c);
                for (long id : ids) {
                    int[] vq = items.get(id);
                    items.put(id, new int[] {vq[0] + 1, vq[1] + 1});
                }
            }
        }

        private void deletes() throws SQLException {
            List<Long> ids = someItems(5);
            try (Connection c = borrow();
                    PreparedStatement ps = c.prepareStatement("DELETE FROM items WHERE id = ? AND owner = ?")) {
                FlushlessReport before = report(c);
                for (long id : ids) {
                    ps.setLong(1, id);
                    ps.setInt(2, owner);
                    ps.addBatch();
                }
                ps.setLong(1, nextId++); // never inserted
                ps.setInt(2, owner);
                ps.addBatch();
                int[] expected = ones(ids.size() + 1);
                expected[ids.size()] = 0;
                itemWrites.addAndGet(expected.length);
                assertArrayEquals(expected, ps.executeBatch(), "delete counts (the last key does not exist)");
                noteRewrites(before, c);
                ids.forEach(items::remove);
            }
        }

        private void upserts() throws SQLException {
            List<Long> existing = someItems(3);
            try (Connection c = borrow();
                    PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO items (id, owner, version, qty) VALUES (?, ?, ?, ?)"
                                    + " ON CONFLICT (id) DO UPDATE SET qty = excluded.qty, version = items.version + 1")) {
                FlushlessReport before = report(c);
                Map<Long, int[]> after = new TreeMap<>();
                List<Long> keys = new ArrayList<>(existing);
                for (int r = 0; r < 3; r++) {
                    keys.add(nextId++);
                }
                for (long id : keys) {
                    int qty = 1000 + (int) (id % 1000);
                    ps.setLong(1, id);
                    ps.setInt(2, owner);
                    ps.setInt(3, 0);
                    ps.setInt(4, qty);
                    ps.addBatch();
                    int[] old = items.get(id);
                    after.put(id, new int[] {old == null ? 0 : old[0] + 1, qty});
                }
                itemWrites.addAndGet(keys.size());
                assertArrayEquals(ones(keys.size()), ps.executeBatch(), "upsert counts");
                noteRewrites(before, c);
                items.putAll(after);
            }
        }

        private void reads() throws SQLException {
            try (Connection c = borrow()) {
                FlushlessReport before = report(c);
                assertEquals(itemsAsText(items), readItems(c), "thread " + owner + " reads its committed items");
                assertEquals(sortedEvents(events), readEvents(c), "thread " + owner + " reads its committed events");
                assertIssued(before, c, 2, "two queries");
            }
        }

        /** Inserts, updates, deletes, reads its own pending writes, then rolls back: nothing of it may remain. */
        private void rolledBack() throws SQLException {
            List<Long> ids = someItems(2);
            try (Connection c = borrow()) {
                c.setAutoCommit(false);
                List<Long> pendingEvents = new ArrayList<>(events);
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO events (owner, k, payload) VALUES (?, ?, ?)")) {
                    for (int r = 0; r < 4; r++) {
                        long k = nextId++;
                        ps.setInt(1, owner);
                        ps.setLong(2, k);
                        ps.setString(3, "rolled back");
                        assertEquals(1, ps.executeUpdate());
                        pendingEvents.add(k);
                    }
                }
                Map<Long, int[]> pendingItems = new TreeMap<>(items);
                try (PreparedStatement ps = c.prepareStatement("UPDATE items SET qty = ? WHERE id = ?")) {
                    for (long id : ids) {
                        ps.setInt(1, -5);
                        ps.setLong(2, id);
                        ps.addBatch();
                        pendingItems.put(id, new int[] {pendingItems.get(id)[0], -5});
                    }
                    if (!ids.isEmpty()) {
                        itemWrites.addAndGet(ids.size());
                        assertArrayEquals(ones(ids.size()), ps.executeBatch());
                    }
                }
                assertEquals(sortedEvents(pendingEvents), readEvents(c), "a transaction reads its own pending inserts");
                assertEquals(itemsAsText(pendingItems), readItems(c), "a transaction reads its own pending updates");
                c.rollback();
                c.setAutoCommit(true);
            }
        }

        /** Inserts in a transaction and gives the connection back without commit or rollback: the pool rolls back. */
        private void abandoned() throws SQLException {
            try (Connection c = borrow()) {
                c.setAutoCommit(false);
                try (PreparedStatement ps =
                        c.prepareStatement("INSERT INTO events (owner, k, payload) VALUES (?, ?, ?)")) {
                    for (int r = 0; r < 3; r++) {
                        ps.setInt(1, owner);
                        ps.setLong(2, nextId++);
                        ps.setString(3, "abandoned");
                        assertEquals(1, ps.executeUpdate());
                    }
                }
            } // closed with the transaction open
        }

        /** Increments some shared counters (sorted keys) in a transaction; a deadlock (40P01) retries it. */
        private void sharedCounters() throws SQLException {
            int first = random.nextInt(COUNTERS);
            int last = first + random.nextInt(COUNTERS - first);
            for (int attempt = 0; ; attempt++) {
                try (Connection c = borrow()) {
                    c.setAutoCommit(false);
                    long k = nextId++;
                    try (PreparedStatement ev =
                                    c.prepareStatement("INSERT INTO events (owner, k, payload) VALUES (?, ?, ?)");
                            PreparedStatement ps = c.prepareStatement("UPDATE counters SET n = n + ? WHERE id = ?")) {
                        ev.setInt(1, owner);
                        ev.setLong(2, k);
                        ev.setString(3, "counter");
                        assertEquals(1, ev.executeUpdate());
                        for (int id = first; id <= last; id++) {
                            ps.setLong(1, owner + 1);
                            ps.setInt(2, id);
                            ps.addBatch();
                        }
                        assertArrayEquals(ones(last - first + 1), ps.executeBatch());
                        c.commit();
                    } catch (SQLException e) {
                        if (!"40P01".equals(e.getSQLState())
                                && !(e.getNextException() != null
                                        && "40P01".equals(e.getNextException().getSQLState()))) {
                            throw e;
                        }
                        deadlocks.incrementAndGet();
                        c.rollback();
                        c.setAutoCommit(true);
                        assertTrue(attempt < 50, "thread " + owner + " retried a deadlock 50 times");
                        continue;
                    }
                    c.setAutoCommit(true);
                    events.add(k);
                    for (int id = first; id <= last; id++) {
                        committedIncrements.addAndGet(id, owner + 1);
                    }
                    return;
                }
            }
        }

        private List<Long> someItems(int n) {
            List<Long> ids = new ArrayList<>(items.keySet());
            java.util.Collections.shuffle(ids, random);
            return new ArrayList<>(ids.subList(0, Math.min(n, ids.size())));
        }

        private String readItems(Connection c) throws SQLException {
            try (PreparedStatement q =
                    c.prepareStatement("SELECT id, version, qty FROM items WHERE owner = ? ORDER BY id")) {
                q.setInt(1, owner);
                StringBuilder out = new StringBuilder();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        out.append(rs.getLong(1))
                                .append('/')
                                .append(rs.getInt(2))
                                .append('/')
                                .append(rs.getInt(3))
                                .append(' ');
                    }
                }
                return out.toString();
            }
        }

        private String readEvents(Connection c) throws SQLException {
            try (PreparedStatement q = c.prepareStatement("SELECT k FROM events WHERE owner = ? ORDER BY k")) {
                q.setInt(1, owner);
                StringBuilder out = new StringBuilder();
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        out.append(rs.getLong(1)).append(' ');
                    }
                }
                return out.toString();
            }
        }

        private static String itemsAsText(Map<Long, int[]> items) {
            StringBuilder out = new StringBuilder();
            new TreeMap<>(items)
                    .forEach((id, vq) -> out.append(id)
                            .append('/')
                            .append(vq[0])
                            .append('/')
                            .append(vq[1])
                            .append(' '));
            return out.toString();
        }

        private static String sortedEvents(List<Long> events) {
            StringBuilder out = new StringBuilder();
            events.stream().sorted().forEach(k -> out.append(k).append(' '));
            return out.toString();
        }

        private static int[] ones(int n) {
            int[] ones = new int[n];
            Arrays.fill(ones, 1);
            return ones;
        }
    }
}
