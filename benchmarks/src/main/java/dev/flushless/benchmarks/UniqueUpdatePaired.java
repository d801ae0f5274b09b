package dev.flushless.benchmarks;

import dev.flushless.jdbc.testing.LatencyProxy;
import java.math.BigDecimal;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.util.Arrays;

/**
 * A Hibernate-style versioned UPDATE batch that sets every column, a unique one among them (unchanged, as an ORM
 * sends it), on a TPC-C-like item table of 20,000 rows (numeric, a nullable timestamp, a unique text column), one
 * batch per transaction: bare pgjdbc against Flushless batch mode by default ({@code flushless.uniqueUpdateMinRows}
 * 251 on PostgreSQL: smaller batches run as sent) and Flushless coalescing every batch with the in-order unique check
 * ({@code uniqueUpdateMinRows=2}, the behaviour before the rule). pgjdbc's {@code reWriteBatchedInserts} does not
 * touch UPDATE batches, so bare is also the flag. Rounds alternate the sides' order; prints per batch size and delay
 * the median per-round ratio of each Flushless side's time to bare's (below 1: faster than bare) with its range:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.flushless.benchmarks.UniqueUpdatePaired [rounds] [url] [delays ms, e.g. 0,0.25,1] [rows per block] [table rows] [batch sizes, e.g. 50,100,250]
 * </pre>
 */
public final class UniqueUpdatePaired {
    private UniqueUpdatePaired() {}

    /** Rows in each side's table (20,000 unless given). */
    private static int SEEDED = 20_000;
    /** Rows per measured block of one side (batches of the size measured until about this many rows). */
    private static int blockRows;

    private static final String[] NAMES = {"bare", "flushless (default)", "flushless (coalesce all)"};

    public static void main(String[] a) throws Exception {
        int rounds = a.length > 0 ? Integer.parseInt(a[0]) : 10;
        String base = a.length > 1 ? a[1] : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
        String[] delays = (a.length > 2 ? a[2] : "0,0.25,1").split(",");
        blockRows = a.length > 3 ? Integer.parseInt(a[3]) : 8000;
        SEEDED = a.length > 4 ? Integer.parseInt(a[4]) : SEEDED;
        for (String delay : delays) {
            LatencyProxy proxy = delay.equals("0") ? null : LatencyProxy.forUrlMillis(base, Double.parseDouble(delay));
            String url = proxy == null ? base : proxy.proxiedUrl(base);
            String flushless = "jdbc:flushless:" + url.substring(5) + "&flushless.mode=batch";
            String[] urls = {url, flushless, flushless + "&flushless.uniqueUpdateMinRows=2"};
            try {
                for (String rows : (a.length > 5 ? a[5] : "50,100,250").split(",")) {
                    measure(base, urls, delay, Integer.parseInt(rows), rounds);
                }
            } finally {
                if (proxy != null) {
                    proxy.close();
                }
            }
        }
    }

    private static void measure(String base, String[] urls, String delay, int rows, int rounds) throws Exception {
        Connection[] cs = new Connection[urls.length];
        int[][] versions = new int[urls.length][SEEDED];
        try (Connection house = DriverManager.getConnection(base);
                Statement s = house.createStatement()) {
            for (int v = 0; v < urls.length; v++) {
                String t = "uu_item_" + v;
                s.execute("DROP TABLE IF EXISTS " + t);
                s.execute("CREATE TABLE " + t + " (i_id int PRIMARY KEY, i_im_id int NOT NULL, i_name varchar(24)"
                        + " NOT NULL, i_price numeric(5,2) NOT NULL, i_data varchar(50), i_sku varchar(24) NOT NULL"
                        + " UNIQUE, i_updated timestamp, version int NOT NULL)");
                s.execute("INSERT INTO " + t + " SELECT g, g % 10000, 'item ' || g, (g % 9000) / 100.0 + 1,"
                        + " CASE WHEN g % 7 = 0 THEN NULL ELSE md5(g::text) END, 'SKU-' || g, NULL, 0"
                        + " FROM generate_series(0, " + (SEEDED - 1) + ") g");
                s.execute("ANALYZE " + t);
                cs[v] = DriverManager.getConnection(urls[v]);
                cs[v].setAutoCommit(false);
            }
            int opsPerBlock = Math.max(20, blockRows / rows);
            long[] next = new long[urls.length];
            for (int v = 0; v < urls.length; v++) { // warm-up: past prepareThreshold and the JIT's first tiers
                block(cs[v], "uu_item_" + v, versions[v], next, v, rows, opsPerBlock * 3);
            }
            double[][] ratios = new double[urls.length][rounds];
            for (int round = 0; round < rounds; round++) {
                double[] secs = new double[urls.length];
                for (int k = 0; k < urls.length; k++) {
                    int v = (round % 2 == 0) ? k : urls.length - 1 - k;
                    secs[v] = block(cs[v], "uu_item_" + v, versions[v], next, v, rows, opsPerBlock);
                }
                for (int v = 0; v < urls.length; v++) {
                    ratios[v][round] = secs[v] / secs[0];
                }
            }
            StringBuilder line = new StringBuilder(String.format("D = %s ms, %d rows:", delay, rows));
            for (int v = 1; v < urls.length; v++) {
                double[] r = ratios[v].clone();
                Arrays.sort(r);
                line.append(String.format(
                        "  %s %.2fx bare's time [%.2f-%.2f]", NAMES[v], r[r.length / 2], r[0], r[r.length - 1]));
            }
            System.out.println(line);
        } finally {
            for (Connection c : cs) {
                if (c != null) {
                    c.close();
                }
            }
        }
    }

    /** {@code ops} batches of {@code rows} rows, each committed; the seconds they took. */
    private static double block(Connection c, String table, int[] versions, long[] next, int side, int rows, int ops)
            throws SQLException {
        long start = System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement("UPDATE " + table + " SET i_im_id = ?, i_name = ?, i_price = ?,"
                + " i_data = ?, i_sku = ?, i_updated = ?, version = ? WHERE i_id = ? AND version = ?")) {
            for (int op = 0; op < ops; op++) {
                int first = (int) (next[side] * rows % (SEEDED - rows));
                next[side]++;
                for (int id = first; id < first + rows; id++) {
                    ps.setInt(1, id % 10000);
                    ps.setString(2, "item " + id);
                    ps.setBigDecimal(3, BigDecimal.valueOf(id % 9000 + 100 + versions[id], 2));
                    ps.setString(4, id % 7 == 0 ? null : "data " + versions[id]);
                    ps.setString(5, "SKU-" + id);
                    ps.setTimestamp(6, new Timestamp(1_700_000_000_000L + versions[id]));
                    ps.setInt(7, versions[id] + 1);
                    ps.setInt(8, id);
                    ps.setInt(9, versions[id]);
                    ps.addBatch();
                }
                for (int count : ps.executeBatch()) {
                    if (count != 1) {
                        throw new IllegalStateException("optimistic lock failure: update count " + count);
                    }
                }
                c.commit();
                for (int id = first; id < first + rows; id++) {
                    versions[id]++;
                }
            }
        }
        return (System.nanoTime() - start) / 1e9;
    }
}
