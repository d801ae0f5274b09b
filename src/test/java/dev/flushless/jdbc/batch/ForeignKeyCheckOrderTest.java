package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Batch mode keeps the foreign-key order the application used ({@link ForeignKeyOrder}): PostgreSQL checks foreign
 * keys at the end of each statement, so one coalesced statement would accept a child row before its parent, or a
 * parent deleted before its children, which bare pgjdbc's per-row statements reject with 23503. Each case runs
 * through bare pgjdbc and Flushless (batch mode) and compares counts, the error and the final rows; the report
 * shows that the safe orders are still coalesced.
 */
@ExtendWith(PostgresExtension.class)
class ForeignKeyCheckOrderTest {

    private static final String[] SCHEMA = {
        "DROP TABLE IF EXISTS child, parent, node",
        "CREATE TABLE parent (id int PRIMARY KEY, name text)",
        "CREATE TABLE child (id int PRIMARY KEY, parent_id int REFERENCES parent (id), name text)",
        "CREATE TABLE node (id int PRIMARY KEY, parent_id int REFERENCES node (id), name text)",
        "INSERT INTO parent VALUES (10, 'existing')",
        "INSERT INTO node VALUES (10, NULL, 'existing')"
    };

    private static final String ROWS = "SELECT 'parent', id, NULL::int, name FROM parent UNION ALL"
            + " SELECT 'child', id, parent_id, name FROM child UNION ALL SELECT 'node', id, parent_id, name FROM node"
            + " ORDER BY 1, 2";

    @Test
    void aStatementBatchWithAChildBeforeItsParentFailsAsUnderBarePgjdbc(TestDatabase db) throws SQLException {
        Outcome outcome = same(
                db,
                List.of(),
                c -> textBatch(
                        c,
                        "INSERT INTO child VALUES (1, 2, 'c')",
                        "INSERT INTO parent VALUES (1, 'p')",
                        "INSERT INTO parent VALUES (2, 'q')"));
        assertEquals("23503", outcome.sqlState, outcome.toString());
    }

    @Test
    void aStatementBatchWithParentsFirstIsStillOneStatement(TestDatabase db) throws SQLException {
        Outcome outcome = same(
                db,
                List.of(),
                c -> textBatch(
                        c,
                        "INSERT INTO parent VALUES (1, 'p')",
                        "INSERT INTO child VALUES (1, 1, 'c')",
                        "DELETE FROM child WHERE id = 1",
                        "DELETE FROM parent WHERE id = 1"));
        assertEquals("[1, 1, 1, 1]", outcome.counts);
        assertTrue(
                outcome.report.rewrites().keySet().stream().anyMatch(k -> k.startsWith("statement-chain")),
                outcome.report.toString());
    }

    @Test
    void aStatementBatchDeletingAParentBeforeItsChildrenFailsAsUnderBarePgjdbc(TestDatabase db) throws SQLException {
        Outcome outcome = same(
                db,
                List.of("INSERT INTO child VALUES (5, 10, 'of existing')"),
                c -> textBatch(c, "DELETE FROM parent WHERE id = 10", "DELETE FROM child WHERE id = 5"));
        assertEquals("23503", outcome.sqlState, outcome.toString());
    }

    @Test
    void aSelfReferencingBatchWithAChildBeforeItsParentFailsAsUnderBarePgjdbc(TestDatabase db) throws SQLException {
        Outcome outcome = same(db, List.of(), c -> nodes(c, new Integer[][] {{2, 1}, {1, null}, {3, 10}}));
        assertEquals("23503", outcome.sqlState, outcome.toString());
    }

    @Test
    void aSelfReferencingBatchInTreeOrderIsStillCoalesced(TestDatabase db) throws SQLException {
        Outcome outcome =
                same(db, List.of(), c -> nodes(c, new Integer[][] {{1, null}, {2, 1}, {3, 2}, {4, 10}, {5, 5}}));
        assertEquals("[1, 1, 1, 1, 1]", outcome.counts);
        assertTrue(outcome.report.fallbacks().isEmpty(), outcome.report.toString());
        assertEquals(1, outcome.report.coalescedRuns(), outcome.report.toString());
        if (outcome.nodeInserts >= 0) {
            assertEquals(1, outcome.nodeInserts, "the server ran one INSERT for the five rows");
        }
    }

