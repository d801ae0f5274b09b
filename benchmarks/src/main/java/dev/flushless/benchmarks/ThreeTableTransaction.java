package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** W2's transaction as an application writes it: one single-row INSERT into each of three tables, then commit. */
final class ThreeTableTransaction {

    static final String[] VALUES = {"Bonjour", "Ciao", "Grüezi"};

    private final Harness h;
    private final String tables;
    private final String[] inserts = new String[3];

    /** Creates the tables {@code prefix}1 to 3 (uuid key, a text value). */
    ThreeTableTransaction(Harness h, String prefix) throws SQLException {
        this.h = h;
        for (int i = 1; i <= 3; i++) {
            h.house(
                    "DROP TABLE IF EXISTS " + prefix + i,
                    "CREATE TABLE " + prefix + i + " (id uuid DEFAULT gen_random_uuid() PRIMARY KEY, value text)");
            inserts[i - 1] = "INSERT INTO " + prefix + i + " (value) VALUES (?)";
        }
        this.tables = prefix + "1, " + prefix + "2, " + prefix + "3";
        h.app().setAutoCommit(!h.variant().applicationCode());
    }

    /** Empties the three tables. */
    void truncate() throws SQLException {
        h.house("TRUNCATE " + tables);
    }

    /** One transaction: three INSERTs, then commit; returns the rows inserted. */
    int run() throws SQLException {
        h.op();
        Connection c = h.app();
        int n = 0;
        for (int i = 0; i < 3; i++) {
            try (PreparedStatement ps = c.prepareStatement(inserts[i])) {
                ps.setString(1, VALUES[i]);
                n += ps.executeUpdate();
            }
        }
        c.commit();
        if (n != 3) {
            throw new IllegalStateException("inserted " + n + " rows, expected 3");
        }
        return n;
    }
}
