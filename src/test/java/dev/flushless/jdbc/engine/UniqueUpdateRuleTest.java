package dev.flushless.jdbc.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The unique-update rule ({@code flushless.uniqueUpdateMinRows}, 100 on PostgreSQL by default): a keyed UPDATE batch
 * that sets a column of a unique key (as Hibernate's updates set every column) needs the in-order unique check, which
 * has a fixed cost that a small batch does not earn back; below the threshold it runs as sent, at and above it it is
 * coalesced, and in {@code mode=transaction} with writes buffered it is coalesced so that they ride
 * along. Counts and final rows are bare pgjdbc's in every case. Nothing here is timed.
 */
@ExtendWith(PostgresExtension.class)
class UniqueUpdateRuleTest {

    private static final String UPDATE =
            "UPDATE uu_item SET sku = ?, price = ?, version = ? WHERE id = ? AND version = ?";

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS uu_item, uu_log",
                "CREATE TABLE uu_item (id int PRIMARY KEY, sku text NOT NULL UNIQUE, price numeric(8,2), version int"
                        + " NOT NULL)",
                "CREATE TABLE uu_log (id int PRIMARY KEY, note text)",
                "INSERT INTO uu_item SELECT g, 'sku-' || g, g / 100.0, 0 FROM generate_series(1, 600) g");
    }

    /** Updates items {@code first} .. {@code first + rows - 1} as Hibernate does (every column, sku unchanged). */
    private static String update(Connection c, int first, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(UPDATE)) {
            for (int id = first; id < first + rows; id++) {
                ps.setString(1, "sku-" + id);
                ps.setBigDecimal(2, BigDecimal.valueOf(id, 1));
                ps.setInt(3, 1);
                ps.setInt(4, id);
                ps.setInt(5, id % 10 == 0 ? 7 : 0); // every tenth row is stale: count 0
                ps.addBatch();
            }
            return Arrays.toString(ps.executeBatch());
        }
    }

    private String items() throws SQLException {
        return db.rows("SELECT count(*) FILTER (WHERE version = 1), sum(price), md5(string_agg(sku, ',' ORDER BY id))"
                        + " FROM uu_item")
                .toString();
    }

    /** Runs both batches (60 rows, then 100) on {@code url}, committing each; their counts, the rows, the report. */
    private String[] run(String url) throws SQLException {
        db.execute("UPDATE uu_item SET version = 0, price = id / 100.0");
        try (Connection c = DriverManager.getConnection(url, db.credentials())) {
            c.setAutoCommit(false);
            String small = update(c, 1, 60);
            c.commit();
            String large = update(c, 101, 100);
            c.commit();
            String report = c.isWrapperFor(FlushlessConnection.class)
                    ? c.unwrap(FlushlessConnection.class).report().toString()
                    : "";
            return new String[] {small, large, items(), report};
        }
    }

    @Test
    void belowTheThresholdTheBatchRunsAsSentAndFromItIsCoalesced() throws SQLException {
        String[] bare = run(db.pgjdbcUrl());
        String defaults = TestDatabase.withParameters(
                db.flushlessDefaultsUrl(), "flushless.mode=batch&flushless.coalesceFirstBatch=true");
        String[] flushless = run(defaults);
        assertEquals(Arrays.asList(bare).subList(0, 3), Arrays.asList(flushless).subList(0, 3));
        try (Connection c = DriverManager.getConnection(defaults, db.credentials())) {
            c.setAutoCommit(false);
            update(c, 1, 60);
            FlushlessReport small = c.unwrap(FlushlessConnection.class).report();
            assertEquals(Map.of("unique-update-small", 60L), small.fallbacks(), small.toString());
            assertTrue(small.rewrites().isEmpty(), small.toString());
            update(c, 101, 100);
            FlushlessReport large = c.unwrap(FlushlessConnection.class).report();
            assertEquals(Map.of("update-join-unnest", 100L), large.rewrites(), large.toString());
            c.rollback();
        }
        System.out.println("[unique-update rule] " + flushless[3]);
    }

    @Test
    void theSettingCoalescesSmallerBatches() throws SQLException {
        String url = TestDatabase.withParameters(
                db.flushlessDefaultsUrl(),
                "flushless.mode=batch&flushless.coalesceFirstBatch=true&flushless.uniqueUpdateMinRows=50");
        assertEquals(
                Arrays.asList(run(db.pgjdbcUrl())).subList(0, 3),
                Arrays.asList(run(url)).subList(0, 3));
        try (Connection c = DriverManager.getConnection(url, db.credentials())) {
            c.setAutoCommit(false);
            update(c, 1, 60);
            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            assertEquals(Map.of("update-join-unnest", 60L), report.rewrites(), report.toString());
            c.rollback();
        }
    }

    /** mode=transaction: with an INSERT buffered, the small batch is coalesced so that the INSERT rides along. */
    @Test
    void bufferedWritesRideAlongWithACoalescedBatch() throws SQLException {
        String url = TestDatabase.withParameters(
                db.flushlessDefaultsUrl(),
                "flushless.mode=transaction&flushless.bufferFirstWrite=true&flushless.bufferMinRoundTripMicros=0");
        try (Connection c = DriverManager.getConnection(url, db.credentials())) {
            c.setAutoCommit(false);
            try (PreparedStatement log = c.prepareStatement("INSERT INTO uu_log (id, note) VALUES (?, ?)")) {
                log.setInt(1, 1);
                log.setString(2, "before the update");
                assertEquals(1, log.executeUpdate());
            }
            String counts = update(c, 1, 60);
            c.commit();
            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            assertFalse(report.fallbacks().containsKey("unique-update-small"), report.toString());
            assertEquals(Long.valueOf(60), report.rewrites().get("update-join-unnest"), report.toString());
            assertTrue(counts.startsWith("[1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1"), counts);
        }
        assertEquals(
                "[[1, before the update]]",
                db.rows("SELECT id, note FROM uu_log").toString());
        assertEquals(
                "[[54]]",
                db.rows("SELECT count(*) FROM uu_item WHERE version = 1").toString());
    }
}
