package dev.flushless.jdbc.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.LatencyProxy.Cut;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The connection dies (the {@link LatencyProxy} kills both sockets) before, during and after the round trip
 * that carries a coalesced batch, a transaction's buffered writes or its COMMIT. Afterwards, on a separate
 * connection, the database must hold all of the transaction or none of it (for an autocommit batch: all of
 * the batch or none), the application must have been told with an {@link SQLException} of SQLState class 08
 * (never a RuntimeException, never a hang: a socket timeout bounds every read), and nothing may have been
 * reported committed that is not: when {@code commit()} (or an autocommit {@code executeBatch()}) returned
 * normally, every row is there.
 *
 * <p>Where each cut falls ({@link Cut}): nothing of the request reaches the server; half of its bytes do
 * (no Sync and no COMMIT at its end: the server rolls back what it began); all of it does and the server
 * runs it to its end, but the reply is lost; or the reply arrives and the connection dies right after.
 *
 * <p><b>The inherent case</b>: when the connection dies after the server committed but before the reply
 * arrived ({@link Cut#BEFORE_REPLY} on the round trip that commits), no client can know the outcome. The
 * JDBC contract, bare pgjdbc's and Flushless's alike, is that the application gets an 08 error (not success)
 * and the rows may be there: they are, because the server finished the request. The test asserts exactly
 * that: an 08 error, and all the rows.
 *
 * <p>Every scenario runs on a fresh connection (so that pgjdbc sends each statement's text, which the proxy
 * looks for, rather than the name of a statement prepared earlier) and writes rows keyed by its own run
 * name.
 */
@ExtendWith(PostgresExtension.class)
class FaultInjectionTest {

    private static final int ROWS = 50;

    @BeforeAll
    static void schema(TestDatabase db) throws SQLException {
        db.execute(
                "CREATE TABLE fi_rows (run text, id int, v text, PRIMARY KEY (run, id))",
                "CREATE TABLE fi_other (run text, id int, n int NOT NULL, PRIMARY KEY (run, id))",
                "CREATE TABLE fi_counter (run text PRIMARY KEY, n int NOT NULL)");
    }

    // ---- the scenarios ----

    /** batch mode, autocommit: a coalesced 50-row INSERT batch is one implicit transaction. */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void autocommitInsertBatch(Cut cut, TestDatabase db) throws Exception {
        String run = runName("auto-insert-", cut);
        Scenario s = new Scenario(db, run, "batch", cut, "INSERT INTO fi_rows", 1);
        s.commitStep(0).faultStep(0);
        s.run(c -> {
            PreparedStatement ps = c.prepareStatement("INSERT INTO fi_rows (run, id, v) VALUES (?, ?, ?)");
            s.step("executeBatch", () -> {
                for (int i = 0; i < ROWS; i++) {
                    ps.setString(1, run);
                    ps.setInt(2, i);
                    ps.setString(3, "v" + i);
                    ps.addBatch();
                }
                assertAllOnes(ps.executeBatch(), ROWS);
            });
        });
        assertCoalesced(s, "insert");
        s.verify(rowCount(db, "fi_rows", run), ROWS);
    }

    /** batch mode, autocommit: a coalesced UPDATE batch (joined to VALUES) changes all its rows or none. */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void autocommitUpdateBatch(Cut cut, TestDatabase db) throws Exception {
        String run = runName("auto-update-", cut);
        for (int i = 0; i < ROWS; i++) {
            db.execute("INSERT INTO fi_other (run, id, n) VALUES ('" + run + "', " + i + ", 0)");
        }
        Scenario s = new Scenario(db, run, "batch", cut, "UPDATE fi_other", 1);
        s.commitStep(0).faultStep(0);
        s.run(c -> {
            PreparedStatement ps = c.prepareStatement("UPDATE fi_other SET n = ? WHERE run = ? AND id = ?");
            s.step("executeBatch", () -> {
                for (int i = 0; i < ROWS; i++) {
                    ps.setInt(1, 1);
                    ps.setString(2, run);
                    ps.setInt(3, i);
                    ps.addBatch();
                }
                assertAllOnes(ps.executeBatch(), ROWS);
            });
        });
        assertCoalesced(s, "update");
        s.verify(count(db, "SELECT count(*) FROM fi_other WHERE run = '" + run + "' AND n = 1"), ROWS);
    }

    /** batch mode, autocommit: a Statement batch of INSERTs and an UPDATE of another table, as one CTE chain. */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void autocommitStatementBatch(Cut cut, TestDatabase db) throws Exception {
        String run = runName("auto-statements-", cut);
        db.execute("INSERT INTO fi_counter (run, n) VALUES ('" + run + "', 0)");
        Scenario s = new Scenario(db, run, "batch", cut, "INSERT INTO fi_rows", 1);
        s.commitStep(0).faultStep(0);
        s.run(c -> {
            Statement st = c.createStatement();
            s.step("executeBatch", () -> {
                for (int i = 0; i < 20; i++) {
                    st.addBatch("INSERT INTO fi_rows (run, id, v) VALUES ('" + run + "', " + i + ", 'x')");
                }
                st.addBatch("UPDATE fi_counter SET n = n + 20 WHERE run = '" + run + "'");
                int[] counts = st.executeBatch();
                assertEquals(21, counts.length);
                assertAllOnes(Arrays.copyOf(counts, 20), 20);
                assertEquals(1, counts[20]);
            });
        });
        long rows = rowCount(db, "fi_rows", run);
        long counter = count(db, "SELECT n FROM fi_counter WHERE run = '" + run + "'");
        assertEquals(rows, counter, "the INSERTs and the UPDATE of one Statement batch commit together");
        assertCoalesced(s, "statement");
        s.verify(rows, 20);
    }

    /**
     * batch mode, explicit transaction: the coalesced batch (guarded by a savepoint) or the COMMIT is cut.
     * Whatever dies, the transaction commits all or nothing, and only a COMMIT whose reply was lost may
     * have committed without telling.
     */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void transactionBatchCutAtTheBatch(Cut cut, TestDatabase db) throws Exception {
        transactionBatch(cut, db, "INSERT INTO fi_rows", 1);
    }

    /** See {@link #transactionBatchCutAtTheBatch}: here the request carrying pgjdbc's COMMIT is cut. */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void transactionBatchCutAtCommit(Cut cut, TestDatabase db) throws Exception {
        transactionBatch(cut, db, "COMMIT", 2);
    }

    private void transactionBatch(Cut cut, TestDatabase db, String marker, int faultStep) throws Exception {
        String run = runName("tx-batch-" + faultStep + "-", cut);
        Scenario s = new Scenario(db, run, "batch", cut, marker, 1);
        s.commitStep(2).faultStep(faultStep);
        s.run(c -> {
            PreparedStatement ps = c.prepareStatement("INSERT INTO fi_rows (run, id, v) VALUES (?, ?, ?)");
            s.step("setAutoCommit(false)", () -> c.setAutoCommit(false));
            s.step("executeBatch", () -> {
                for (int i = 0; i < ROWS; i++) {
                    ps.setString(1, run);
                    ps.setInt(2, i);
                    ps.setString(3, "v" + i);
                    ps.addBatch();
                }
                assertAllOnes(ps.executeBatch(), ROWS);
            });
            s.step("commit", c::commit);
        });
        assertCoalesced(s, "insert");
        s.verify(rowCount(db, "fi_rows", run), ROWS);
    }

    /**
     * mode=transaction, commit fusion: a transaction still entirely buffered at {@code commit()} is one
     * execution with one Sync (one implicit transaction) of INSERTs into two tables.
     */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void fusedCommit(Cut cut, TestDatabase db) throws Exception {
        String run = runName("fused-", cut);
        Scenario s = new Scenario(db, run, "transaction", cut, "INSERT INTO fi_rows", 1);
        s.commitStep(2).faultStep(2);
        s.run(c -> {
            s.step("setAutoCommit(false)", () -> c.setAutoCommit(false));
            s.step("buffered INSERTs", () -> bufferedInserts(c, run, 0, ROWS));
            s.step("commit", c::commit);
        });
        long rows = rowCount(db, "fi_rows", run);
        assertEquals(rows, rowCount(db, "fi_other", run), "both tables of the transaction commit together");
        s.verify(rows, ROWS);
    }

    /**
     * mode=transaction: a transaction that already sent something (an UPDATE, which opened the server
     * transaction) sends its buffered INSERTs and COMMIT in one round trip.
     */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void bufferAndCommitAfterAnEarlierStatement(Cut cut, TestDatabase db) throws Exception {
        String run = runName("buffer-commit-", cut);
        db.execute("INSERT INTO fi_counter (run, n) VALUES ('" + run + "', 0)");
        Scenario s = new Scenario(db, run, "transaction", cut, "INSERT INTO fi_rows", 1);
        s.commitStep(3).faultStep(3);
        s.run(c -> {
            s.step("setAutoCommit(false)", () -> c.setAutoCommit(false));
            s.step("UPDATE (sent at once)", () -> {
                PreparedStatement up = c.prepareStatement("UPDATE fi_counter SET n = n + ? WHERE run = ?");
                up.setInt(1, ROWS);
                up.setString(2, run);
                assertEquals(1, up.executeUpdate());
            });
            s.step("buffered INSERTs", () -> bufferedInserts(c, run, 0, ROWS));
            s.step("commit", c::commit);
        });
        long rows = rowCount(db, "fi_rows", run);
        assertEquals(
                rows,
                count(db, "SELECT n FROM fi_counter WHERE run = '" + run + "'"),
                "the UPDATE sent earlier and the buffered INSERTs commit together");
        s.verify(rows, ROWS);
    }

    /** mode=transaction: the buffer is sent before a read of a table it wrote, in the middle of the transaction. */
    @ParameterizedTest
    @EnumSource(Cut.class)
    void flushBeforeARead(Cut cut, TestDatabase db) throws Exception {
        String run = runName("flush-read-", cut);
        Scenario s = new Scenario(db, run, "transaction", cut, "INSERT INTO fi_rows", 1);
        s.commitStep(4).faultStep(2);
        s.run(c -> {
            s.step("setAutoCommit(false)", () -> c.setAutoCommit(false));
            s.step("buffered INSERTs", () -> bufferedInserts(c, run, 0, ROWS));
            s.step("SELECT (sends the buffer)", () -> {
                PreparedStatement q = c.prepareStatement("SELECT count(*) FROM fi_rows WHERE run = ?");
                q.setString(1, run);
                try (ResultSet rs = q.executeQuery()) {
                    rs.next();
                    assertEquals(ROWS, rs.getInt(1));
                }
            });
            s.step("more buffered INSERTs", () -> bufferedInserts(c, run, ROWS, ROWS));
            s.step("commit", c::commit);
        });
        long rows = rowCount(db, "fi_rows", run);
        assertEquals(rows, rowCount(db, "fi_other", run), "both tables of the transaction commit together");
        s.verify(rows, 2 * ROWS);
    }

    /**
     * batch mode, autocommit, a coalesced batch of more statements than pgjdbc sends with one Sync: pgjdbc
     * forces a Sync (and waits for the replies) every 256 statements of one execution (it estimates 250 bytes
     * of reply per statement against a 64,000-byte receive buffer). Each Sync ends an implicit transaction, so
     * the coalesced batch must not rely on its single execution for atomicity. The connection dies at the
     * second request carrying the batch's statements.
     */
    @ParameterizedTest
    @EnumSource(
            value = Cut.class,
            names = {"BEFORE_REQUEST", "MID_REQUEST", "BEFORE_REPLY"})
    void autocommitBatchOfMoreStatementsThanOneSyncCarries(Cut cut, TestDatabase db) throws Exception {
        String run = runName("auto-large-", cut);
        int rows = 300;
        Scenario s = new Scenario(db, run, "batch&flushless.maxRowsPerStatement=1", cut, "INSERT INTO fi_rows", 2);
        s.commitStep(0).faultStep(0);
        s.run(c -> {
            PreparedStatement ps = c.prepareStatement("INSERT INTO fi_rows (run, id, v) VALUES (?, ?, ?)");
            s.step("executeBatch", () -> {
                for (int i = 0; i < rows; i++) {
                    ps.setString(1, run);
                    ps.setInt(2, i);
                    ps.setString(3, "v" + i);
                    ps.addBatch();
                }
                assertAllOnes(ps.executeBatch(), rows);
            });
        });
        s.verifyAllOrNothing(rowCount(db, "fi_rows", run), rows);
    }

    /**
     * mode=transaction, commit fusion of a transaction whose flush is more statements than pgjdbc sends with
     * one Sync (INSERTs alternating between two tables: each table written again starts a new statement).
     * The fused commit must still be all or nothing when the connection dies at the second request.
     */
    @ParameterizedTest
    @EnumSource(
            value = Cut.class,
            names = {"BEFORE_REQUEST", "MID_REQUEST", "BEFORE_REPLY"})
    void fusedCommitOfMoreStatementsThanOneSyncCarries(Cut cut, TestDatabase db) throws Exception {
        String run = runName("fused-large-", cut);
        int pairs = 300;
        Scenario s = new Scenario(db, run, "transaction", cut, "INSERT INTO fi_rows", 2);
        s.commitStep(2).faultStep(2);
        s.run(c -> {
            s.step("setAutoCommit(false)", () -> c.setAutoCommit(false));
            s.step("buffered INSERTs", () -> bufferedInserts(c, run, 0, pairs));
            s.step("commit", c::commit);
        });
        long rows = rowCount(db, "fi_rows", run);
        assertEquals(rows, rowCount(db, "fi_other", run), "both tables of the transaction commit together");
        s.verifyAllOrNothing(rows, pairs);
    }

    /**
     * The same split without a network fault: the last statement of a 300-statement autocommit batch fails
     * (a duplicate key) after pgjdbc's forced Sync. The coalesced batch must be undone as a whole, so that its
     * re-run as sent gives exactly bare pgjdbc's exception, update counts and final rows (bare pgjdbc commits
     * its own batch in pieces, at the same Syncs).
     */
    @org.junit.jupiter.api.Test
    void autocommitBatchFailingAfterPgjdbcsForcedSyncIsUndoneAsAWhole(TestDatabase db) throws Exception {
        int rows = 300;
        db.execute(
                "CREATE TABLE fi_split_bare (id int PRIMARY KEY, v text)",
                "CREATE TABLE fi_split_fl (id int PRIMARY KEY, v text)",
                "INSERT INTO fi_split_bare VALUES (10000, 'taken')",
                "INSERT INTO fi_split_fl VALUES (10000, 'taken')");
        List<String> observed = new ArrayList<>();
        for (String table : List.of("fi_split_bare", "fi_split_fl")) {
            Properties properties = db.credentials();
            String url = table.endsWith("bare") ? db.pgjdbcUrl() : db.flushlessUrl("flushless.maxRowsPerStatement=1");
            try (Connection c = DriverManager.getConnection(url, properties);
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)")) {
                for (int i = 0; i < rows; i++) {
                    ps.setInt(1, i == rows - 1 ? 10000 : i); // the last row collides
                    ps.setString(2, "v" + i);
                    ps.addBatch();
                }
                java.sql.BatchUpdateException e = org.junit.jupiter.api.Assertions.assertThrows(
                        java.sql.BatchUpdateException.class, ps::executeBatch);
                observed.add(e.getSQLState() + " " + Arrays.toString(e.getUpdateCounts()) + " "
                        + e.getMessage().replace(table, "T") + " rows=" + count(db, "SELECT count(*) FROM " + table));
            }
        }
        assertEquals(observed.get(0), observed.get(1), "Flushless must give bare pgjdbc's answer");
    }

    /**
     * The exception a lost connection gives {@code executeBatch()}: bare pgjdbc raises a
     * {@link java.sql.BatchUpdateException} (SQLState 08006, every entry {@code EXECUTE_FAILED}, the I/O error as
     * its next exception), and so must a coalesced batch (PreparedStatement and Statement batches, in autocommit
     * and in a transaction), not the plain exception of its own multi-statement execution.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"prepared", "prepared in a transaction", "statement"})
    void lostConnectionDuringExecuteBatchIsABatchUpdateExceptionAsInPgjdbc(String shape, TestDatabase db)
            throws Exception {
        String table = "fi_lost_" + shape.replace(' ', '_');
        db.execute("CREATE TABLE " + table + " (id int PRIMARY KEY, v text)");
        List<String> observed = new ArrayList<>();
        for (String url : List.of(db.pgjdbcUrl(), db.flushlessUrl("flushless.mode=batch"))) {
            try (LatencyProxy proxy = LatencyProxy.forUrl(db.pgjdbcUrl(), 0);
                    Connection c = DriverManager.getConnection(proxy.proxiedUrl(url), db.credentials());
                    PreparedStatement ps = c.prepareStatement("INSERT INTO " + table + " (id, v) VALUES (?, ?)");
                    Statement st = c.createStatement()) {
                c.setAutoCommit(!shape.endsWith("transaction"));
                for (int i = 0; i < 6; i++) {
                    ps.setInt(1, i);
                    ps.setString(2, "v" + i);
                    ps.addBatch();
                    st.addBatch("INSERT INTO " + table + " (id, v) VALUES (" + (100 + i) + ", 'v')");
                }
                proxy.cut(Cut.BEFORE_REQUEST, "INSERT INTO " + table);
                SQLException e = org.junit.jupiter.api.Assertions.assertThrows(
                        SQLException.class, shape.startsWith("prepared") ? ps::executeBatch : st::executeBatch);
                observed.add(e.getClass().getSimpleName() + " " + e.getSQLState() + " "
                        + (e instanceof java.sql.BatchUpdateException b
                                ? Arrays.toString(b.getUpdateCounts())
                                : "no counts")
                        + " next "
                        + (e.getNextException() == null
                                ? null
                                : e.getNextException().getSQLState()));
            }
        }
        assertEquals(observed.get(0), observed.get(1), shape + ": bare pgjdbc, then Flushless");
    }

    // ---- helpers ----

    /** A scenario's run key, lower case: bound values must not contain a marker such as COMMIT. */
    private static String runName(String prefix, Cut cut) {
        return prefix + cut.name().toLowerCase(java.util.Locale.ROOT);
    }

    /** Inserts rows {@code from .. from+n-1} into fi_rows and fi_other, alternating (each a single executeUpdate). */
    private static void bufferedInserts(Connection c, String run, int from, int n) throws SQLException {
        PreparedStatement a = c.prepareStatement("INSERT INTO fi_rows (run, id, v) VALUES (?, ?, ?)");
        PreparedStatement b = c.prepareStatement("INSERT INTO fi_other (run, id, n) VALUES (?, ?, ?)");
        for (int i = from; i < from + n; i++) {
            a.setString(1, run);
            a.setInt(2, i);
            a.setString(3, "v" + i);
            assertEquals(1, a.executeUpdate());
            b.setString(1, run);
            b.setInt(2, i);
            b.setInt(3, i);
            assertEquals(1, b.executeUpdate());
        }
    }

    private static void assertAllOnes(int[] counts, int n) {
        assertEquals(n, counts.length);
        for (int count : counts) {
            assertEquals(1, count, "update counts " + Arrays.toString(counts));
        }
    }

    /** Checks that the batch the scenario cut really was coalesced (counted as a rewrite once it succeeded). */
    private static void assertCoalesced(Scenario s, String kind) {
        if (s.failure == null) {
            assertTrue(
                    s.rewrites.keySet().stream().anyMatch(k -> k.contains(kind)),
                    s.run + ": expected a coalesced " + kind + " batch, rewrites: " + s.rewrites);
        }
    }

    private static long rowCount(TestDatabase db, String table, String run) throws SQLException {
        return count(db, "SELECT count(*) FROM " + table + " WHERE run = '" + run + "'");
    }

    private static long count(TestDatabase db, String query) throws SQLException {
        return Long.parseLong(db.rows(query).get(0).get(0));
    }

    @FunctionalInterface
    interface SqlStep {
        void run() throws SQLException;
    }

    @FunctionalInterface
    interface Body {
        void run(Connection c) throws SQLException;
    }

    /**
     * One run: a fresh connection through a fresh proxy armed with the fault, the application's steps (the
     * first SQLException ends them), and the checks of what the application was told against what the
     * database holds.
     */
    private static final class Scenario {
        final TestDatabase db;
        final String run;
        final String mode;
        final Cut cut;
        final String marker;
        final int occurrence;
        /** The step whose success means the work was committed (the autocommit batch, or commit()). */
        int commitStep;
        /** The step whose round trip carries the marker. */
        int faultStep;

        final List<String> steps = new ArrayList<>();
        int failedStep = -1;
        SQLException failure;
        boolean fired;
        java.util.Map<String, Long> rewrites = java.util.Map.of();

        Scenario(TestDatabase db, String run, String mode, Cut cut, String marker, int occurrence) {
            this.db = db;
            this.run = run;
            this.mode = mode;
            this.cut = cut;
            this.marker = marker;
            this.occurrence = occurrence;
        }

        Scenario commitStep(int step) {
            this.commitStep = step;
            return this;
        }

        Scenario faultStep(int step) {
            this.faultStep = step;
            return this;
        }

        /** Runs one application step unless an earlier one failed; records an SQLException, lets anything else fail the test. */
        void step(String name, SqlStep step) {
            steps.add(name);
            if (failure != null) {
                return;
            }
            try {
                step.run();
            } catch (SQLException e) {
                failure = e;
                failedStep = steps.size() - 1;
            }
        }

        void run(Body body) throws Exception {
            try (LatencyProxy proxy = LatencyProxy.forUrl(db.pgjdbcUrl(), 0)) {
                Properties properties = db.credentials();
                properties.setProperty("socketTimeout", "30"); // a hang fails the test instead of blocking it
                Connection c = DriverManager.getConnection(
                        proxy.proxiedUrl(db.flushlessUrl("flushless.mode=" + mode)), properties);
                try {
                    FlushlessConnection flushless = c.unwrap(FlushlessConnection.class);
                    proxy.cut(cut, marker, occurrence);
                    body.run(c);
                    fired = proxy.faultFired();
                    rewrites = flushless.report().rewrites();
                    if (failure == null) {
                        // every step succeeded: the cut came after the last reply; the connection is dead now
                        assertTrue(fired, run + ": the fault never fired (marker " + marker + " not seen)");
                        SQLException dead = null;
                        try (Statement st = c.createStatement()) {
                            st.execute("SELECT 1");
                        } catch (SQLException e) {
                            dead = e;
                        }
                        assertNotNull(dead, run + ": the connection still works after the proxy killed it");
                        assertConnectionClass(dead, run + ": the next statement");
                    }
                } finally {
                    c.close(); // must not throw, even on a dead connection
                }
            }
        }

        /**
         * The invariants alone: all or nothing ({@code found} of {@code all} rows), an 08 error for a failed
         * step, every row there when every step succeeded.
         */
        String verifyAllOrNothing(long found, long all) {
            String what = run + " (steps " + steps + ", failed at " + (failedStep < 0 ? "none" : steps.get(failedStep))
                    + (failure == null ? "" : ": " + failure) + ")";
            assertTrue(fired, what + ": the fault never fired (marker " + marker + " not seen)");
            assertTrue(
                    found == 0 || found == all,
                    what + ": " + found + " of " + all + " rows committed: not all or nothing");
            if (failure != null) {
                assertConnectionClass(failure, what);
            } else {
                assertEquals(all, found, what + ": success was reported but the rows are not all there");
            }
            return what;
        }

        /**
         * {@link #verifyAllOrNothing} and the exact outcome of the cut: the faulted step fails with 08 (or,
         * when its reply arrived and the work was not yet committed, a later step does, at the latest
         * commit()), and the rows are committed exactly when the server finished a request that commits.
         */
        void verify(long found, long all) {
            String what = verifyAllOrNothing(found, all);
            boolean commitsInFaultedRequest = faultStep == commitStep;
            switch (cut) {
                case BEFORE_REQUEST:
                case MID_REQUEST:
                    assertEquals(faultStep, failedStep, what + ": the step whose request was cut must fail");
                    assertEquals(0, found, what + ": the server never saw a complete request, nothing may commit");
                    break;
                case BEFORE_REPLY:
                    assertEquals(
                            faultStep,
                            failedStep,
                            what + ": the step whose reply was lost must fail (08), not succeed");
                    assertEquals(
                            commitsInFaultedRequest ? all : 0,
                            found,
                            what
                                    + (commitsInFaultedRequest
                                            ? ": the server finished the committing request, so the rows are there (the client cannot know)"
                                            : ": the server rolls back an open transaction when the connection dies"));
                    break;
                case AFTER_REPLY:
                    if (commitsInFaultedRequest) {
                        assertNull(failure, what + ": the reply arrived, the call must succeed");
                        assertEquals(all, found, what);
                    } else {
                        // the faulted step may talk to the server again after the cut request (a flush, then its
                        // SELECT)
                        assertTrue(
                                failedStep >= faultStep && failedStep <= commitStep,
                                what + ": a step must fail with 08, at the latest commit()");
                        assertEquals(0, found, what + ": nothing was committed when the connection died");
                    }
                    break;
                default:
                    fail(cut.name());
            }
        }

        private static void assertConnectionClass(SQLException e, String what) {
            assertNotNull(e.getSQLState(), what + ": SQLState missing on " + e);
            assertTrue(
                    e.getSQLState().startsWith("08"),
                    what + ": expected SQLState class 08, got " + e.getSQLState() + ": " + e);
        }
    }
}
