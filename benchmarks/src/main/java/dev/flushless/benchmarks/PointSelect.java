package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The point SELECT of W6: one row by primary key, prepared, executed, read and closed per operation. */
final class PointSelect {

    static final int SEEDED = 10_000;

    private final Harness h;
    private int next;

    PointSelect(Harness h) throws SQLException {
        this.h = h;
        h.house(
                "DROP TABLE IF EXISTS w6",
                "CREATE TABLE w6 (id bigint PRIMARY KEY, v int NOT NULL, name text NOT NULL)",
                "INSERT INTO w6 SELECT g, g % 1000, 'name ' || g FROM generate_series(0, " + (SEEDED - 1) + ") g",
                "ANALYZE w6");
        h.app().setAutoCommit(true);
    }

    int select() throws SQLException {
        h.op();
        Connection c = h.app();
        int id = next;
        next = (next + 1) % SEEDED;
        try (PreparedStatement ps = c.prepareStatement("SELECT id, v, name FROM w6 WHERE id = ?")) {
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
