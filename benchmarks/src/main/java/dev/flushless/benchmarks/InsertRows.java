package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** The insert batch of W1 and W7: {@code rows} rows into one table, in one transaction. */
final class InsertRows {

    private final Harness h;
    private final String table;
    private long nextId = 1;

    InsertRows(Harness h, String table) throws SQLException {
        this.h = h;
        this.table = table;
        h.house(
                "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)");
        h.app().setAutoCommit(!h.variant().applicationCode());
    }

    /** Empties the table (between iterations, so that it does not grow without bound). */
    void truncate() throws SQLException {
        h.house("TRUNCATE " + table);
    }

    /** One operation: inserts {@code rows} rows; returns the rows the database reported. */
    int insert(int rows) throws SQLException {
        h.op();
        Connection c = h.app();
        long first = nextId;
        nextId += rows;
        if (h.variant().applicationCode()) {
            // What an application writes: a JDBC batch in a transaction.
            insertBatch(c, "INSERT INTO " + table + " (id, a, b) VALUES (?, ?, ?)", first, rows);
            c.commit();
            return rows;
        }
        // Hand-written physical limit: one statement, one round trip, autocommit; arrays as parameters
        // keep one SQL text (one server-side prepared statement) for any row count.
        long[] ids = new long[rows];
        int[] as = new int[rows];
        String[] bs = new String[rows];
        for (int i = 0; i < rows; i++) {
            ids[i] = first + i;
            as[i] = i;
            bs[i] = "row " + i;
        }
        try (PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " (id, a, b) SELECT * FROM unnest(?::bigint[], ?::int[], ?::text[])")) {
            ps.setObject(1, ids);
            ps.setObject(2, as);
            ps.setObject(3, bs);
            int n = ps.executeUpdate();
            if (n != rows) {
                throw new IllegalStateException("inserted " + n + " of " + rows + " rows");
            }
            return n;
        }
    }

    /**
     * W7's JDBC batch as an application writes it: {@code rows} rows (ids from {@code first}) bound and added one by
     * one to a fresh {@code prepareStatement(insert)}, then executed; every row must get a count.
     */
    static void insertBatch(Connection c, String insert, long first, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insert)) {
            for (int i = 0; i < rows; i++) {
                ps.setLong(1, first + i);
                ps.setInt(2, i);
                ps.setString(3, "row " + i);
                ps.addBatch();
            }
            int[] counts = ps.executeBatch();
            if (counts.length != rows) {
                throw new IllegalStateException("batch returned " + counts.length + " counts for " + rows + " rows");
            }
        }
    }
}
