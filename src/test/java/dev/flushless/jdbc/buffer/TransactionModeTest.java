package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.StringWriter;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;

/**
 * {@code flushless.mode=transaction} against a real PostgreSQL: what reaches the server (pg_stat_statements and
 * round trips on the driver's socket), one test per flush point, commit fusion, and errors of buffered writes.
 */
@ExtendWith(PostgresExtension.class)
class TransactionModeTest {

    private static Connection transactional(TestDatabase db, String counterKey, String... settings)
            throws SQLException {
        Properties properties = db.credentials();
        if (counterKey != null) {
            properties.putAll(RoundTripCountingSocketFactory.properties(counterKey));
        }
        String url = db.flushlessUrl(
                "flushless.mode=transaction" + (settings.length == 0 ? "" : "&" + String.join("&", settings)));
        return DriverManager.getConnection(url, properties);
    }

    private static int insert(Connection c, String sql, Object... values) throws SQLException {
        PreparedStatement ps = c.prepareStatement(sql);
        for (int i = 0; i < values.length; i++) {
            ps.setObject(i + 1, values[i]);
        }
        return ps.executeUpdate();
    }

    private static void threeTableTransaction(Connection c, int id) throws SQLException {
        c.setAutoCommit(false);
        assertEquals(1, insert(c, "INSERT INTO demo1 (id, v) VALUES (?, ?)", id, "a" + id));
        assertEquals(1, insert(c, "INSERT INTO demo2 (id, v) VALUES (?, ?)", id, "b" + id));
        assertEquals(1, insert(c, "INSERT INTO demo3 (id, v) VALUES (?, ?)", id, "c" + id));
        c.commit();
    }

