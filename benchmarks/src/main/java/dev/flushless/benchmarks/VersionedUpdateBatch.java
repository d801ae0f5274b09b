package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * W4's versioned (optimistic-lock) update batch: {@value #ROWS} rows of {@value #SEEDED}, {@code UPDATE .. SET ..,
 * version = ? WHERE id = ? AND version = ?}, every count checked; with {@code autocommit} off, then a COMMIT (what an
 * ORM does). The versions are tracked here, so an operation fails if an update did not apply.
 */
final class VersionedUpdateBatch {

    static final int ROWS = 1000;
    static final int SEEDED = 10_000;

    private final Harness h;
    private final String table;
    private final int[] versions = new int[SEEDED];
    private long op;

    /** Creates {@code table} with {@value #SEEDED} rows at version 0. */
    VersionedUpdateBatch(Harness h, String table, boolean autocommit) throws SQLException {
        this.h = h;
        this.table = table;
        h.house(
                "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id bigint PRIMARY KEY, v int NOT NULL, version int NOT NULL)",
                "INSERT INTO " + table + " SELECT g, 0, 0 FROM generate_series(0, " + (SEEDED - 1) + ") g",
                "ANALYZE " + table);
        h.app().setAutoCommit(!h.variant().applicationCode() || autocommit);
    }

    /** The first id of the next operation's rows (it then counts as started). */
    int next() {
        int first = (int) (op * ROWS % SEEDED);
        op++;
        return first;
    }

    /** The value the operation started last writes. */
    int value() {
        return (int) op;
    }

    /** The version the row {@code id} has now. */
    int version(int id) {
        return versions[id];
    }

    /** The rows from {@code first} were updated: their versions moved on. */
    void updated(int first) {
        for (int i = 0; i < ROWS; i++) {
            versions[first + i]++;
        }
    }

    /** One operation as an application writes it. */
    int run() throws SQLException {
        h.op();
        return batch(h.app(), next());
    }

    /** The rows from {@code first} as a JDBC batch on {@code c} (then commit, unless in autocommit). */
    int batch(Connection c, int first) throws SQLException {
        try (PreparedStatement ps =
                c.prepareStatement("UPDATE " + table + " SET v = ?, version = ? WHERE id = ? AND version = ?")) {
            for (int i = 0; i < ROWS; i++) {
                int id = first + i;
                ps.setInt(1, value());
                ps.setInt(2, versions[id] + 1);
                ps.setLong(3, id);
                ps.setInt(4, versions[id]);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            for (int count : counts) {
                if (count != 1) {
                    if (!c.getAutoCommit()) {
                        c.rollback();
                    }
                    throw new IllegalStateException("optimistic lock failure: update count " + count);
                }
            }
        }
        if (!c.getAutoCommit()) {
            c.commit();
        }
        updated(first);
        return ROWS;
    }
}
