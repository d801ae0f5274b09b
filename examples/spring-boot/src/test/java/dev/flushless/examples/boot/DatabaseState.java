package dev.flushless.examples.boot;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** What a database holds after the workload, read with bare pgjdbc: rows, sequence values, Flyway's history. */
final class DatabaseState {

    private static final Map<String, String> QUERIES = new LinkedHashMap<>();

    static {
        QUERIES.put("product", "SELECT id, sku, name, price, stock, version FROM product ORDER BY id");
        QUERIES.put("purchase_order", "SELECT id, customer, status, version FROM purchase_order ORDER BY id");
        QUERIES.put("order_line", "SELECT id, order_id, product_id, quantity, price FROM order_line ORDER BY id");
        QUERIES.put(
                "sequences",
                "SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public'"
                        + " ORDER BY sequencename");
        // installed_on and execution_time differ from run to run; installed_by is the same role.
        QUERIES.put(
                "flyway_schema_history",
                "SELECT installed_rank, version, description, type, script, checksum,"
                        + " installed_by, success FROM flyway_schema_history ORDER BY installed_rank");
    }

    private DatabaseState() {}

    static Map<String, List<List<String>>> read(String pgjdbcUrl) throws SQLException {
        Map<String, List<List<String>>> state = new LinkedHashMap<>();
        try (Connection c = DriverManager.getConnection(pgjdbcUrl);
                Statement s = c.createStatement()) {
            for (Map.Entry<String, String> query : QUERIES.entrySet()) {
                List<List<String>> rows = new ArrayList<>();
                try (ResultSet rs = s.executeQuery(query.getValue())) {
                    ResultSetMetaData meta = rs.getMetaData();
                    while (rs.next()) {
                        List<String> row = new ArrayList<>();
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            row.add(rs.getString(i));
                        }
                        rows.add(row);
                    }
                }
                state.put(query.getKey(), rows);
            }
        }
        return state;
    }
}
