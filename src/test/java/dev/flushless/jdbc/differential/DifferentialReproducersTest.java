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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Minimal reproducers of driver bugs the differential tester (issue #8) found, kept as regular tests: each runs
 * the shrunk program on bare pgjdbc and through Flushless in every mode and compares what the application saw.
 * Each fixed bug's test asserts that every mode sees what bare pgjdbc does; the two tests of documented deviation 4
 * (sequence values drawn by a failed coalesced attempt) pin what each mode sees instead.
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
    private static void sameEverywhere(TestDatabase db, String ddl, String expected, Action action)
            throws SQLException {
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
                + (e instanceof java.sql.BatchUpdateException b
                        ? " counts=" + Arrays.toString(b.getUpdateCounts())
                        : "");
    }

    /**
     * {@code flushless.mode=transaction}: a {@code PreparedStatement} batch of one row that rides along with buffered
     * INSERTs and fails on its own was re-run as a single execution, so {@code executeBatch()} threw pgjdbc's
     * {@code PSQLException} instead of its {@code BatchUpdateException}.
     */
    @Test
    void oneRowBatchRidingAlongWithBufferedInsertsFailsWithBatchUpdateException(TestDatabase db) throws SQLException {
        sameEverywhere(
                db,
                "CREATE TABLE repro (id int PRIMARY KEY, c int CHECK (c >= 0))",
                "1 BatchUpdateException[23514] counts=[-3]",
                c -> {
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
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO repro (id) VALUES (?) ON CONFLICT (id) DO NOTHING", new String[] {"id", "v"})) {
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

    /** Runs {@code setup}, then {@code sql} as a batch of {@code rows}: its outcome, then the table's rows by {@code orderBy}. */
    private static String batchThenRows(Connection c, List<String> setup, String sql, Object[][] rows, String orderBy)
            throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String statement : setup) {
                s.execute(statement);
            }
        }
        return batch(c, sql, rows) + " "
                + rows(c.createStatement().executeQuery("SELECT * FROM repro ORDER BY " + orderBy));
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
     * Fixed (an UPDATE batch that sets a column of a unique key and repeats a key runs as sent): the batch fails as
     * sent at its second row (id 2 takes 'p' while id 1 still holds it); coalesced, the repeat of id 2 went to a
     * later statement, after id 1 had moved to 'w', and the batch succeeded. PostgreSQL checks a non-deferrable
     * unique index as each row changes, so the order in which rows change decides the outcome.
     */
    @Test
    void updateBatchChangingAUniqueColumnFailsAsInBatchOrder(TestDatabase db) throws SQLException {
        sameEverywhere(
                db,
                "CREATE TABLE repro (id int PRIMARY KEY, code varchar(6) UNIQUE)",
                "BatchUpdateException[23505] counts=[-3, -3, -3] [1/p, 2/q]",
                c -> batchThenRows(
                        c,
                        List.of("INSERT INTO repro VALUES (1, 'p'), (2, 'q')"),
                        "UPDATE repro SET code = ? WHERE id = ?",
                        new Object[][] {{"z", 2}, {"p", 2}, {"w", 1}},
                        "id"));
    }

    /**
     * Within one coalesced UPDATE (distinct keys): row 1 takes 'p', which row 2 gives up only afterwards, so row by
     * row the batch fails at row 1. One UPDATE changes its rows in join order, here a merge join's (the session
     * disables the others), which changes id 1 first, so the statement alone would succeed; it checks the batch
     * order itself and fails, and the batch runs as sent.
     */
    @Test
    void updateBatchTakingAValueALaterRowGivesUpFails(TestDatabase db) throws SQLException {
        sameEverywhere(
                db,
                "CREATE TABLE repro (id int PRIMARY KEY, code text UNIQUE)",
                "BatchUpdateException[23505] counts=[-3, -3] [1/p, 2/q]",
                c -> batchThenRows(
                        c,
                        List.of(
                                "INSERT INTO repro VALUES (1, 'p'), (2, 'q')",
                                "SET enable_hashjoin = off",
                                "SET enable_nestloop = off"),
                        "UPDATE repro SET code = ? WHERE id = ?",
                        new Object[][] {{"p", 2}, {"z", 1}},
                        "id"));
    }

    /** The mirror image: row 2 takes the value row 1 gave up, which succeeds row by row, and coalesced. */
    @Test
    void updateBatchTakingAValueAnEarlierRowGaveUpSucceeds(TestDatabase db) throws SQLException {
        sameEverywhere(
                db,
                "CREATE TABLE repro (id int PRIMARY KEY, code text UNIQUE, n int, UNIQUE (n, code))",
                "[1, 1, 0] [1/r/5, 2/q/6]",
                c -> batchThenRows(
                        c,
                        List.of("INSERT INTO repro VALUES (1, 'q', 5), (2, 'p', 6)"),
                        "UPDATE repro SET code = ? WHERE id = ?",
                        new Object[][] {{"r", 1}, {"q", 2}, {"x", 3}},
                        "id"));
    }

    /**
     * Fixed (an upsert batch whose DO UPDATE sets a column of a unique key runs as sent when its rows need statements
     * out of batch order): the repeat of key 1 went to a later statement, after key 2 had given up 'y', so the batch
     * succeeded where pgjdbc fails at its second row. (Within one statement an upsert handles its rows in VALUES
     * order.)
     */
    @Test
    void upsertBatchChangingAUniqueColumnFailsAsInBatchOrder(TestDatabase db) throws SQLException {
        sameEverywhere(
                db,
                "CREATE TABLE repro (k int PRIMARY KEY, code varchar(6) UNIQUE)",
                "BatchUpdateException[23505] counts=[-3, -3, -3] [2/y]",
                c -> batchThenRows(
                        c,
                        List.of("INSERT INTO repro VALUES (2, 'y')"),
                        "INSERT INTO repro (k, code) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET code = EXCLUDED.code",
                        new Object[][] {{1, "x"}, {1, "y"}, {2, "w"}},
                        "k"));
    }

    /**
     * ON CONFLICT draws a sequence default for every proposed row. A DO UPDATE batch that repeats a key sent the
     * repeat in a later statement, so the rows after it drew their ids first and were stored with other ids than
     * row by row. Such a batch now runs as sent when the table draws from a sequence.
     */
    @Test
    void upsertBatchWithARepeatedKeyStoresTheIdsOfRowByRow(TestDatabase db) throws SQLException {
        sameEverywhere(
                db, "CREATE TABLE repro (id serial, k text PRIMARY KEY, v int)", "[1, 1, 1] [1/a/2, 3/b/3]", c -> {
                    String counts = batch(
                            c,
                            "INSERT INTO repro (k, v) VALUES (?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v",
                            new Object[][] {{"a", 1}, {"a", 2}, {"b", 3}});
                    return counts + " "
                            + rows(c.createStatement().executeQuery("SELECT id, k, v FROM repro ORDER BY id"));
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

    /** Runs {@code action} on bare pgjdbc and in each mode; {@code expected} holds bare's answer, then off, batch, transaction. */
    private static void observedPerMode(TestDatabase db, String ddl, Action action, String... expected)
            throws SQLException {
        assertEquals(expected[0], observe(db, null, ddl, action), "bare pgjdbc");
        for (int m = 0; m < MODES.length; m++) {
            assertEquals(expected[m + 1], observe(db, MODES[m], ddl, action), "flushless.mode=" + MODES[m]);
        }
    }

    /**
     * Documented deviation 4 (docs/semantics.md), pinned: a coalesced INSERT batch that fails draws values from the
     * table's sequence for the rows it processed (ids 1 and 2) before it is undone, and its re-run as sent draws
     * again (3 and 4), so the next id is 5 where bare pgjdbc's is 3. Sequences are not transactional: the undo cannot
     * give the values back, and resetting the sequence is not safe next to other sessions. Errors and counts are
     * pgjdbc's.
     */
    @Test
    void failedBatchMovesLaterGeneratedKeysByTheValuesItsAttemptDrew(TestDatabase db) throws SQLException {
        observedPerMode(
                db,
                "CREATE TABLE repro (id serial PRIMARY KEY, v int CHECK (v >= 0))",
                c -> {
                    String seen = batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {-1}, {2}});
                    return seen + " " + insertReturningId(c, "INSERT INTO repro (v) VALUES (5)");
                },
                "BatchUpdateException[23514] counts=[-3, -3, -3] id 3",
                "BatchUpdateException[23514] counts=[-3, -3, -3] id 3",
                "BatchUpdateException[23514] counts=[-3, -3, -3] id 5",
                "BatchUpdateException[23514] counts=[-3, -3, -3] id 5");
    }

    /**
     * Documented deviation 4, its visible outcome, pinned: an application that inserted an explicit id (2) into the
     * sequence's future range. Bare pgjdbc's batch draws 1 and 2 and collides; the coalesced attempt collides the
     * same way, but its re-run as sent draws 3 and 4 and succeeds. Bare pgjdbc's outcome here depends on the
     * sequence's position, which every other session moves too.
     */
    @Test
    void batchCollidingWithAnExplicitIdInTheSequencesRangeSucceedsOnItsReRun(TestDatabase db) throws SQLException {
        observedPerMode(
                db,
                "CREATE TABLE repro (id serial PRIMARY KEY, v int)",
                c -> {
                    try (Statement s = c.createStatement()) {
                        s.executeUpdate("INSERT INTO repro (id, v) VALUES (2, 0)");
                    }
                    return batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {2}});
                },
                "BatchUpdateException[23505] counts=[-3, -3]",
                "BatchUpdateException[23505] counts=[-3, -3]",
                "[1, 1]",
                "[1, 1]");
    }

    /**
     * {@code flushless.exactSequences=true} takes deviation 4 away: INSERTs into a table that draws ids from a
     * sequence run as sent in every mode, so both programs above see exactly what bare pgjdbc sees, and the batch and
     * transaction modes count the reason.
     */
    @Test
    void exactSequencesDrawsWhatBarePgjdbcDraws(TestDatabase db) throws SQLException {
        Action failedBatch = c -> batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {-1}, {2}}) + " "
                + insertReturningId(c, "INSERT INTO repro (v) VALUES (5)");
        Action collision = c -> {
            try (Statement s = c.createStatement()) {
                s.executeUpdate("INSERT INTO repro (id, v) VALUES (2, 0)");
            }
            return batch(c, "INSERT INTO repro (v) VALUES (?)", new Object[][] {{1}, {2}});
        };
        String ddl = "CREATE TABLE repro (id serial PRIMARY KEY, v int CHECK (v >= 0))";
        for (Action action : List.of(failedBatch, collision)) {
            String bare = observe(db, null, ddl, action);
            for (String mode : MODES) {
                db.execute("DROP TABLE IF EXISTS repro CASCADE", ddl);
                try (Connection c = java.sql.DriverManager.getConnection(
                        db.flushlessUrl("flushless.mode=" + mode + "&flushless.exactSequences=true"),
                        db.credentials())) {
                    assertEquals(bare, action.run(c), "flushless.mode=" + mode);
                    Long ranAsSent = c.unwrap(dev.flushless.jdbc.FlushlessConnection.class)
                            .flushlessStats()
                            .fallbacks()
                            .get(dev.flushless.jdbc.FallbackReason.EXACT_SEQUENCES.code());
                    assertEquals(
                            mode.equals("off") ? null : Long.valueOf(action == failedBatch ? 3 : 2), ranAsSent, mode);
                }
            }
        }
    }

    /**
     * Fixed ({@code mode=transaction}): {@code rollback()} discarded buffered INSERTs unsent, so the values bare
     * pgjdbc's INSERTs drew from the sequence were never drawn, and the next generated key was smaller than bare
     * pgjdbc's. rollback() now sends them first when their table draws from a sequence.
     */
    @Test
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
        sameEverywhere(
                db,
                "CREATE TABLE repro (id int PRIMARY KEY, code varchar(6))",
                "BatchUpdateException[22001] counts=[-3, -3]",
                c -> batch(c, "UPDATE repro SET code = ? WHERE id = ?", new Object[][] {{"abcdefgh", 1}, {"abcdefgh", 2}
                }));
    }
}
