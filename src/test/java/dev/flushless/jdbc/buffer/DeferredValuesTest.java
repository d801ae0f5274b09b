package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ParameterMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code flushless.mode=transaction} keeps a write's values from pgjdbc's statement until it runs as sent
 * ({@code ParameterRecording#deferred}): whether it is buffered or runs as sent, with new statements and reused ones,
 * the application sees what bare pgjdbc shows it: the same rows, counts, errors at the same call, and parameter types.
 */
@ExtendWith(PostgresExtension.class)
class DeferredValuesTest {

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP TABLE IF EXISTS dv_item",
                "CREATE TABLE dv_item (id int PRIMARY KEY, qty int NOT NULL, price numeric(8,2), note text)",
                "INSERT INTO dv_item SELECT g, 10, 1.5, 'n' FROM generate_series(1, 10) g");
    }

    private Connection open(boolean flushless) throws SQLException {
        Connection c = DriverManager.getConnection(
                flushless ? db.flushlessUrl("flushless.mode=transaction") : db.pgjdbcUrl(), db.credentials());
        c.setAutoCommit(false);
        return c;
    }

    /** Inserts, locked and unlocked updates, each through a new statement and a reused one; returns the counts. */
    private static List<Integer> workload(Connection c) throws SQLException {
        List<Integer> counts = new ArrayList<>();
        try (PreparedStatement insert =
                c.prepareStatement("INSERT INTO dv_item (id, qty, price, note) VALUES (?, ?, ?, ?)")) {
            for (int id = 11; id <= 14; id++) {
                insert.setInt(1, id);
                insert.setInt(2, id * 2);
                insert.setBigDecimal(3, new java.math.BigDecimal("2.25"));
                insert.setString(4, "row " + id);
                counts.add(insert.executeUpdate());
            }
        }
        for (int id = 1; id <= 4; id++) {
            if (id % 2 == 0) {
                try (PreparedStatement lock = c.prepareStatement("SELECT qty FROM dv_item WHERE id = ? FOR UPDATE")) {
                    lock.setInt(1, id);
                    try (ResultSet rs = lock.executeQuery()) {
                        rs.next();
                    }
                }
            }
            try (PreparedStatement update =
                    c.prepareStatement("UPDATE dv_item SET qty = qty + ?, note = ? WHERE id = ?")) {
                update.setInt(1, id);
                update.setString(2, "updated " + id);
                update.setInt(3, id);
                counts.add(update.executeUpdate()); // even ids are buffered (locked rows), odd ones run as sent
            }
        }
        try (PreparedStatement none = c.prepareStatement("UPDATE dv_item SET qty = ? WHERE id = ?")) {
            none.setInt(1, 1);
            none.setInt(2, 999);
            counts.add(none.executeUpdate()); // no such row: runs as sent, count 0
            none.setInt(2, 5);
            counts.add(none.executeUpdate()); // the first value kept, the second changed
        }
        return counts;
    }

    private static String rows(Connection c) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT id, qty, price, note FROM dv_item ORDER BY id")) {
            while (rs.next()) {
                out.append(rs.getInt(1))
                        .append(',')
                        .append(rs.getInt(2))
                        .append(',')
                        .append(rs.getBigDecimal(3))
                        .append(',')
                        .append(rs.getString(4))
                        .append('\n');
            }
        }
        return out.toString();
    }

    @Test
    void buffersAndAsSentWritesStoreWhatBarePgjdbcStores() throws SQLException {
        List<Integer> bareCounts;
        String bareRows;
        try (Connection bare = open(false)) {
            bareCounts = workload(bare);
            bareRows = rows(bare);
            bare.rollback();
        }
        try (Connection flushless = open(true)) {
            assertEquals(bareCounts, workload(flushless));
            assertEquals(bareRows, rows(flushless));
            flushless.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(bareRows, rows(check));
        }
    }

    @Test
    void aPositionOutOfRangeFailsAtTheSetterAsInPgjdbc() throws SQLException {
        for (boolean flushless : new boolean[] {false, true}) {
            try (Connection c = open(flushless);
                    PreparedStatement ps = c.prepareStatement("UPDATE dv_item SET qty = ? WHERE id = ?")) {
                SQLException e = assertThrows(SQLException.class, () -> ps.setInt(3, 1));
                assertEquals("22023", e.getSQLState(), "flushless=" + flushless);
                assertThrows(SQLException.class, () -> ps.setInt(0, 1));
                // a negative position, after a value was set (the statement records): pgjdbc's SQLException too
                ps.setInt(1, 1);
                SQLException negative = assertThrows(SQLException.class, () -> ps.setInt(-1, 1));
                assertEquals("22023", negative.getSQLState(), "flushless=" + flushless);
                c.rollback();
            }
        }
        try (Connection c = DriverManager.getConnection(db.flushlessUrl("flushless.mode=batch"), db.credentials());
                PreparedStatement ps = c.prepareStatement("UPDATE dv_item SET qty = ? WHERE id = ?")) {
            List<org.junit.jupiter.api.function.Executable> setters = List.of(
                    () -> ps.setInt(-1, 1),
                    () -> ps.setString(-1, "x"),
                    () -> ps.setObject(-1, 1),
                    () -> ps.setNull(-1, java.sql.Types.INTEGER),
                    () -> ps.setBigDecimal(-1, java.math.BigDecimal.ONE),
                    () -> ps.setTimestamp(-1, new java.sql.Timestamp(0)),
                    () -> ps.setBytes(-1, new byte[] {1}));
            for (org.junit.jupiter.api.function.Executable setter : setters) {
                assertEquals("22023", assertThrows(SQLException.class, setter).getSQLState());
            }
        }
    }

    @Test
    void parameterTypesReflectTheValuesSet() throws SQLException {
        List<String> types = new ArrayList<>();
        for (boolean flushless : new boolean[] {false, true}) {
            try (Connection c = open(flushless);
                    PreparedStatement ps = c.prepareStatement("INSERT INTO dv_item (id, qty, note) VALUES (?, ?, ?)")) {
                ps.setInt(1, 50);
                ps.setInt(2, 1);
                ps.setString(3, "x");
                ps.executeUpdate();
                ps.setLong(1, 51); // deferred on the Flushless side: pgjdbc must see it before it describes
                ParameterMetaData meta = ps.getParameterMetaData();
                types.add(meta.getParameterTypeName(1) + "," + meta.getParameterTypeName(3));
                c.rollback();
            }
        }
        assertEquals(types.get(0), types.get(1));
    }
}