    @Test
    void aDeleteBatchOnASelfReferencingTableRunsAsSent(TestDatabase db) throws SQLException {
        Outcome outcome = same(db, List.of("INSERT INTO node VALUES (11, 10, 'child of existing')"), c -> {
            try (PreparedStatement ps = c.prepareStatement("DELETE FROM node WHERE id = ?")) {
                for (int id : new int[] {10, 11}) {
                    ps.setInt(1, id);
                    ps.addBatch();
                }
                return Arrays.toString(ps.executeBatch());
            }
        });
        assertEquals("23503", outcome.sqlState, outcome.toString());
        assertTrue(
                outcome.report.fallbacks().containsKey(dev.flushless.jdbc.FallbackReason.FOREIGN_KEY_ORDER.code()),
                outcome.report.toString());
    }

    @Test
    void anUpdateBatchThatMovesAReferencedKeyAwayAndBackRunsAsSent(TestDatabase db) throws SQLException {
        List<String> setup =
                List.of("INSERT INTO child VALUES (5, 10, 'of existing')", "INSERT INTO parent VALUES (11, 'other')");
        // bare: 10 -> 12 fails at once (child 5 references 10); coalesced, 11 -> 10 would give the key back first
        Outcome outcome = same(db, setup, c -> {
            try (PreparedStatement ps = c.prepareStatement("UPDATE parent SET id = ? WHERE name = ?")) {
                ps.setInt(1, 12);
                ps.setString(2, "existing");
                ps.addBatch();
                ps.setInt(1, 10);
                ps.setString(2, "other");
                ps.addBatch();
                return Arrays.toString(ps.executeBatch());
            }
        });
        assertEquals("23503", outcome.sqlState, outcome.toString());
    }

    private static String nodes(Connection c, Integer[][] rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO node (id, parent_id, name) VALUES (?, ?, ?)")) {
            for (Integer[] row : rows) {
                ps.setInt(1, row[0]);
                if (row[1] == null) {
                    ps.setNull(2, Types.INTEGER);
                } else {
                    ps.setInt(2, row[1]);
                }
                ps.setString(3, "n" + row[0]);
                ps.addBatch();
            }
            return Arrays.toString(ps.executeBatch());
        }
    }

    private static String textBatch(Connection c, String... texts) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String text : texts) {
                s.addBatch(text);
            }
            return Arrays.toString(s.executeBatch());
        }
    }

    @FunctionalInterface
    private interface Work {
        String run(Connection c) throws SQLException;
    }

    /** {@code nodeInserts}: INSERTs into node the server ran ({@code pg_stat_statements}; -1 when not tracked). */
    private record Outcome(
            String counts, String sqlState, List<List<String>> rows, FlushlessReport report, long nodeInserts) {}

    /** Runs {@code work} in autocommit through bare pgjdbc and Flushless, each on a fresh schema plus {@code setup}. */
    private static Outcome same(TestDatabase db, List<String> setup, Work work) throws SQLException {
        Outcome bare = run(db, null, setup, work);
        Outcome flushless = run(db, "batch", setup, work);
        assertEquals(bare.counts, flushless.counts, "counts");
        assertEquals(bare.sqlState, flushless.sqlState, "SQLState");
        assertEquals(bare.rows, flushless.rows, "final rows");
        return flushless;
    }

    private static Outcome run(TestDatabase db, String mode, List<String> setup, Work work) throws SQLException {
        db.execute(SCHEMA);
        db.execute(setup.toArray(String[]::new));
        String counts = null;
        String sqlState = null;
        FlushlessReport report = null;
        if (db.hasStatementStats()) {
            db.resetStatementCounts();
        }
        try (Connection c = mode == null ? db.bare() : db.flushless(mode)) {
            try {
                counts = work.run(c);
            } catch (BatchUpdateException e) {
                sqlState = e.getSQLState();
                counts = Arrays.toString(e.getUpdateCounts());
            } catch (SQLException e) {
                sqlState = e.getSQLState();
            }
            if (mode != null) {
                report = c.unwrap(FlushlessConnection.class).report();
            }
        }
        long nodeInserts = db.hasStatementStats() ? db.statementCount("%INSERT INTO node%") : -1;
        return new Outcome(counts, sqlState, db.rows(ROWS), report, nodeInserts);
    }
}
