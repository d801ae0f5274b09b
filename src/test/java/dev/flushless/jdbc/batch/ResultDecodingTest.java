package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Results read after the server completed a coalesced execution. In autocommit that execution's implicit transaction
 * has committed, so a failure to read its results must never be taken for a rolled-back attempt and re-run as sent
 * (which would apply the batch twice).
 */
@ExtendWith(PostgresExtension.class)
class ResultDecodingTest {

    /**
     * Generated keys named {@code uuid} on a conflict target {@code (id)}, with pgjdbc's
     * {@code quoteReturningIdentifiers=false}: the batch runs as sent and gets bare pgjdbc's counts and keys (a
     * substring match once took {@code uuid} for {@code id}, the keys could not be matched after the commit, and the
     * re-run as sent inserted nothing: counts of 0 for rows the first run had inserted).
     */
    @Test
    void upsertKeysThatOnlyContainTheConflictColumnNameRunAsSent(TestDatabase db) throws SQLException {
        List<String> bare = upsertWithKeys(db, null);
        List<String> flushless = upsertWithKeys(db, "flushless.mode=batch");
        assertEquals(bare, flushless);
        assertEquals(
                List.of("[1, 1, 0]", "[u1, u2]", "rows=[[1, u1], [2, u2], [3, u3]]"),
                bare,
                "bare pgjdbc: two new rows and their keys, one conflict");
    }

    private static List<String> upsertWithKeys(TestDatabase db, String settings) throws SQLException {
        db.execute(
                "DROP TABLE IF EXISTS keyed",
                "CREATE TABLE keyed (id int PRIMARY KEY, uuid text)",
                "INSERT INTO keyed VALUES (3, 'u3')");
        Properties properties = db.credentials();
        properties.setProperty("quoteReturningIdentifiers", "false");
        String url = settings == null ? db.pgjdbcUrl() : db.flushlessUrl(settings);
        List<String> out = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(url, properties);
                PreparedStatement ps = c.prepareStatement(
                        "INSERT INTO keyed (id, uuid) VALUES (?, ?) ON CONFLICT (id)" + " DO NOTHING",
                        new String[] {"uuid"})) {
            for (int id = 1; id <= 3; id++) {
                ps.setInt(1, id);
                ps.setString(2, "u" + id);
                ps.addBatch();
            }
            out.add(java.util.Arrays.toString(ps.executeBatch()));
            List<String> keys = new ArrayList<>();
            try (ResultSet rs = ps.getGeneratedKeys()) {
                while (rs.next()) {
                    keys.add(rs.getString("uuid"));
                }
            }
            out.add(keys.toString());
        }
        out.add("rows=" + db.rows("SELECT id, uuid FROM keyed ORDER BY id"));
        return out;
    }

    /**
     * A plan whose returned rows cannot be matched to its batch rows, in autocommit: the server committed the
     * execution, so the executor raises an error saying so (SQLState 99999) instead of reporting an undone attempt,
     * and the rows are in the table once.
     */
    @Test
    void aFailureToReadCommittedResultsIsNotAnUndoneAttempt(TestDatabase db) throws SQLException {
        db.execute("DROP TABLE IF EXISTS aligned", "CREATE TABLE aligned (id int PRIMARY KEY)");
        TableCatalog.ColumnInfo id = new TableCatalog.ColumnInfo("id", SentType.INT4, "integer", true);
        // the keys the plan expects (7, 8) are not the ones the statement returns (1, 2)
        BatchPlan.Step step = new BatchPlan.Step(
                "INSERT INTO aligned (id) VALUES (1), (2) RETURNING id",
                new int[] {0, 1},
                BatchPlan.Decoding.ALIGNED,
                0,
                new Bind[0],
                new BatchPlan.Alignment(new TableCatalog.ColumnInfo[] {id}, new Object[][] {{7L}, {8L}}),
                null);
        BatchPlan plan = new BatchPlan("test", List.of(step), null);
        try (Connection c = db.bare()) {
            // an Undone here (not an SQLException) fails the assertion: a re-run would insert the rows twice
            SQLException e = assertThrows(
                    SQLException.class, () -> BatchExecutor.run(c, plan, List.of(new Bind[0], new Bind[0]), 0, 0));
            assertEquals("99999", e.getSQLState());
            assertTrue(e.getMessage().contains("was applied"), e.getMessage());
        }
        assertArrayEquals(
                new Object[] {"1", "2"},
                db.rows("SELECT id FROM aligned ORDER BY id").stream()
                        .map(r -> r.get(0))
                        .toArray());
    }
}
