package dev.flushless.jdbc.batch;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Exact server-side statement counts (pg_stat_statements) of coalesced batches. */
@ExtendWith(PostgresExtension.class)
class BatchStatementCountTest {

    @Test
    void tenThousandRowInsertRunsAtMostCeilRowsOverMaxRowsStatements(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute("CREATE TABLE counted_insert (id int PRIMARY KEY, a text, b bigint)");
        try (Connection c =
                DriverManager.getConnection(db.flushlessUrl("flushless.maxRowsPerStatement=1000"), db.credentials())) {
            c.setAutoCommit(false);
            PreparedStatement ps = c.prepareStatement("INSERT INTO counted_insert (id, a, b) VALUES (?, ?, ?)");
            db.resetStatementCounts();
            for (int i = 0; i < 10_000; i++) {
                ps.setInt(1, i);
                ps.setString(2, "row " + i);
                ps.setLong(3, i * 3L);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            c.commit();
            assertEquals(10_000, counts.length);
            assertTrue(Arrays.stream(counts).allMatch(n -> n == 1));
            assertEquals(10, db.statementCount("%INSERT INTO counted_insert%"));
            assertEquals(
                    10_000,
                    c.unwrap(FlushlessConnection.class)
                            .flushlessStats()
                            .rewrites()
                            .get("insert-unnest"));
        }
        assertEquals(java.util.List.of(java.util.List.of("10000")), db.rows("SELECT count(*) FROM counted_insert"));
    }

    @Test
    void twoThousandRowVersionedUpdateWithDistinctKeysRunsOneStatement(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute(
                "CREATE TABLE counted_update (id bigint PRIMARY KEY, name text, version int NOT NULL)",
                "INSERT INTO counted_update SELECT g, 'n', 3 FROM generate_series(1, 2000) g");
        try (Connection c = db.flushless("batch")) {
            c.setAutoCommit(false);
            PreparedStatement ps =
                    c.prepareStatement("UPDATE counted_update SET name = ?, version = ? WHERE id = ? AND version = ?");
            db.resetStatementCounts();
            for (int i = 1; i <= 2000; i++) {
                ps.setString(1, "renamed " + i);
                ps.setInt(2, 4);
                ps.setLong(3, i);
                ps.setInt(4, i == 7 ? 2 : 3); // row 7 is stale
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            c.commit();
            int[] expected = new int[2000];
            Arrays.fill(expected, 1);
            expected[6] = 0;
            assertArrayEquals(expected, counts);
            assertEquals(1, db.statementCount("%UPDATE counted_update%"));
        }
    }

    /**
     * Hibernate sets every column, unique ones included. An UPDATE batch that sets a unique column (to its unchanged
     * value, or to a value an earlier row of the batch gave up) still runs as one statement: the statement's
     * in-order unique check (Rewriter.keyedUpdateInOrderUnnest) fails only when a row takes a value a later row
     * gives up. Both the array and the VALUES form.
     */
    @Test
    void updateSettingUniqueColumnsRunsOneStatementWhenBatchOrderIsSafe(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute(
                "CREATE TABLE counted_unique (id bigint PRIMARY KEY, sku text NOT NULL UNIQUE, at timestamp,"
                        + " name text, version int NOT NULL)",
                "INSERT INTO counted_unique SELECT g, 'sku-' || g, NULL, 'n', 1 FROM generate_series(1, 2000) g");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement arrays = c.prepareStatement(
                    "UPDATE counted_unique SET sku = ?, name = ?, version = ? WHERE id = ? AND version = ?");
            PreparedStatement values = c.prepareStatement("UPDATE counted_unique SET sku = ?, at = ? WHERE id = ?");
            db.resetStatementCounts();
            for (int i = 1; i <= 2000; i++) {
                // row 1 gives up 'sku-1' and row 2000 takes it: later than the row that gave it up, so safe
                arrays.setString(1, i == 1 ? "moved" : i == 2000 ? "sku-1" : "sku-" + i);
                arrays.setString(2, "renamed " + i);
                arrays.setInt(3, 2);
                arrays.setLong(4, i);
                arrays.setInt(5, 1);
                arrays.addBatch();
            }
            int[] expected = new int[2000];
            Arrays.fill(expected, 1);
            assertArrayEquals(expected, arrays.executeBatch());
            for (int i = 1; i <= 3; i++) {
                values.setString(1, i == 1 ? "sku-2000" : "sku-" + i); // 'sku-2000' is free since row 2000 moved
                values.setTimestamp(2, java.sql.Timestamp.valueOf("2024-01-01 00:00:00"));
                values.setLong(3, i);
                values.addBatch();
            }
            assertArrayEquals(new int[] {1, 1, 1}, values.executeBatch());
            var stats = c.unwrap(FlushlessConnection.class).flushlessStats();
            assertEquals(
                    Long.valueOf(2000),
                    stats.rewrites().get("update-join-unnest"),
                    stats.rewrites().toString());
            assertEquals(
                    Long.valueOf(3),
                    stats.rewrites().get("update-join"),
                    stats.rewrites().toString());
            assertTrue(stats.fallbacks().isEmpty(), stats.fallbacks().toString());
            assertEquals(2, db.statementCount("%UPDATE counted_unique%"));
        }
    }

    /**
     * Keys covering the primary key match at most one row each, so the statement leaves out the array of ordinals
     * when rows 1 to max changed and the rest did not (Decoding.ORDINAL_PREFIX_OR_ARRAY); any other pattern returns
     * the array. Both decode to pgjdbc's counts. (These batches are under {@code KeyedPlanner.UNNEST_MIN_ROWS} rows, so
     * they are joined to VALUES lists; the counting is the same in the array form.)
     */
    @Test
    void updateCountsAreExactWhetherOrNotTheOrdinalsComeBack(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE counted_prefix (id int PRIMARY KEY, v int, version int NOT NULL)",
                "INSERT INTO counted_prefix SELECT g, 0, 1 FROM generate_series(1, 10) g");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement ps =
                    c.prepareStatement("UPDATE counted_prefix SET v = ?, version = ? WHERE id = ? AND version = ?");
            if (db.hasStatementStats()) {
                db.resetStatementCounts();
            }
            int[][] batches = {{1, 2, 3, 4, -5, 99}, {-6, 7, 8}, {9, 10}, {-1, -2}};
            int[][] expected = {{1, 1, 1, 1, 0, 0}, {0, 1, 1}, {1, 1}, {0, 0}};
            for (int b = 0; b < batches.length; b++) {
                for (int id : batches[b]) {
                    ps.setInt(1, 5);
                    ps.setInt(2, 2);
                    ps.setInt(3, Math.abs(id));
                    ps.setInt(4, id < 0 ? 7 : 1); // a negative id is bound with a stale version
                    ps.addBatch();
                }
                assertArrayEquals(expected[b], ps.executeBatch(), "batch " + b);
            }
            assertEquals(
                    Long.valueOf(13),
                    c.unwrap(FlushlessConnection.class)
                            .flushlessStats()
                            .rewrites()
                            .get("update-join"));
            if (db.hasStatementStats()) {
                assertEquals(4, db.statementCount("%UPDATE counted_prefix%"), "one statement per batch");
            }
        }
        assertEquals(List.of(List.of("8")), db.rows("SELECT count(*) FROM counted_prefix WHERE version = 2"));
    }

    @Test
    void valuesTravelAsArraysWherePgjdbcsTextIsReproducedAndAsValuesOtherwise(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE forms (id int PRIMARY KEY, at time, n numeric)",
                "INSERT INTO forms SELECT g, NULL, g FROM generate_series(1, 10) g");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement byArrays = c.prepareStatement("UPDATE forms SET n = ? WHERE id = ?");
            PreparedStatement byValues = c.prepareStatement("UPDATE forms SET at = ? WHERE id = ?");
            for (int id = 1; id <= 10; id++) { // KeyedPlanner.UNNEST_MIN_ROWS: arrays from 10 rows
                byArrays.setBigDecimal(1, new java.math.BigDecimal("1.50"));
                byArrays.setInt(2, id);
                byArrays.addBatch();
                byValues.setTime(1, java.sql.Time.valueOf("10:00:00")); // setTime's text is not reproduced
                byValues.setInt(2, id);
                byValues.addBatch();
            }
            byArrays.executeBatch();
            byValues.executeBatch();
            var rewrites = c.unwrap(FlushlessConnection.class).flushlessStats().rewrites();
            assertEquals(Long.valueOf(10), rewrites.get("update-join-unnest"), rewrites.toString());
            assertEquals(Long.valueOf(10), rewrites.get("update-join"), rewrites.toString());
        }
    }

    @Test
    void statementBatchOfThreeInsertsIntoThreeTablesRunsOneStatement(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute("CREATE TABLE chain_a (id int)", "CREATE TABLE chain_b (id int)", "CREATE TABLE chain_c (id int)");
        try (Connection c = db.flushless("batch")) {
            java.sql.Statement s = c.createStatement();
            s.addBatch("INSERT INTO chain_a VALUES (1)");
            s.addBatch("INSERT INTO chain_b VALUES (2), (3)");
            s.addBatch("INSERT INTO chain_c VALUES (4)");
            s.executeBatch(); // warms the catalog cache (one lookup per table, once per connection)
            db.resetStatementCounts();
            s.addBatch("INSERT INTO chain_a VALUES (1)");
            s.addBatch("INSERT INTO chain_b VALUES (2), (3)");
            s.addBatch("INSERT INTO chain_c VALUES (4)");
            assertArrayEquals(new int[] {1, 2, 1}, s.executeBatch());
            assertEquals(1, db.statementCount("%chain_%"));
            assertEquals(1, db.statementCount("WITH flushless_s1%"));
        }
    }

    @Test
    void thousandRowUpsertBatchRunsOneStatement(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute(
                "CREATE TABLE counted_upsert (sku text PRIMARY KEY, qty int NOT NULL)",
                "INSERT INTO counted_upsert SELECT 'sku' || g, 1 FROM generate_series(1, 100) g");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement ps = c.prepareStatement("INSERT INTO counted_upsert (sku, qty) VALUES (?, ?)"
                    + " ON CONFLICT (sku) DO UPDATE SET qty = counted_upsert.qty + EXCLUDED.qty");
            db.resetStatementCounts();
            for (int i = 1; i <= 1000; i++) {
                ps.setString(1, "sku" + i);
                ps.setInt(2, 5);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            assertTrue(Arrays.stream(counts).allMatch(n -> n == 1));
            assertEquals(1, db.statementCount("%INSERT INTO counted_upsert%"));
        }
        assertEquals(
                java.util.List.of(java.util.List.of("1000", "5100")),
                db.rows("SELECT count(*), sum(qty) FROM counted_upsert"));
    }

    @Test
    void deleteBatchWithRepeatedKeysRunsOneStatementPerRepetition(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        db.execute(
                "CREATE TABLE counted_delete (id int PRIMARY KEY)",
                "INSERT INTO counted_delete SELECT generate_series(1, 100)");
        try (Connection c = db.flushless("batch")) {
            PreparedStatement ps = c.prepareStatement("DELETE FROM counted_delete WHERE id = ?");
            db.resetStatementCounts();
            for (int id : new int[] {1, 2, 3, 2, 4, 2}) {
                ps.setInt(1, id);
                ps.addBatch();
            }
            assertArrayEquals(new int[] {1, 1, 1, 0, 1, 0}, ps.executeBatch());
            assertEquals(3, db.statementCount("%DELETE FROM counted_delete%"), "three waves: key 2 repeats twice");
        }
    }
}
