package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The point SELECT of W6: one row by primary key, prepared, executed, read and closed per operation. */
final class PointSelect {

    static final int SEEDED = 10_000;

    private final Harness h;
    private final String select;
    private int next;

    PointSelect(Harness h) throws SQLException {
        this(h, "w6");
    }

    /** Creates and fills {@code table}. */
    PointSelect(Harness h, String table) throws SQLException {
        this.h = h;
        this.select = "SELECT id, v, name FROM " + table + " WHERE id = ?";
        h.house(
                "DROP TABLE IF EXISTS " + table,
                "CREATE TABLE " + table + " (id bigint PRIMARY KEY, v int NOT NULL, name text NOT NULL)",
                "INSERT INTO " + table + " SELECT g, g % 1000, 'name ' || g FROM generate_series(0, " + (SEEDED - 1)
                        + ") g",
                "ANALYZE " + table);
        h.app().setAutoCommit(true);
    }

    int select() throws SQLException {
        h.op();
        Connection c = h.app();
        int id = next;
        next = (next + 1) % SEEDED;
        try (PreparedStatement ps = c.prepareStatement(select)) {
            ps.setLong(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    throw new IllegalStateException("no row " + id);
                }
                return rs.getInt(2) + rs.getString(3).length();
            }
        }
    }
}
