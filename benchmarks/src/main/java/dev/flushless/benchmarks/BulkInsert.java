package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The bulk workloads of the paired suite ({@link LowLatencyPaired}, {@code benchmarks/run.sh --bulk}), one side each:
 *
 * <ul>
 *   <li>{@code narrow_<rows>}, {@code wide_<rows>}: one operation is one batch of {@code rows} rows, then
 *       {@code commit};
 *   <li>{@code narrow_load_<total>}, {@code wide_load_<total>}: one operation loads {@code total} rows in batches of
 *       {@value #LOAD_BATCH_ROWS}, each followed by {@code commit}.
 * </ul>
 *
 * <p>Shapes ({@link BulkShape}): {@code narrow} is W7's {@code (id, a, b)} ({@link InsertRows}), {@code wide} TPC-C's
 * order_line ({@link OrderLineShape}). A batch is the application's JDBC batch ({@code executeBatch}) on every side but
 * {@link Variant#COPY}, which sends the same rows with {@code COPY .. FROM STDIN} in text format ({@link CopyText});
 * autocommit is off on every side and each batch is committed. The table is emptied before each block (TRUNCATE,
 * outside the timing), as for W7.
 */
final class BulkInsert {

    /** Rows per batch of the loads. */
    static final int LOAD_BATCH_ROWS = 1000;

    private static final Pattern WORKLOAD = Pattern.compile("(narrow|wide)_(load_)?(\\d+)");

    private final Harness h;
    private final String table;
    private final BulkShape shape;
    private final boolean copy;
    private final String copySql;
    private final int batchRows;
    private final int batches;
    private final StringBuilder copyText = new StringBuilder();
    private long next;

    private BulkInsert(Harness h, String table, BulkShape shape, int batchRows, int batches) throws SQLException {
        this.h = h;
        this.table = table;
        this.shape = shape;
        this.copy = h.variant() == Variant.COPY;
        this.copySql = "COPY " + table + " (" + shape.columns() + ") FROM STDIN";
        this.batchRows = batchRows;
        this.batches = batches;
        h.house("DROP TABLE IF EXISTS " + table, shape.createTable(table));
        if (copy) {
            checkCopyMatchesBatch(h.houseConnection(), shape, table);
        }
        h.app().setAutoCommit(false);
    }

    /** Whether {@code workload} names a bulk workload. */
    static boolean handles(String workload) {
        return WORKLOAD.matcher(workload).matches();
    }

    /** The side of {@code workload} (see {@link #handles}) on {@code h}'s connection, in table {@code table}. */
    static BulkInsert of(Harness h, String table, String workload) throws SQLException {
        Matcher m = WORKLOAD.matcher(workload);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a bulk workload: " + workload);
        }
        BulkShape shape = BulkShape.of(m.group(1));
        int rows = Integer.parseInt(m.group(3));
        if (m.group(2) == null) {
            return new BulkInsert(h, table, shape, rows, 1);
        }
        if (rows % LOAD_BATCH_ROWS != 0) {
            throw new IllegalArgumentException("a load's rows must be a multiple of " + LOAD_BATCH_ROWS + ": " + rows);
        }
        return new BulkInsert(h, table, shape, LOAD_BATCH_ROWS, rows / LOAD_BATCH_ROWS);
    }

    /** Batches (and commits) per operation. */
    int batchesPerOp() {
        return batches;
    }

    /** Empties the table (before each block, outside the timing). */
    void truncate() throws SQLException {
        h.house("TRUNCATE " + table);
    }

    /** One operation: {@link #batchesPerOp()} batches of the side's kind, each committed. */
    void run() throws SQLException {
        h.op();
        Connection c = h.app();
        for (int b = 0; b < batches; b++) {
            long first = next;
            next += batchRows;
            if (copy) {
                copyText.setLength(0);
                shape.appendCopy(copyText, first, batchRows);
                long n = CopyText.copyIn(c, copySql, copyText);
                if (n != batchRows) {
                    throw new IllegalStateException("COPY loaded " + n + " of " + batchRows + " rows");
                }
            } else {
                shape.insertBatch(c, table, first, batchRows);
            }
            c.commit();
        }
    }

    /**
     * Before a COPY side runs: its escaping round-trips ({@link CopyText#selfCheck}), and the same rows loaded by the
     * JDBC batch and by COPY (on {@code house}, uncounted, in two scratch tables) are equal, value for value.
     */
    static void checkCopyMatchesBatch(Connection house, BulkShape shape, String table) throws SQLException {
        CopyText.selfCheck(house);
        String batch = table + "_check_batch";
        String copied = table + "_check_copy";
        int rows = 60; // every NULL pattern and line number of the wide shape
        try (Statement s = house.createStatement()) {
            s.execute("DROP TABLE IF EXISTS " + batch + ", " + copied);
            s.execute(shape.createTable(batch));
            s.execute(shape.createTable(copied));
            shape.insertBatch(house, batch, 0, rows);
            StringBuilder text = new StringBuilder();
            shape.appendCopy(text, 0, rows);
            CopyText.copyIn(house, "COPY " + copied + " (" + shape.columns() + ") FROM STDIN", text);
            String differ = "SELECT (SELECT count(*) FROM " + batch + "), (SELECT count(*) FROM (TABLE " + batch
                    + " EXCEPT ALL TABLE " + copied + " UNION ALL (TABLE " + copied + " EXCEPT ALL TABLE " + batch
                    + ")) d)";
            try (ResultSet rs = s.executeQuery(differ)) {
                rs.next();
                if (rs.getLong(1) != rows || rs.getLong(2) != 0) {
                    throw new IllegalStateException("COPY and the JDBC batch load different rows into " + table + ": "
                            + rs.getLong(1) + " rows by batch, " + rs.getLong(2) + " differ");
                }
            }
            s.execute("DROP TABLE " + batch + ", " + copied);
        }
    }
}
