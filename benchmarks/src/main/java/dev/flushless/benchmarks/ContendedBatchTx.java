package dev.flushless.benchmarks;

import java.sql.*;
import java.util.*;
import java.util.concurrent.*;
import java.util.concurrent.atomic.*;

/**
 * Many connections running one contended TPC-C-like transaction each: an UPDATE of one of four district rows (the hot
 * rows: lock waits, and serialization failures under SERIALIZABLE, retried after a rollback) returning the next order
 * id, then a JDBC batch of 100 order lines (TPC-C's order_line shape: composite key, nullable timestamp, numerics,
 * char(24)), then commit. Bare pgjdbc, pgjdbc with {@code reWriteBatchedInserts=true} ("flag") and Flushless batch mode
 * run in blocks of {@code ms} milliseconds, alternating their order per round; prints committed transactions per
 * second and the mean per-round ratios against bare and against the flag, and the class-40 aborts. Self-contained
 * ({@code java.sql} only):
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.flushless.benchmarks.ContendedBatchTx 16 6 3000 rc|ser [url]
 * </pre>
 */
public final class ContendedBatchTx {
    private ContendedBatchTx() {}

    public static void main(String[] a) throws Exception {
        int threads = Integer.parseInt(a[0]);
        int rounds = Integer.parseInt(a[1]);
        int ms = Integer.parseInt(a[2]);
        int iso = a[3].equals("ser") ? Connection.TRANSACTION_SERIALIZABLE : Connection.TRANSACTION_READ_COMMITTED;
        String base = a.length > 4 ? a[4] : "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
        String[] names = {"bare", "flag", "flushless"};
        String[] urls = {
            base, base + "&reWriteBatchedInserts=true", "jdbc:flushless:" + base.substring(5) + "&flushless.mode=batch"
        };
        try (Connection c = DriverManager.getConnection(base);
                Statement s = c.createStatement()) {
            for (int v = 0; v < 3; v++) {
                s.execute("DROP TABLE IF EXISTS conc_line_" + v + ", conc_district_" + v);
                s.execute(
                        "CREATE TABLE conc_line_" + v
                                + " (o_id int, d_id int, number int, i_id int, delivery_d timestamp, quantity numeric(6,2), amount numeric(6,2), dist_info char(24), PRIMARY KEY (o_id, d_id, number))");
                s.execute("CREATE TABLE conc_district_" + v
                        + " (d_id int PRIMARY KEY, next_o_id int NOT NULL, ytd numeric(12,2))");
                s.execute("INSERT INTO conc_district_" + v + " SELECT g, 1, 0 FROM generate_series(1, 4) g");
            }
        }
        double[][] tps = new double[3][rounds];
        long[][] aborts = new long[3][rounds];
        for (int round = -1; round < rounds; round++) {
            for (int k = 0; k < 3; k++) {
                int v = (round & 1) == 0 ? k : 2 - k;
                final int vv = v;
                AtomicLong done = new AtomicLong(), failed = new AtomicLong();
                long end = System.nanoTime() + ms * 1_000_000L;
                ExecutorService pool = Executors.newFixedThreadPool(threads);
                List<Future<?>> fs = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    final int seed = t;
                    fs.add(pool.submit(() -> {
                        Random r = new Random(seed * 31 + vv);
                        try (Connection c = DriverManager.getConnection(urls[vv])) {
                            c.setAutoCommit(false);
                            c.setTransactionIsolation(iso);
                            while (System.nanoTime() < end) {
                                int d = 1 + r.nextInt(4);
                                try {
                                    int o;
                                    try (PreparedStatement u = c.prepareStatement(
                                            "UPDATE conc_district_" + vv
                                                    + " SET next_o_id = next_o_id + 1, ytd = ytd + ? WHERE d_id = ? RETURNING next_o_id - 1")) {
                                        u.setBigDecimal(1, new java.math.BigDecimal("1.50"));
                                        u.setInt(2, d);
                                        try (ResultSet rs = u.executeQuery()) {
                                            rs.next();
                                            o = rs.getInt(1);
                                        }
                                    }
                                    try (PreparedStatement p = c.prepareStatement(
                                            "INSERT INTO conc_line_" + vv
                                                    + " (o_id, d_id, number, i_id, delivery_d, quantity, amount, dist_info) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")) {
                                        for (int n = 1; n <= 100; n++) {
                                            p.setInt(1, o);
                                            p.setInt(2, d);
                                            p.setInt(3, n);
                                            p.setInt(4, r.nextInt(100000));
                                            if (n % 3 == 0) p.setNull(5, Types.TIMESTAMP);
                                            else p.setTimestamp(5, new Timestamp(1_700_000_000_000L + n));
                                            p.setBigDecimal(6, new java.math.BigDecimal(5));
                                            p.setBigDecimal(7, new java.math.BigDecimal("12.34"));
                                            p.setString(8, "dist-info-" + n);
                                            p.addBatch();
                                        }
                                        p.executeBatch();
                                    }
                                    c.commit();
                                    done.incrementAndGet();
                                } catch (SQLException e) {
                                    String st = e.getSQLState();
                                    if (e instanceof BatchUpdateException && e.getNextException() != null)
                                        st = e.getNextException().getSQLState();
                                    if (st == null || !st.startsWith("40")) throw e;
                                    c.rollback();
                                    failed.incrementAndGet();
                                }
                            }
                        }
                        return null;
                    }));
                }
                for (Future<?> f : fs) f.get();
                pool.shutdown();
                if (round >= 0) {
                    tps[v][round] = done.get() * 1000.0 / ms;
                    aborts[v][round] = failed.get();
                }
            }
        }
        for (int v = 0; v < 3; v++) {
            double sb = 0, sf = 0;
            long ab = 0;
            for (int r = 0; r < rounds; r++) {
                sb += tps[v][r] / tps[0][r];
                sf += tps[v][r] / tps[1][r];
                ab += aborts[v][r];
            }
            double mean = Arrays.stream(tps[v]).average().orElse(0);
            System.out.printf(
                    "%-10s %7.1f tx/s  x bare %.3f  x flag %.3f  class-40 aborts %d%n",
                    names[v], mean, sb / rounds, sf / rounds, ab);
        }
    }
}
