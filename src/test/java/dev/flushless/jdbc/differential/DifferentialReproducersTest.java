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
}
