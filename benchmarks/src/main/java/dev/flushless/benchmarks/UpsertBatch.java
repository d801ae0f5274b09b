package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * W3's upsert batch: {@value #ROWS} rows ({@code INSERT .. ON CONFLICT (id) DO UPDATE}) of which every tenth hits an
 * existing row (a window that moves through {@value #SEEDED} seeded rows), the others are new.
 */
final class UpsertBatch {

    static final int ROWS = 1000;
    static final int SEEDED = 10_000;

    private final Harness h;
    private final String table;
    private long op;
    private long nextNewId = 1_000_000;

    /** The ids and values of one operation. */
    record Rows(long[] ids, int[] values) {}

    /** Creates {@code table} with {@value #SEEDED} rows. */
    UpsertBatch(Harness h, String table) throws SQLException {
        this.h = h;
        this.table = table;
        h.house(
                "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id bigint PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO " + table + " SELECT g, 0 FROM generate_series(0, " + (SEEDED - 1) + ") g",
                "ANALYZE " + table);
        h.app().setAutoCommit(!h.variant().applicationCode());
    }

    /** The next operation's rows. */
    Rows next() {
        long[] ids = new long[ROWS];
        int[] vs = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            ids[i] = i % 10 == 9 ? (op * (ROWS / 10) + i / 10) % SEEDED : nextNewId++;
            vs[i] = (int) op;
        }
        op++;
        return new Rows(ids, vs);
    }

    /** One operation as an application writes it: the rows as a JDBC batch, then commit. */
    int run() throws SQLException {
        h.op();
        return batch(h.app(), next());
    }

    /** {@code rows} as a JDBC batch on {@code c}, then commit. */
    int batch(Connection c, Rows rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v")) {
            for (int i = 0; i < ROWS; i++) {
                ps.setLong(1, rows.ids()[i]);
                ps.setInt(2, rows.values()[i]);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            if (counts.length != ROWS) {
                throw new IllegalStateException("batch returned " + counts.length + " counts");
            }
        }
        c.commit();
        return ROWS;
    }
}
