package dev.flushless.jdbc.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.postgresql.util.PSQLException;

/**
 * Errors under contention (issue #26): many threads run conflicting transfers between a few accounts, locking them
 * in random order (deadlocks) under every isolation level (serialization failures under REPEATABLE READ and
 * SERIALIZABLE), bare and through Flushless in every mode. Some transfers lock both rows with {@code SELECT ... FOR
 * UPDATE} and then update them (buffered in {@code mode=transaction}: the rows are locked), others update both rows in
 * one JDBC batch (coalesced in {@code mode=batch}), every one records its legs in a history table (a batch) and reads
 * a total (a read of the written tables). Each failed transfer is rolled back, as an application does.
 *
 * <p>What must hold: every error raised is a serialization failure or a deadlock (40001, 40P01) and comes in pgjdbc's
 * own class for the call ({@code BatchUpdateException} for {@code executeBatch()}, {@code PSQLException} otherwise);
 * the driver never re-runs work as sent after one (no {@code coalesced-failed} or {@code buffer-failed} rows in its
 * report) and never reads a table's catalog facts again (no catalog query after the warm-up, counted by
 * pg_stat_statements); and the final state passes the workload's invariants: money is neither created nor lost,
 * every account's balance is its opening balance plus its history, and the history has two legs per committed
 * transfer. No times are asserted; the work is bounded by iterations.
 */
@ExtendWith(PostgresExtension.class)
class ContentionTest {

    private static final int ACCOUNTS = 6;
    private static final int THREADS = 8;
    private static final int TRANSFERS_PER_THREAD = 30;
    private static final long OPENING = 1_000;

    private static final Set<String> CONTENTION = Set.of("40001", "40P01");

    private void schema(TestDatabase db) throws SQLException {
        try {
            // deadlocks are detected after deadlock_timeout (1 s by default): shorter keeps the test short
            db.execute("ALTER DATABASE " + db.name() + " SET deadlock_timeout = '50ms'");
        } catch (SQLException e) {
            System.out.println("[contention] deadlock_timeout stays the server's: " + e.getMessage());
        }
        db.execute(
                "DROP TABLE IF EXISTS transfer_leg, account",
                "CREATE TABLE account (id int PRIMARY KEY, balance bigint NOT NULL, touched int NOT NULL DEFAULT 0)",
                "CREATE TABLE transfer_leg (transfer bigint NOT NULL, account int NOT NULL REFERENCES account (id),"
                        + " amount bigint NOT NULL)",
                "INSERT INTO account (id, balance) SELECT g, " + OPENING + " FROM generate_series(1, " + ACCOUNTS
                        + ") g");
    }

