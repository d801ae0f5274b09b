package dev.flushless.jdbc.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
import org.junit.jupiter.api.Disabled;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Minimal reproducers of driver bugs the differential tester (issue #8) found, kept as regular tests: each runs
 * the shrunk program on bare pgjdbc and through Flushless in every mode and compares what the application saw.
 * The {@code @Disabled} ones are bugs that are not fixed (a design decision, or more than a small change, is
 * needed); each says why, and asserts what bare pgjdbc does, so it passes once the bug is fixed.
 */
@ExtendWith(PostgresExtension.class)
class DifferentialReproducersTest {

    private static final String[] MODES = {"off", "batch", "transaction"};

    /** A JDBC action on a fresh table; returns what the application observed. */
    @FunctionalInterface
    interface Action {
        String run(Connection c) throws SQLException;
    }

    private static String observe(TestDatabase db, String mode, String ddl, Action action) throws SQLException {
        db.execute("DROP TABLE IF EXISTS repro CASCADE", ddl);
        try (Connection c = mode == null ? db.bare() : db.flushless(mode)) {
            return action.run(c);
        }
    }

    /** Runs {@code action} on bare pgjdbc (which must see {@code expected}) and through Flushless in every mode. */
    private static void sameEverywhere(TestDatabase db, String ddl, String expected, Action action) throws SQLException {
        String bare = observe(db, null, ddl, action);
        assertEquals(expected, bare, "bare pgjdbc");
        for (String mode : MODES) {
            assertEquals(bare, observe(db, mode, ddl, action), "flushless.mode=" + mode);
        }
    }

    private static String rows(ResultSet rs) throws SQLException {
        List<String> rows = new ArrayList<>();
        try (rs) {
            while (rs.next()) {
                List<String> row = new ArrayList<>();
                for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                    row.add(rs.getString(i));
                }
                rows.add(String.join("/", row));
            }
        }
        return rows.toString();
    }

    /**
     * An {@code ON CONFLICT DO UPDATE} batch with {@code RETURN_GENERATED_KEYS} whose key repeats went to a later
     * statement: {@code getGeneratedKeys()} returned the repeat's row after rows that follow it in the batch
     * ([17/1, 14/3, 17/2] instead of pgjdbc's batch order [17/1, 17/2, 14/3]).
     */
    @Test
    void upsertBatchWithARepeatedKeyReturnsGeneratedKeysInBatchOrder(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (k int PRIMARY KEY, v bigint)", "[1, 1, 1] [17/1, 17/2, 14/3]", c -> {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO repro (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
                    Statement.RETURN_GENERATED_KEYS)) {
                int[][] rows = {{17, 1}, {17, 2}, {14, 3}};
                for (int[] row : rows) {
                    ps.setInt(1, row[0]);
                    ps.setLong(2, row[1]);
                    ps.addBatch();
                }
                return Arrays.toString(ps.executeBatch()) + " " + rows(ps.getGeneratedKeys());
            }
        });
    }

    /** What a call raised: exception class, SQLState and, for a batch, its update counts. */
    private static String error(SQLException e) {
        return e.getClass().getSimpleName() + "[" + e.getSQLState() + "]"
                + (e instanceof java.sql.BatchUpdateException b ? " counts=" + Arrays.toString(b.getUpdateCounts()) : "");
    }

    /**
     * {@code flushless.mode=transaction}: a {@code PreparedStatement} batch of one row that rides along with buffered
     * INSERTs and fails on its own was re-run as a single execution, so {@code executeBatch()} threw pgjdbc's
     * {@code PSQLException} instead of its {@code BatchUpdateException}.
     */
    @Test
    void oneRowBatchRidingAlongWithBufferedInsertsFailsWithBatchUpdateException(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id int PRIMARY KEY, c int CHECK (c >= 0))",
                "1 BatchUpdateException[23514] counts=[-3]", c -> {
                    StringBuilder seen = new StringBuilder();
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement("INSERT INTO repro (id, c) VALUES (?, ?)")) {
                        ps.setInt(1, 7);
                        ps.setInt(2, 6);
                        seen.append(ps.executeUpdate());
                    }
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO repro (id, c) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET c = EXCLUDED.c")) {
                        ps.setInt(1, 10);
                        ps.setInt(2, -2);
                        ps.addBatch();
                        int[] counts = ps.executeBatch();
                        seen.append(' ').append(Arrays.toString(counts));
                    } catch (SQLException e) {
                        seen.append(' ').append(error(e));
                    }
                    c.rollback();
                    return seen.toString();
                });
    }

    /**
     * Seed 100142 of the long run: a generated-keys upsert batch in which no row writes (every key conflicts, DO
     * NOTHING). pgjdbc keeps the keys of statements that changed rows only, so {@code getGeneratedKeys()} is an
     * empty result set without columns; the coalesced batch returned its statement's empty RETURNING result, with
     * the key columns.
     */
    @Test
    void generatedKeysOfABatchThatWroteNothingHaveNoColumns(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id int PRIMARY KEY, v int)", "[0, 0] columns 0 rows []", c -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO repro VALUES (14, 0)");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO repro (id) VALUES (?) ON CONFLICT (id) DO NOTHING",
                    new String[] {"id", "v"})) {
                for (int i = 0; i < 2; i++) {
                    ps.setInt(1, 14);
                    ps.addBatch();
                }
                String counts = Arrays.toString(ps.executeBatch());
                try (ResultSet keys = ps.getGeneratedKeys()) {
                    return counts + " columns " + keys.getMetaData().getColumnCount() + " rows " + rows(keys);
                }
            }
        });
    }

    private static String batch(Connection c, String sql, Object[][] rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    ps.setObject(i + 1, row[i]);
                }
                ps.addBatch();
            }
            return Arrays.toString(ps.executeBatch());
        } catch (SQLException e) {
            return error(e);
        }
    }

    /**
     * Known bug, not fixed: an UPDATE batch that changes a column of a unique index fails as sent at its second row
     * (id 2 takes 'p' while id 1 still holds it); coalesced, the repeat of id 2 goes to a later statement, after id 1
     * has moved to 'w', and the batch succeeds. PostgreSQL checks a non-deferrable unique index row by row, against
     * the rows as they are when each is changed, so the order in which rows are changed decides the outcome, and a
     * coalesced UPDATE changes them in another order: repeated keys go to later statements, and within one statement
     * rows are visited in join order (heap order, typically), not batch order. A failure is re-run as sent; a
     * success pgjdbc would not have had is kept.
     *
     * <p>The simple fix, falling back whenever the SET list names a column of a unique index (or exclusion
     * constraint), is correct but gives up coalescing Hibernate's default UPDATEs (every column, e.g. a unique
     * {@code sku} or {@code email} set to its unchanged value) on any table with a unique column, the demo's product
     * and customer updates among them; a precise fix would make the coalesced statement fail (and so re-run as sent)
     * only when a row's new value equals the old value of another row of the batch. Left to a decision; the
     * generator avoids the shape unless {@code -Dflushless.difftest.knownBugs=true}.
     */
    @Test
    @Disabled("bug: a coalesced UPDATE batch changing a unique column can succeed where pgjdbc's row-by-row order fails")
    void updateBatchChangingAUniqueColumnFailsAsInBatchOrder(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id int PRIMARY KEY, code varchar(6) UNIQUE)",
                "BatchUpdateException[23505] counts=[-3, -3, -3] [1/p, 2/q]", c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO repro VALUES (1, 'p'), (2, 'q')");
                    }
                    return batch(c, "UPDATE repro SET code = ? WHERE id = ?", new Object[][] {{"z", 2}, {"p", 2}, {"w", 1}})
                            + " " + rows(c.createStatement().executeQuery("SELECT * FROM repro ORDER BY id"));
                });
    }

    /**
     * Known bug, not fixed, the same for an upsert whose DO UPDATE changes a unique column: the repeat of key 1 goes
     * to a later statement, after key 2 has given up 'y', so the batch succeeds where pgjdbc fails at its second
     * row. (Within one statement an upsert handles its rows in VALUES order, so only batches whose repeated keys
     * need later statements are affected.)
     */
    @Test
    @Disabled("bug: an upsert batch whose DO UPDATE changes a unique column can succeed where pgjdbc's order fails")
    void upsertBatchChangingAUniqueColumnFailsAsInBatchOrder(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (k int PRIMARY KEY, code varchar(6) UNIQUE)",
                "BatchUpdateException[23505] counts=[-3, -3, -3] [2/y]", c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO repro VALUES (2, 'y')");
                    }
                    return batch(c, "INSERT INTO repro (k, code) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET code = EXCLUDED.code",
                            new Object[][] {{1, "x"}, {1, "y"}, {2, "w"}})
                            + " " + rows(c.createStatement().executeQuery("SELECT * FROM repro ORDER BY k"));
                });
    }

    private static String insertReturningId(Connection c, String sql) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql, Statement.RETURN_GENERATED_KEYS)) {
            ps.executeUpdate();
            try (ResultSet keys = ps.getGeneratedKeys()) {
                keys.next();
                return "id " + keys.getInt("id");
            }
        }
    }

    /**
     * Known bug, not fixed: a coalesced INSERT batch that fails draws values from the table's sequence before it is
     * undone, and its re-run as sent draws them again, so every later generated key differs from bare pgjdbc's
     * (sequences are not transactional: the undo cannot give the values back, and resetting the sequence is not safe
     * next to other sessions). The same holds for a failed flush or ride-along in {@code mode=transaction}. It needs
     * a decision (document it as a deviation, or do not coalesce INSERTs that draw from a sequence); the
     * differential tester models it (and reports how often) unless {@code -Dflushless.difftest.strictSequences=true}.
     */
    @Test
    @Disabled("bug: a failed coalesced INSERT batch draws sequence values twice (attempt and re-run), later keys differ")
    void failedBatchDoesNotMoveLaterGeneratedKeys(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id serial PRIMARY KEY, v int CHECK (v >= 0))",
                "BatchUpdateException[23514] counts=[-3, -3, -3] id 3", c -> {
                    String seen = batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {-1}, {2}});
                    return seen + " " + insertReturningId(c, "INSERT INTO repro (v) VALUES (5)");
                });
    }

    /**
     * Known bug, not fixed, the same cause with a visible outcome: the re-run as sent of a failed coalesced batch
     * draws other ids than bare pgjdbc's execution did, so a batch that bare pgjdbc rejects (its second row draws an
     * id that was inserted explicitly) is accepted. In {@code mode=transaction} the same makes an UPDATE riding along
     * with buffered INSERTs match no row: the failed round trip drew ids 1 to 3, the re-run gave the rows 4 to 6.
     */
    @Test
    @Disabled("bug: the re-run of a failed coalesced batch draws other sequence values, so it can succeed where pgjdbc fails")
    void batchRejectedByPgjdbcIsNotAcceptedAfterItsCoalescedAttemptFailed(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id serial PRIMARY KEY, v int)", "BatchUpdateException[23505] counts=[-3, -3]",
                c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO repro (id, v) VALUES (2, 0)");
                    }
                    return batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {2}});
                });
    }

    /**
     * Known bug, not fixed ({@code mode=transaction}): {@code rollback()} discards buffered INSERTs unsent, so the
     * values bare pgjdbc's INSERTs drew from the sequence are never drawn, and the next generated key is smaller
     * than bare pgjdbc's. (The documentation says rollback() discards the buffer; the effect on sequences is not in
     * the list of deviations.)
     */
    @Test
    @Disabled("bug: mode=transaction rollback() discards buffered INSERTs unsent, so their sequence values are not drawn")
    void rolledBackBufferedInsertsDrawTheirSequenceValues(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id serial PRIMARY KEY, v int)", "id 2", c -> {
            c.setAutoCommit(false);
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO repro (v) VALUES (1)");
            }
            c.rollback();
            String id = insertReturningId(c, "INSERT INTO repro (v) VALUES (2)");
            c.commit();
            return id;
        });
    }

    /**
     * Fixed (the batch runs as sent when a SET value is longer than its column allows): bare pgjdbc binds each row's values as constants, and PostgreSQL applies the column's
     * type modifier to a constant SET value when it plans the statement, so {@code UPDATE ... SET code = 'abcdefgh'}
     * on a {@code varchar(6)} fails with 22001 even when no row matches (with a custom plan, which pgjdbc's first
     * executions get; a generic plan would not fail). The coalesced UPDATE takes the value from a VALUES/unnest row
     * joined to the table, coerced only for rows it updates, so the batch succeeded with counts [0, 0]. (An
     * explicit cast to varchar(6) would truncate instead of failing.)
     */
    @Test
    void updateBatchWithATooLongValueFailsEvenWhenNoRowMatches(TestDatabase db) throws SQLException {
        sameEverywhere(db, "CREATE TABLE repro (id int PRIMARY KEY, code varchar(6))", "BatchUpdateException[22001] counts=[-3, -3]",
                c -> batch(c, "UPDATE repro SET code = ? WHERE id = ?", new Object[][] {{"abcdefgh", 1}, {"abcdefgh", 2}}));
    }
}