    @Test
    void threeTableTransactionRunsAsOneStatementInOneRoundTrip(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE demo1 (id int PRIMARY KEY, v text)",
                "CREATE TABLE demo2 (id int PRIMARY KEY, v text)",
                "CREATE TABLE demo3 (id int PRIMARY KEY, v text)");
        String key = "three-table-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            threeTableTransaction(c, 1); // reads the three tables' catalog facts once per connection
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            boolean stats = db.hasStatementStats();
            if (stats) {
                db.resetStatementCounts();
            }
            socket.reset();
            for (int id = 2; id <= 6; id++) {
                threeTableTransaction(c, id);
            }
            assertEquals(5, socket.roundTrips(), "one round trip per transaction, commit included");
            if (stats) {
                assertEquals(
                        5, db.statementCount("%"), "one statement per transaction: no BEGIN, no COMMIT of its own");
            }
            assertFalse(c.getAutoCommit());
        }
        for (String table : List.of("demo1", "demo2", "demo3")) {
            assertEquals(List.of(List.of("6")), db.rows("SELECT count(*) FROM " + table));
        }
    }

    @Test
    void aThousandRowInsertTransactionIsOneRoundTripAndOneStatement(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE thousand (id int PRIMARY KEY, name text, amount numeric)");
        String key = "thousand-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO thousand (id, name, amount) VALUES (?, ?, ?)", 0, "warm-up", 1);
            c.commit();
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            PreparedStatement ps = c.prepareStatement("INSERT INTO thousand (id, name, amount) VALUES (?, ?, ?)");
            for (int i = 1; i <= 1000; i++) {
                ps.setInt(1, i);
                ps.setString(2, "row " + i);
                ps.setBigDecimal(3, new java.math.BigDecimal(i).movePointLeft(2));
                assertEquals(1, ps.executeUpdate());
                assertEquals(1, ps.getUpdateCount());
                assertFalse(ps.getMoreResults());
                assertEquals(-1, ps.getUpdateCount());
                assertNull(ps.getResultSet());
            }
            assertEquals(0, socket.roundTrips(), "nothing is sent before commit");
            c.commit();
            assertEquals(1, socket.roundTrips());
            assertEquals(
                    1000,
                    c.unwrap(FlushlessConnection.class)
                                    .flushlessStats()
                                    .rewrites()
                                    .get(FlushPlanner.REWRITE_KIND)
                            - 1);
        }
        assertEquals(List.of(List.of("1001", "5006.00")), db.rows("SELECT count(*), sum(amount) FROM thousand"));
    }

    @Test
    void insertThenSelectOfTheSameTableSeesTheRow(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE seen (id int PRIMARY KEY, v text)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO seen (id, v) VALUES (?, ?)", 1, "one");
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT v FROM seen WHERE id = 1")) {
                assertTrue(rs.next());
                assertEquals("one", rs.getString(1));
            }
            PreparedStatement count = c.prepareStatement("SELECT count(*) FROM public.seen");
            insert(c, "INSERT INTO seen (id, v) VALUES (?, ?)", 2, "two");
            try (ResultSet rs = count.executeQuery()) {
                rs.next();
                assertEquals(2, rs.getInt(1));
            }
            c.rollback();
        }
        assertEquals(List.of(List.of("0")), db.rows("SELECT count(*) FROM seen"));
    }

    @Test
    void sequenceCallsAndReadsOfOtherTablesDoNotSendTheBuffer(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE written (id bigint PRIMARY KEY)",
                "CREATE TABLE other (id int)",
                "INSERT INTO other VALUES (7)",
                "CREATE SEQUENCE written_seq");
        String key = "reads-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO written (id) VALUES (?)", 100L);
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT count(*) FROM other").close();
            }
            c.commit(); // warm-up: both tables' catalog facts are read once per connection
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            PreparedStatement next = c.prepareStatement("select nextval('written_seq')");
            for (int i = 0; i < 3; i++) {
                long id;
                try (ResultSet rs = next.executeQuery()) {
                    rs.next();
                    id = rs.getLong(1);
                }
                insert(c, "INSERT INTO written (id) VALUES (?)", id);
            }
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT id FROM other")) {
                rs.next();
                assertEquals(7, rs.getInt(1));
            }
            assertEquals(4, socket.roundTrips(), "three sequence calls and one read, none carrying the inserts");
            c.commit();
            assertEquals(5, socket.roundTrips(), "the inserts and the COMMIT share the last round trip");
        }
        assertEquals(List.of(List.of("4")), db.rows("SELECT count(*) FROM written"));
    }

    @Test
    void sequenceCallsSendTheBufferWhenABufferedInsertDrawsFromASequence(TestDatabase db) throws Exception {
        db.enableGenRandomUuid(); // pgcrypto's before PostgreSQL 13
        db.execute(
                "CREATE TABLE serial_ids (id serial PRIMARY KEY, v text)",
                "CREATE TABLE identity_ids (id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, at timestamptz DEFAULT now())",
                "CREATE TABLE clock_only (id bigint PRIMARY KEY, at timestamptz DEFAULT now(), u uuid DEFAULT gen_random_uuid())",
                "CREATE SEQUENCE app_seq");
        for (String mode : List.of("bare", "transaction")) {
            db.execute(
                    "TRUNCATE serial_ids, identity_ids, clock_only RESTART IDENTITY", "ALTER SEQUENCE app_seq RESTART");
            try (Connection c = mode.equals("bare") ? db.bare() : transactional(db, null);
                    Statement s = c.createStatement()) {
                c.setAutoCommit(false);
                insert(c, "INSERT INTO serial_ids (v) VALUES (?)", "a");
                try (ResultSet rs =
                        s.executeQuery("SELECT currval('serial_ids_id_seq'), nextval('serial_ids_id_seq')")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), mode);
                    assertEquals(2, rs.getInt(2), mode);
                }
                s.executeUpdate("INSERT INTO identity_ids DEFAULT VALUES");
                insert(c, "INSERT INTO serial_ids (v) VALUES (?)", "b");
                try (ResultSet rs = s.executeQuery("SELECT lastval()")) {
                    rs.next();
                    assertEquals(3, rs.getInt(1), mode);
                }
                c.commit();
            }
        }
        String key = "clock-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO clock_only (id) VALUES (?)", 1L);
            c.commit(); // warm-up
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            insert(c, "INSERT INTO clock_only (id) VALUES (?)", 2L);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT nextval('app_seq')")) {
                rs.next();
            }
            insert(c, "INSERT INTO clock_only (id) VALUES (?)", 3L);
            c.commit();
            assertEquals(2, socket.roundTrips(), "defaults of clock and UUID functions draw from no sequence");
        }
    }

    @Test
    void insertThenUpdateOfTheSameTableUpdatesIt(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE upd (id int PRIMARY KEY, v text)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO upd (id, v) VALUES (?, ?)", 1, "new");
            insert(c, "INSERT INTO upd (id, v) VALUES (?, ?)", 2, "new");
            PreparedStatement update = c.prepareStatement("UPDATE upd SET v = ? WHERE id <= ?");
            update.setString(1, "updated");
            update.setInt(2, 2);
            assertEquals(2, update.executeUpdate());
            try (Statement s = c.createStatement()) {
                assertEquals(1, s.executeUpdate("DELETE FROM upd WHERE id = 1"));
            }
            c.commit();
        }
        assertEquals(List.of(List.of("2", "updated")), db.rows("SELECT id, v FROM upd"));
    }

    @Test
    void aSingleUpdateOrDeleteRidesInTheSameRoundTripAsTheBufferedInserts(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE acct (id int PRIMARY KEY, balance int NOT NULL CHECK (balance >= 0))",
                "INSERT INTO acct VALUES (1, 100)");
        String key = "single-ride-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 9, 0);
            c.rollback(); // warm-up: catalog facts
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 2, 50);
            PreparedStatement debit = c.prepareStatement("UPDATE acct SET balance = balance - ? WHERE id >= ?");
            debit.setInt(1, 10);
            debit.setInt(2, 1);
            assertEquals(2, debit.executeUpdate(), "the update sees the buffered row");
            assertEquals(1, socket.roundTrips(), "BEGIN, the insert and the update in one round trip");
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 3, 5);
            try (Statement s = c.createStatement()) {
                assertFalse(s.execute("DELETE FROM acct WHERE balance < 10"));
                assertEquals(1, s.getUpdateCount());
                assertFalse(s.getMoreResults());
                assertEquals(-1, s.getUpdateCount());
            }
            assertEquals(2, socket.roundTrips());
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 4, 7);
            debit.setInt(1, 1);
            debit.setInt(2, 4);
            debit.addBatch(); // a batch of one row (Hibernate batches single updates too)
            assertArrayEquals(new int[] {1}, debit.executeBatch());
            assertEquals(3, socket.roundTrips());
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 5, 1);
            debit.setInt(1, 1000); // violates the CHECK: the update's own error, as bare pgjdbc raises it
            debit.setInt(2, 5);
            SQLException e = assertThrows(SQLException.class, debit::executeUpdate);
            assertEquals("23514", e.getSQLState());
            assertTrue(e instanceof org.postgresql.util.PSQLException, "the server's own exception: " + e);
            c.rollback();
            insert(c, "INSERT INTO acct (id, balance) VALUES (?, ?)", 6, 1);
            c.commit();
        }
        assertEquals(
                List.of(List.of("1", "100"), List.of("6", "1")), db.rows("SELECT id, balance FROM acct ORDER BY id"));
    }

    @Test
    void aCoalescedUpdateBatchRidesInTheSameRoundTripAsTheBufferedInserts(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE parent (id int PRIMARY KEY, version int NOT NULL, name text)",
                "INSERT INTO parent VALUES (1, 0, 'a'), (2, 0, 'b'), (3, 0, 'c')");
        String key = "ride-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO parent (id, version, name) VALUES (?, ?, ?)", 10, 0, "warm");
            PreparedStatement warm =
                    c.prepareStatement("UPDATE parent SET name = ?, version = ? WHERE id = ? AND version = ?");
            c.commit();
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            insert(c, "INSERT INTO parent (id, version, name) VALUES (?, ?, ?)", 4, 0, "d");
            for (int id = 1; id <= 4; id++) {
                warm.setString(1, "renamed");
                warm.setInt(2, 1);
                warm.setInt(3, id);
                warm.setInt(4, id == 2 ? 5 : 0); // row 2 is stale
                warm.addBatch();
            }
            assertArrayEquals(new int[] {1, 0, 1, 1}, warm.executeBatch(), "the update sees the buffered insert");
            assertEquals(1, socket.roundTrips(), "BEGIN, the insert and the update batch in one round trip");
            c.commit();
        }
        assertEquals(
                List.of(
                        List.of("1", "renamed"),
                        List.of("2", "b"),
                        List.of("3", "renamed"),
                        List.of("4", "renamed"),
                        List.of("10", "warm")),
                db.rows("SELECT id, name FROM parent ORDER BY id"));
    }

    @Test
    void aSavepointRollbackUndoesExactlyTheWritesAfterIt(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE sp (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO sp (id) VALUES (?)", 1);
            Savepoint savepoint = c.setSavepoint();
            insert(c, "INSERT INTO sp (id) VALUES (?)", 2);
            c.rollback(savepoint);
            insert(c, "INSERT INTO sp (id) VALUES (?)", 3);
            Savepoint kept = c.setSavepoint("kept");
            insert(c, "INSERT INTO sp (id) VALUES (?)", 4);
            c.releaseSavepoint(kept);
            c.commit();
        }
        assertEquals(List.of(List.of("1"), List.of("3"), List.of("4")), db.rows("SELECT id FROM sp ORDER BY id"));
    }

    @Test
    void rollbackDiscardsTheBufferWithoutSendingIt(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE discarded (id int PRIMARY KEY)");
        String key = "rollback-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO discarded (id) VALUES (?)", 0);
            c.rollback(); // warm-up
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            insert(c, "INSERT INTO discarded (id) VALUES (?)", 1);
            c.rollback();
            assertEquals(0, socket.roundTrips());
            insert(c, "INSERT INTO discarded (id) VALUES (?)", 2);
            c.commit();
        }
        assertEquals(List.of(List.of("2")), db.rows("SELECT id FROM discarded"));
    }

    /**
     * PostgreSQL never gives sequence values back. Bare pgjdbc's INSERTs drew their ids before the rollback, so
     * rollback() sends buffered INSERTs into a table with a serial id (one round trip for them, one for the
     * ROLLBACK) and the next transaction's ids are bare pgjdbc's.
     */
    @Test
    void rollbackSendsBufferedInsertsThatDrawFromASequenceSoLaterIdsAreBarePgjdbcs(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE drawn (id serial PRIMARY KEY, v int)");
        String key = "rollback-seq-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO drawn (v) VALUES (?)", 0);
            c.rollback(); // warm-up: draws id 1
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            insert(c, "INSERT INTO drawn (v) VALUES (?)", 1);
            insert(c, "INSERT INTO drawn (v) VALUES (?)", 2);
            c.rollback(); // draws ids 2 and 3
            assertEquals(2, socket.roundTrips());
            insert(c, "INSERT INTO drawn (v) VALUES (?)", 3);
            c.commit();
        }
        assertEquals(List.of(List.of("4", "3")), db.rows("SELECT id, v FROM drawn"));
    }

    @Test
    void aFailingBufferedWriteSurfacesAtCommitWithTheServersSqlStateAndNothingIsCommitted(TestDatabase db)
            throws Exception {
        db.execute(
                "CREATE TABLE orders (id int PRIMARY KEY, v text)",
                "CREATE TABLE lines (id int PRIMARY KEY)",
                "INSERT INTO orders VALUES (3, 'existing')");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            assertEquals(1, insert(c, "INSERT INTO lines (id) VALUES (?)", 1));
            PreparedStatement ps = c.prepareStatement("INSERT INTO orders (id, v) VALUES (?, ?)");
            for (int id = 1; id <= 5; id++) {
                ps.setInt(1, id);
                ps.setString(2, "new");
                ps.addBatch();
            }
            assertArrayEquals(new int[] {1, 1, 1, 1, 1}, ps.executeBatch());
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("23505", e.getSQLState());
            assertTrue(e.getMessage().contains("INSERT INTO orders (id, v) VALUES (?, ?)"), e.getMessage());
            assertTrue(e.getMessage().contains("batch row 3 of 5"), e.getMessage());
            assertTrue(
                    e.getCause() instanceof org.postgresql.util.PSQLException, "the server's exception is the cause");
            // the connection goes on: a new transaction
            insert(c, "INSERT INTO lines (id) VALUES (?)", 2);
            c.commit();
        }
        assertEquals(List.of(List.of("3", "existing")), db.rows("SELECT id, v FROM orders"));
        assertEquals(List.of(List.of("2")), db.rows("SELECT id FROM lines"));
    }

    @Test
    void aFailingBufferedWriteSurfacesAtTheReadThatSendsItAndAbortsTheTransactionAsBarePgjdbcWould(TestDatabase db)
            throws Exception {
        db.execute("CREATE TABLE checked (id int PRIMARY KEY, n int CHECK (n > 0))");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO checked (id, n) VALUES (?, ?)", 1, 5);
            insert(c, "INSERT INTO checked (id, n) VALUES (?, ?)", 2, -1);
            Statement s = c.createStatement();
            SQLException e = assertThrows(SQLException.class, () -> s.executeQuery("SELECT * FROM checked"));
            assertEquals("23514", e.getSQLState());
            SQLException aborted = assertThrows(SQLException.class, () -> s.executeQuery("SELECT 1"));
            assertEquals("25P02", aborted.getSQLState(), "the transaction is aborted, as after the failed INSERT");
            c.rollback();
            insert(c, "INSERT INTO checked (id, n) VALUES (?, ?)", 3, 1);
            c.commit();
        }
        assertEquals(List.of(List.of("3")), db.rows("SELECT id FROM checked"));
    }

    @Test
    void ddlAndUnanalysableSqlSendTheBufferFirst(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE before_ddl (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO before_ddl (id) VALUES (?)", 1);
            try (Statement s = c.createStatement()) {
                s.execute("CREATE TABLE after_ddl AS SELECT id FROM before_ddl");
                insert(c, "INSERT INTO before_ddl (id) VALUES (?)", 2);
                s.execute("DO $$ BEGIN INSERT INTO after_ddl SELECT id * 10 FROM before_ddl; END $$");
            }
            c.commit();
        }
        assertEquals(
                List.of(List.of("1"), List.of("10"), List.of("20")), db.rows("SELECT id FROM after_ddl ORDER BY id"));
    }

    @Test
    void setAutoCommitTrueCommitsTheBuffer(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE auto_on (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO auto_on (id) VALUES (?)", 1);
            c.setAutoCommit(true);
            assertTrue(c.getAutoCommit());
            assertEquals(List.of(List.of("1")), db.rows("SELECT id FROM auto_on"));
            insert(c, "INSERT INTO auto_on (id) VALUES (?)", 2); // autocommit: sent at once
            assertEquals(List.of(List.of("2")), db.rows("SELECT count(*) FROM auto_on"));
        }
    }

    @Test
    void isolationAndReadOnlyChangesAfterAWriteFailAsInBarePgjdbc(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE iso (id int PRIMARY KEY)");
        for (String mode : List.of("bare", "transaction")) {
            try (Connection c = mode.equals("bare") ? db.bare() : transactional(db, null)) {
                c.setAutoCommit(false);
                c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ); // nothing sent yet: allowed
                insert(c, "INSERT INTO iso (id) VALUES (?)", 1);
                SQLException isolation = assertThrows(
                        SQLException.class, () -> c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE), mode);
                SQLException readOnly = assertThrows(SQLException.class, () -> c.setReadOnly(true), mode);
                assertEquals("25001", isolation.getSQLState(), mode);
                assertEquals("25001", readOnly.getSQLState(), mode);
                c.rollback();
            }
        }
    }

    @Test
    void aReadOnlyTransactionRejectsTheInsertAtOnce(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE ro (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setReadOnly(true);
            c.setAutoCommit(false);
            SQLException e = assertThrows(SQLException.class, () -> insert(c, "INSERT INTO ro (id) VALUES (?)", 1));
            assertEquals("25006", e.getSQLState());
            c.rollback();
        }
    }

    @Test
    void unwrappingThePgjdbcConnectionSendsTheBufferSoCopyManagerSeesTheRows(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE copied (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO copied (id) VALUES (?)", 41);
            StringWriter out = new StringWriter();
            c.unwrap(PGConnection.class).getCopyAPI().copyOut("COPY copied TO STDOUT", out);
            assertEquals("41\n", out.toString());
            c.rollback();
        }
        assertEquals(List.of(List.of("0")), db.rows("SELECT count(*) FROM copied"));
    }

    @Test
    void closingWithAnOpenTransactionKeepsNothing(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE closed (id int PRIMARY KEY)", "INSERT INTO closed VALUES (1)");
        Connection c = transactional(db, null);
        c.setAutoCommit(false);
        insert(c, "INSERT INTO closed (id) VALUES (?)", 1); // would fail: never reported, never kept
        insert(c, "INSERT INTO closed (id) VALUES (?)", 2);
        c.close();
        assertEquals(List.of(List.of("1")), db.rows("SELECT id FROM closed"));
    }

    @Test
    void theBufferIsSentWhenItReachesMaxBufferedRows(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE bounded (id int PRIMARY KEY)");
        String key = "bounded-" + UUID.randomUUID();
        try (Connection c = transactional(db, key, "flushless.maxBufferedRows=3")) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO bounded (id) VALUES (?)", 0);
            c.rollback(); // warm-up
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            for (int id = 1; id <= 7; id++) {
                insert(c, "INSERT INTO bounded (id) VALUES (?)", id);
            }
            assertEquals(2, socket.roundTrips(), "rows 1-3 and 4-6 were sent when the bound was reached");
            c.commit();
            assertEquals(3, socket.roundTrips());
        }
        assertEquals(List.of(List.of("7")), db.rows("SELECT count(*) FROM bounded"));
    }

    @Test
    void aCountOtherThanTheAcknowledgedOneFailsTheTransaction(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE skipped (id int PRIMARY KEY)",
                "CREATE FUNCTION skip_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            insert(c, "INSERT INTO skipped (id) VALUES (?)", 1);
            c.commit(); // the table's facts are now cached: no trigger
            try (Connection other = db.bare(); // another program: the driver is not told (db.execute would tell it)
                    Statement s = other.createStatement()) {
                s.execute("CREATE TRIGGER skipper BEFORE INSERT ON skipped FOR EACH ROW WHEN (NEW.id = 3)"
                        + " EXECUTE FUNCTION skip_row()");
            }
            insert(c, "INSERT INTO skipped (id) VALUES (?)", 2);
            insert(c, "INSERT INTO skipped (id) VALUES (?)", 3); // acknowledged 1; the trigger will make it 0
            SQLException e = assertThrows(SQLException.class, c::commit);
            assertEquals("XX000", e.getSQLState());
            assertTrue(e.getMessage().contains("different number of rows"), e.getMessage());
            insert(c, "INSERT INTO skipped (id) VALUES (?)", 4); // the table is read again: a barrier now
            c.commit();
        }
        assertEquals(List.of(List.of("1"), List.of("4")), db.rows("SELECT id FROM skipped ORDER BY id"));
    }

    @Test
    void statementBatchesAndPlainStatementInsertsAreBuffered(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE t1 (id int PRIMARY KEY)", "CREATE TABLE t2 (id int PRIMARY KEY, j jsonb)");
        String key = "statements-" + UUID.randomUUID();
        try (Connection c = transactional(db, key)) {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO t1 (id) VALUES (0)");
                s.executeUpdate("INSERT INTO t2 (id, j) VALUES (0, '{}')");
                c.commit(); // warm-up
                RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
                socket.reset();
                assertEquals(1, s.executeUpdate("INSERT INTO t1 (id) VALUES (1)"));
                assertFalse(s.execute("INSERT INTO t2 (id, j) VALUES (1, '{\"a\": 1}')"));
                assertEquals(1, s.getUpdateCount());
                s.addBatch("INSERT INTO t1 (id) VALUES (2)");
                s.addBatch("INSERT INTO t2 (id, j) VALUES (2, '{\"b\": 2}')");
                assertArrayEquals(new int[] {1, 1}, s.executeBatch());
                assertEquals(0, socket.roundTrips());
                try (ResultSet rs = s.executeQuery("SELECT count(*) FROM t2 WHERE j ? 'b'")) {
                    rs.next();
                    assertEquals(1, rs.getInt(1), "a ? in a Statement's text stays an operator");
                }
                c.commit();
            }
        }
        assertEquals(
                List.of(List.of("3", "3")), db.rows("SELECT (SELECT count(*) FROM t1), (SELECT count(*) FROM t2)"));
    }

    @Test
    void autocommitKeepsTheBatchModeBehaviour(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE auto (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            insert(c, "INSERT INTO auto (id) VALUES (?)", 1);
            assertEquals(List.of(List.of("1")), db.rows("SELECT id FROM auto"), "sent and committed at once");
        }
    }

    /**
     * Savepoint-and-continue (pgjdbc's Jdbc3SavepointTest#continueAfterError, Spring's NESTED propagation): a write
     * inside an open savepoint runs at once, so its error is raised by its own call, as pgjdbc's PSQLException with the
     * server's details, and the application rolls back to the savepoint and goes on; the other rows commit. The same
     * with a savepoint set as SQL text, and with pgjdbc's autosave, which rolls a failed statement back by itself.
     */
    @Test
    void aWriteInsideASavepointFailsAtOnceAndTheTransactionGoesOn(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE sp_continue (id int PRIMARY KEY, v text)");
        for (String variant : new String[] {"setSavepoint", "SQL SAVEPOINT", "autosave=always"}) {
            for (String mode : new String[] {"bare", "transaction"}) {
                db.execute("TRUNCATE sp_continue");
                Properties properties = db.credentials();
                if (variant.startsWith("autosave")) {
                    properties.setProperty("autosave", "always");
                }
                String url = mode.equals("bare") ? db.pgjdbcUrl() : db.flushlessUrl("flushless.mode=transaction");
                try (Connection c = DriverManager.getConnection(url, properties);
                        Statement s = c.createStatement()) {
                    c.setAutoCommit(false);
                    assertEquals(1, insert(c, "INSERT INTO sp_continue (id, v) VALUES (?, ?)", 1, "one"));
                    Savepoint savepoint = variant.equals("setSavepoint") ? c.setSavepoint() : null;
                    if (variant.equals("SQL SAVEPOINT")) {
                        s.execute("SAVEPOINT before_duplicate");
                    }
                    SQLException e = assertThrows(
                            SQLException.class,
                            () -> insert(c, "INSERT INTO sp_continue (id, v) VALUES (?, ?)", 1, "again"),
                            variant + " " + mode);
                    assertEquals("23505", e.getSQLState());
                    org.postgresql.util.PSQLException pg = assertInstanceOf(org.postgresql.util.PSQLException.class, e);
                    assertEquals("sp_continue_pkey", pg.getServerErrorMessage().getConstraint());
                    if (savepoint != null) {
                        c.rollback(savepoint);
                    } else if (variant.equals("SQL SAVEPOINT")) {
                        s.execute("ROLLBACK TO SAVEPOINT before_duplicate");
                    }
                    assertEquals(1, insert(c, "INSERT INTO sp_continue (id, v) VALUES (?, ?)", 2, "two"));
                    c.commit();
                }
                assertEquals(
                        List.of(List.of("1", "one"), List.of("2", "two")),
                        db.rows("SELECT id, v FROM sp_continue ORDER BY id"),
                        variant + " " + mode);
            }
        }
    }

    /** Buffering stops only while a savepoint is open: after releaseSavepoint the transaction's INSERTs are buffered again. */
    @Test
    void bufferingResumesWhenTheSavepointIsReleased(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE sp2 (id int PRIMARY KEY)");
        try (Connection c = transactional(db, null)) {
            c.setAutoCommit(false);
            Savepoint savepoint = c.setSavepoint();
            insert(c, "INSERT INTO sp2 (id) VALUES (?)", 1);
            assertEquals(
                    0,
                    dev.flushless.jdbc.wrapper.WrapperInternals.bufferedRows(c),
                    "inside the savepoint: sent at once");
            Savepoint inner = c.setSavepoint();
            c.rollback(inner);
            insert(c, "INSERT INTO sp2 (id) VALUES (?)", 2);
            assertEquals(
                    0,
                    dev.flushless.jdbc.wrapper.WrapperInternals.bufferedRows(c),
                    "the outer savepoint is still open");
            c.releaseSavepoint(savepoint);
            insert(c, "INSERT INTO sp2 (id) VALUES (?)", 3);
            assertEquals(1, dev.flushless.jdbc.wrapper.WrapperInternals.bufferedRows(c), "no savepoint open: buffered");
            c.commit();
        }
        assertEquals(List.of(List.of("1"), List.of("2"), List.of("3")), db.rows("SELECT id FROM sp2 ORDER BY id"));
    }

    /**
     * A large object as the transaction's first parameter: pgjdbc creates it at once, inside a transaction by its own
     * autocommit setting, which Flushless keeps on until something is sent; the server transaction is opened first.
     */
    @Test
    void aLargeObjectParameterOpensTheServerTransaction(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE blobs (id int PRIMARY KEY, b oid)");
        for (String mode : new String[] {"bare", "transaction"}) {
            db.execute("TRUNCATE blobs");
            String url = mode.equals("bare") ? db.pgjdbcUrl() : db.flushlessUrl("flushless.mode=transaction");
            try (Connection c = DriverManager.getConnection(url, db.credentials());
                    PreparedStatement ps = c.prepareStatement("INSERT INTO blobs (id, b) VALUES (?, ?)")) {
                c.setAutoCommit(false);
                ps.setBlob(2, new java.io.ByteArrayInputStream(new byte[] {1, 2, 3}));
                ps.setInt(1, 1);
                assertEquals(1, ps.executeUpdate(), mode);
                c.commit();
            }
            assertEquals(List.of(List.of("1")), db.rows("SELECT id FROM blobs WHERE b IS NOT NULL"), mode);
        }
    }

    /**
     * A buffered batch's error, raised later (deviation 1), keeps pgjdbc's class: a BatchUpdateException with the
     * update counts pgjdbc's executeBatch gave and the server's PSQLException as its next exception and cause.
     */
    @Test
    void aBufferedBatchErrorKeepsPgjdbcsClassCountsAndServerDetails(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE bb (id int PRIMARY KEY)", "INSERT INTO bb VALUES (2)");
        try (Connection c = transactional(db, null);
                PreparedStatement ps = c.prepareStatement("INSERT INTO bb (id) VALUES (?)")) {
            c.setAutoCommit(false);
            for (int id = 1; id <= 3; id++) {
                ps.setInt(1, id);
                ps.addBatch();
            }
            assertArrayEquals(new int[] {1, 1, 1}, ps.executeBatch());
            java.sql.BatchUpdateException e = assertThrows(java.sql.BatchUpdateException.class, c::commit);
            assertEquals("23505", e.getSQLState());
            assertTrue(e.getMessage().contains("batch row 2 of 3"), e.getMessage());
            org.postgresql.util.PSQLException next =
                    assertInstanceOf(org.postgresql.util.PSQLException.class, e.getNextException());
            assertEquals("bb_pkey", next.getServerErrorMessage().getConstraint());
            assertEquals(3, e.getUpdateCounts().length, "pgjdbc's counts for the batch");
        }
        assertEquals(List.of(List.of("2")), db.rows("SELECT id FROM bb"));
    }
}
