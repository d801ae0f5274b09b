package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A row shape of the bulk workloads ({@link BulkInsert}): its table, the application's JDBC batch of its rows and the
 * same rows in {@code COPY} text format. Row {@code n} (the side's running key, from 0) has the same values on every
 * side, so the sides load the same data; keys are unique across the whole run.
 */
interface BulkShape {

    /** W7's narrow rows: {@code (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)}, bound by {@link InsertRows}. */
    BulkShape NARROW = new BulkShape() {
        @Override
        public String columns() {
            return "id, a, b";
        }

        @Override
        public String createTable(String table) {
            return "CREATE TABLE " + table + " (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)";
        }

        @Override
        public void insertBatch(Connection c, String table, long first, int rows) throws SQLException {
            InsertRows.insertBatch(c, "INSERT INTO " + table + " (id, a, b) VALUES (?, ?, ?)", first, rows);
        }

        @Override
        public void appendCopy(StringBuilder out, long first, int rows) {
            for (int i = 0; i < rows; i++) { // the values of InsertRows.insertBatch
                out.append(first + i).append('\t').append(i).append('\t');
                CopyText.value(out, "row " + i).append('\n');
            }
        }
    };

    /** TPC-C's order_line ({@link OrderLineShape}). */
    BulkShape WIDE = new OrderLineShape();

    /** {@code narrow} or {@code wide}. */
    static BulkShape of(String name) {
        return switch (name) {
            case "narrow" -> NARROW;
            case "wide" -> WIDE;
            default -> throw new IllegalArgumentException("unknown shape " + name + " (narrow, wide)");
        };
    }

    /** The column list, in the order of the INSERT's parameters and of the COPY text's columns. */
    String columns();

    /** The table's {@code CREATE TABLE} statement. */
    String createTable(String table);

    /**
     * The application's JDBC batch: a fresh {@code prepareStatement} of the INSERT, rows {@code first ..
     * first + rows - 1} bound with the setters an application uses and added one by one, {@code executeBatch}
     * (every row must get a count). No commit.
     */
    void insertBatch(Connection c, String table, long first, int rows) throws SQLException;

    /** Appends the same rows to {@code out} in COPY text format. */
    void appendCopy(StringBuilder out, long first, int rows);
}
