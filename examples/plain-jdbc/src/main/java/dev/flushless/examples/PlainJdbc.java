package dev.flushless.examples;

import dev.flushless.jdbc.FlushlessConnection;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

/**
 * Flushless with plain JDBC: the only change from pgjdbc is the URL prefix.
 *
 * <pre>
 *   jdbc:postgresql://localhost:5432/shop   -&gt;   jdbc:flushless:postgresql://localhost:5432/shop
 * </pre>
 *
 * The PreparedStatement batch below is the application's ordinary code; Flushless sends its 1,000 INSERTs as
 * one multi-row statement and its 1,000 UPDATEs as one UPDATE joined to the batch's values, with the same
 * per-row update counts pgjdbc would return.
 */
public final class PlainJdbc {

    private PlainJdbc() {}

    public static void main(String[] args) throws SQLException {
        String url = args.length > 0 ? args[0] : "jdbc:flushless:postgresql://localhost:5432/postgres?user=postgres";
        // No Class.forName: the driver registers itself through META-INF/services/java.sql.Driver.
        try (Connection connection = DriverManager.getConnection(url)) {
            try (Statement s = connection.createStatement()) {
                s.execute("DROP TABLE IF EXISTS example_item");
                s.execute(
                        "CREATE TABLE example_item (id int PRIMARY KEY, name text NOT NULL, price numeric(10,2) NOT NULL)");
            }

            connection.setAutoCommit(false);
            try (PreparedStatement insert =
                    connection.prepareStatement("INSERT INTO example_item (id, name, price) VALUES (?, ?, ?)")) {
                for (int i = 1; i <= 1_000; i++) {
                    insert.setInt(1, i);
                    insert.setString(2, "item " + i);
                    insert.setBigDecimal(3, new java.math.BigDecimal(i).movePointLeft(2));
                    insert.addBatch();
                }
                int[] counts = insert.executeBatch(); // one statement with Flushless, 1,000 with bare pgjdbc
                System.out.println("inserted " + Arrays.stream(counts).sum() + " rows");
            }
            try (PreparedStatement update =
                    connection.prepareStatement("UPDATE example_item SET price = ? WHERE id = ?")) {
                for (int i = 1; i <= 1_000; i++) {
                    update.setBigDecimal(1, new java.math.BigDecimal(i * 2).movePointLeft(2));
                    update.setInt(2, i);
                    update.addBatch();
                }
                int[] counts = update.executeBatch(); // exact per-row counts: 1 each
                System.out.println("updated " + Arrays.stream(counts).sum() + " rows");
            }
            connection.commit();

            // What Flushless did (only when the URL is jdbc:flushless:...).
            if (connection.isWrapperFor(FlushlessConnection.class)) {
                System.out.println("Flushless: "
                        + connection.unwrap(FlushlessConnection.class).flushlessStats());
            }
        }
    }
}