    /** One transfer of {@code amount} from {@code from} to {@code to}; {@code locking} picks the shape. */
    private static void transfer(Connection c, long transfer, int from, int to, long amount, boolean locking)
            throws SQLException {
        if (locking) {
            for (int id : new int[] {from, to}) {
                try (PreparedStatement ps = c.prepareStatement("SELECT balance FROM account WHERE id = ? FOR UPDATE")) {
                    ps.setInt(1, id);
                    try (ResultSet rs = ps.executeQuery()) {
                        if (!rs.next()) {
                            throw new AssertionError("account " + id + " missing");
                        }
                    }
                }
            }
            for (int[] leg : new int[][] {{from, -1}, {to, 1}}) {
                try (PreparedStatement ps = c.prepareStatement(
                        "UPDATE account SET balance = balance + ?, touched = touched + 1 WHERE id = ?")) {
                    ps.setLong(1, leg[1] * amount);
                    ps.setInt(2, leg[0]);
                    assertEquals(1, ps.executeUpdate());
                }
            }
        } else {
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE account SET balance = balance + ?, touched = touched + 1 WHERE id = ?")) {
                for (int[] leg : new int[][] {{from, -1}, {to, 1}}) {
                    ps.setLong(1, leg[1] * amount);
                    ps.setInt(2, leg[0]);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                assertEquals(2, counts.length);
                assertEquals(1, counts[0]);
                assertEquals(1, counts[1]);
            }
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO transfer_leg (transfer, account, amount) VALUES (?, ?, ?)")) {
            for (int[] leg : new int[][] {{from, -1}, {to, 1}}) {
                ps.setLong(1, transfer);
                ps.setInt(2, leg[0]);
                ps.setLong(3, leg[1] * amount);
                ps.addBatch();
            }
            ps.executeBatch();
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT sum(balance) FROM account WHERE id IN (?, ?)")) {
            ps.setInt(1, from);
            ps.setInt(2, to);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
            }
        }
        c.commit();
    }

    /** What a thread saw go wrong: the call, the exception's class and SQLState. */
    private record Failure(String call, String exceptionClass, String sqlState) {}

    @ParameterizedTest(name = "{0}, {1}")
    @CsvSource({
        "bare, READ_COMMITTED",
        "bare, REPEATABLE_READ",
        "bare, SERIALIZABLE",
        "off, SERIALIZABLE",
        "batch, READ_COMMITTED",
        "batch, REPEATABLE_READ",
        "batch, SERIALIZABLE",
        "transaction, READ_COMMITTED",
        "transaction, REPEATABLE_READ",
        "transaction, SERIALIZABLE"
    })
    void contendedTransfersFailAsUnderBarePgjdbcAndKeepTheInvariants(String mode, String isolation, TestDatabase db)
            throws Exception {
        schema(db);
        int level = switch (isolation) {
            case "READ_COMMITTED" -> Connection.TRANSACTION_READ_COMMITTED;
            case "REPEATABLE_READ" -> Connection.TRANSACTION_REPEATABLE_READ;
            default -> Connection.TRANSACTION_SERIALIZABLE;
        };
        List<Connection> connections = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            Connection c = mode.equals("bare")
                    ? db.bare()
                    : DriverManager.getConnection(db.flushlessUrl("flushless.mode=" + mode), db.credentials());
            c.setTransactionIsolation(level);
            c.setAutoCommit(false);
            connections.add(c);
        }
        AtomicLong transfers = new AtomicLong(1_000_000);
        for (Connection c : connections) { // warm-up: every statement once, uncontended, so the catalog is read
            transfer(c, transfers.incrementAndGet(), 1, 2, 0, true);
            transfer(c, transfers.incrementAndGet(), 2, 1, 0, false);
        }
        boolean stats = db.hasStatementStats();
        if (stats) {
            db.resetStatementCounts();
        }
        Map<Failure, Long> failures = new ConcurrentHashMap<>();
        AtomicLong committed = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(THREADS);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < THREADS; t++) {
                Connection c = connections.get(t);
                Random random = new Random(7919L * t + level);
                done.add(pool.submit(() -> {
                    for (int i = 0; i < TRANSFERS_PER_THREAD; i++) {
                        int from = 1 + random.nextInt(ACCOUNTS);
                        int to = 1 + (from + random.nextInt(ACCOUNTS - 1)) % ACCOUNTS;
                        boolean locking = random.nextBoolean();
                        String[] call = {"transfer"};
                        try {
                            transfer(c, transfers.incrementAndGet(), from, to, 1 + random.nextInt(50), locking);
                            committed.incrementAndGet();
                        } catch (SQLException e) {
                            String kind = e instanceof BatchUpdateException
                                    ? "executeBatch"
                                    : e instanceof PSQLException ? "statement or commit" : "other";
                            failures.merge(
                                    new Failure(kind, e.getClass().getSimpleName(), e.getSQLState()), 1L, Long::sum);
                            if (!CONTENTION.contains(e.getSQLState())) {
                                throw new AssertionError("not an error of contention: " + call[0], e);
                            }
                            c.rollback();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        for (Failure failure : failures.keySet()) {
            assertTrue(
                    failure.exceptionClass().equals("BatchUpdateException")
                            || failure.exceptionClass().equals("PSQLException"),
                    "pgjdbc's exception classes only: " + failures);
        }
        if (stats) {
            assertEquals(0, db.statementCount("%to_regclass%"), "no catalog query after the warm-up, errors included");
        }
        for (Connection c : connections) {
            if (!mode.equals("bare")) {
                Map<String, Long> fallbacks =
                        c.unwrap(FlushlessConnection.class).report().fallbacks();
                assertTrue(
                        !fallbacks.containsKey("coalesced-failed") && !fallbacks.containsKey("buffer-failed"),
                        "nothing re-run as sent after an error of contention: " + fallbacks);
            }
            c.close();
        }
        long warmUps = 2L * THREADS;
        assertEquals(List.of(List.of(Long.toString(ACCOUNTS * OPENING))), db.rows("SELECT sum(balance) FROM account"));
        assertEquals(
                List.of(List.of(Long.toString(2 * (committed.get() + warmUps)))),
                db.rows("SELECT count(*) FROM transfer_leg"),
                "two legs per committed transfer; failures: " + new TreeMap<>(Map.of("failures", failures.toString())));
        assertEquals(
                List.of(),
                db.rows("SELECT a.id FROM account a WHERE a.balance <> " + OPENING
                        + " + (SELECT coalesce(sum(l.amount), 0) FROM transfer_leg l WHERE l.account = a.id)"),
                "every balance is its opening balance plus its legs");
        System.out.println("[contention] " + mode + " " + isolation + ": committed " + committed.get() + " of "
                + THREADS * TRANSFERS_PER_THREAD + ", failures " + failures);
    }
}
