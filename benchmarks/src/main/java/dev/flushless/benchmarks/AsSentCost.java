package dev.flushless.benchmarks;

import java.lang.management.ManagementFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * The client cost of one W7 operation (a JDBC batch of {@code rows} rows + commit, autocommit off, as
 * {@link InsertRows} runs it) on bare pgjdbc and on Flushless in {@code mode=batch} and {@code mode=transaction}
 * (default properties): the calling thread's CPU time and the bytes it allocated per operation
 * ({@code com.sun.management.ThreadMXBean}), which the noise of other work on a shared machine barely moves (unlike
 * wall time). Issue #15: a batch below {@code flushless.minBatchRows} runs as sent and must cost (nearly) what bare
 * pgjdbc costs.
 *
 * <p>The sides run in one JVM, one connection each, on one thread, in alternating blocks (bare first in even rounds,
 * last in odd ones); each block runs {@code ops} operations after its table was emptied (outside the measurement).
 * Per round, each Flushless side's CPU per operation is divided by bare's; the result is the mean ratio with a 95%
 * interval, next to the mean CPU µs (and its user-mode part) and allocated bytes per operation. Self-contained (only
 * {@code java.sql}, this package's {@link InsertRows} and the JDK), so that it runs against any build of the driver on
 * the class path, without JMH:
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.flushless.benchmarks.AsSentCost \
 *     --url 'jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres' --rows 1,10 --rounds 20 --ops 2000
 * # or against a build's classes: -cp target/classes:postgresql-42.7.14.jar:jsqlparser-5.4.jar:benchmarks/target/classes
 * </pre>
 *
 * Options: {@code --sides bare,flushless_batch,flushless_transaction} (side {@code flag} is bare pgjdbc with
 * {@code reWriteBatchedInserts=true}), {@code --warmup <ops per side>} (default
 * 20000), {@code --seconds <n>} (instead of rounds: run only the first side for n seconds, e.g. under JFR), and
 * {@code --prefix} for the table names (default {@code ascpu_<pid>_}, so that runs side by side do not share tables).
 * {@code --workload w8} measures W8's operation instead (one single-row autocommit INSERT through a one-connection
 * HikariCP pool; {@code --rows 1}); its side {@code flushless_group_commit} has {@code flushless.groupCommit=true}, so a
 * lone writer's cost of the group-commit path shows. {@code --workload
 * payment} measures one TPC-C Payment-shaped transaction ({@link PaymentOp}; {@code --rows 1}); its side {@code
 * flushless_transaction_buffering} buffers however near the server is ({@code flushless.bufferMinRoundTripMicros=0}).
 */
public final class AsSentCost {

    private AsSentCost() {}

    /** The workload in the printed lines: W7, or W8 with {@code --workload w8}. */
    private static String label = "W7";

    private static final com.sun.management.OperatingSystemMXBean PROCESS =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    private static final OrderLineShape LOADER_SHAPE = new OrderLineShape();

    /** The {@code --workload loader*} batches: autocommit batches of {@code --rows} rows, as a loader sends them. */
    private enum Loader {
        /** TPC-C order_line rows with a column list ({@link OrderLineShape}). */
        ORDER_LINE_SHAPE("Loader"),
        /** BenchBase's order_line rows, bound as its loader binds them. */
        BENCHBASE_ORDER_LINE("LoaderOrderLine"),
        /** BenchBase's stock rows. */
        BENCHBASE_STOCK("LoaderStock");

        final String label;

        Loader(String label) {
            this.label = label;
        }

        static Loader of(String workload) {
            return switch (workload) {
                case "loader_order_line" -> BENCHBASE_ORDER_LINE;
                case "loader_stock" -> BENCHBASE_STOCK;
                default -> ORDER_LINE_SHAPE;
            };
        }

        String createTable(String table) {
            return this == BENCHBASE_STOCK ? STOCK_TABLE.formatted(table) : LOADER_SHAPE.createTable(table);
        }

        void batch(Connection c, String table, long first, int rows) throws SQLException {
            switch (this) {
                case BENCHBASE_STOCK -> stockBatch(c, table, first, rows);
                case BENCHBASE_ORDER_LINE -> orderLineBatch(c, table, first, rows);
                default -> LOADER_SHAPE.insertBatch(c, table, first, rows);
            }
        }
    }

    /** BenchBase's TPC-C stock table (its foreign keys left out: every form checks them alike). */
    private static final String STOCK_TABLE = "CREATE TABLE %s (s_w_id int NOT NULL, s_i_id int NOT NULL,"
            + " s_quantity int NOT NULL, s_ytd decimal(8,2) NOT NULL, s_order_cnt int NOT NULL, s_remote_cnt int NOT NULL,"
            + " s_data varchar(50) NOT NULL, s_dist_01 char(24) NOT NULL, s_dist_02 char(24) NOT NULL,"
            + " s_dist_03 char(24) NOT NULL, s_dist_04 char(24) NOT NULL, s_dist_05 char(24) NOT NULL,"
            + " s_dist_06 char(24) NOT NULL, s_dist_07 char(24) NOT NULL, s_dist_08 char(24) NOT NULL,"
            + " s_dist_09 char(24) NOT NULL, s_dist_10 char(24) NOT NULL, PRIMARY KEY (s_w_id, s_i_id))";

    /**
     * One batch of stock rows as BenchBase's {@code TPCCLoader.loadStock} binds them: no column list, setLong into int
     * columns, setDouble into decimal, eleven strings (random letters, as its {@code randomStr}).
     */
    private static void stockBatch(Connection c, String table, long first, int rows) throws SQLException {
        java.util.Random random = new java.util.Random(first);
        try (java.sql.PreparedStatement ps = c.prepareStatement(
                "INSERT INTO " + table + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                long n = first + i;
                int idx = 1;
                ps.setLong(idx++, n / 100_000 + 1);
                ps.setLong(idx++, n % 100_000 + 1);
                ps.setLong(idx++, 10 + random.nextInt(91));
                ps.setDouble(idx++, 0);
                ps.setLong(idx++, 0);
                ps.setLong(idx++, 0);
                ps.setString(idx++, letters(random, 26 + random.nextInt(25)));
                for (int d = 0; d < 10; d++) {
                    ps.setString(idx++, letters(random, 24));
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    /**
     * One batch of order_line rows as BenchBase's {@code TPCCLoader.loadOrderLines} binds them into the wide shape's
     * table: no column list, setLong for two int columns, setTimestamp or {@code setNull(i, 0)}, setDouble into
     * decimal.
     */
    private static void orderLineBatch(Connection c, String table, long first, int rows) throws SQLException {
        java.util.Random random = new java.util.Random(first);
        try (java.sql.PreparedStatement ps =
                c.prepareStatement("INSERT INTO " + table + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int i = 0; i < rows; i++) {
                long n = first + i;
                int idx = 1;
                ps.setInt(idx++, OrderLineShape.warehouse(n));
                ps.setInt(idx++, OrderLineShape.district(n));
                ps.setInt(idx++, OrderLineShape.order(n));
                ps.setInt(idx++, OrderLineShape.line(n));
                ps.setLong(idx++, OrderLineShape.item(n));
                boolean delivered = OrderLineShape.order(n) < 2101;
                if (delivered) {
                    ps.setTimestamp(idx++, new java.sql.Timestamp(1_780_000_000_000L + n));
                } else {
                    ps.setNull(idx++, 0);
                }
                ps.setDouble(idx++, delivered ? 0 : (float) (1 + random.nextInt(999_999)) / 100.0);
                ps.setLong(idx++, OrderLineShape.warehouse(n));
                ps.setDouble(idx++, 5);
                ps.setString(idx, letters(random, 24));
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    private static String letters(java.util.Random random, int length) {
        char[] out = new char[length];
        for (int i = 0; i < length; i++) {
            out[i] = (char) ('a' + random.nextInt(26));
        }
        return new String(out);
    }

    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    /** One connection and its table. */
    private static final class Side {
        final String name;
        final Connection connection;
        final String insert;
        final String table;
        long nextId = 1;
        double[] cpuNanosPerOp;
        double[] userNanosPerOp;
        double[] bytesPerOp;

        Side(String name, Connection connection, String table) {
            this.name = name;
            this.connection = connection;
            this.table = table;
            this.insert = "INSERT INTO " + table + " (id, a, b) VALUES (?, ?, ?)";
        }

        /**
         * CPU time of the side's server backend (its {@code /proc/<pid>/schedstat}, when the server runs on this
         * machine), µs per operation, per round; NaN otherwise.
         */
        double[] serverMicrosPerOp;

        /** The whole JVM's CPU time (GC and compiler threads too), µs per operation, per round. */
        double[] processMicrosPerOp;

        /** The server backend's process id ({@code pg_backend_pid()}). */
        int backendPid;

        /** The loader batches of a {@code --workload loader*} side (autocommit), or null. */
        Loader loader;

        /** The Payment transaction of a {@code --workload payment} side, or null. */
        PaymentOp payment;

        /** The pool of a {@code --workload w8} side (one connection), or null. */
        com.zaxxer.hikari.HikariDataSource pool;

        /**
         * One W7 operation ({@link InsertRows#insertBatch}, then commit, as {@link InsertRows#insert} runs it), or with
         * {@link #pool} one W8 operation: a single-row autocommit INSERT through HikariCP, as {@link W8PairedThroughput}
         * runs it (borrow, {@code prepareStatement}, three parameters, {@code executeUpdate}, close both), or with
         * {@link #payment} one Payment-shaped transaction.
         */
        void op(int rows) throws SQLException {
            if (payment != null) {
                payment.run(connection);
                return;
            }
            if (pool != null) {
                long id = nextId++;
                try (Connection c = pool.getConnection();
                        java.sql.PreparedStatement ps = c.prepareStatement(insert)) {
                    ps.setLong(1, id);
                    ps.setInt(2, (int) id);
                    ps.setString(3, "row " + id);
                    if (ps.executeUpdate() != 1) {
                        throw new IllegalStateException("INSERT did not insert row " + id);
                    }
                }
                return;
            }
            long first = nextId;
            nextId += rows;
            if (loader != null) {
                loader.batch(connection, table, first, rows);
                return;
            }
            InsertRows.insertBatch(connection, insert, first, rows);
            connection.commit();
        }
    }

    public static void main(String[] args) throws Exception {
        String url = "jdbc:postgresql://127.0.0.1:5432/postgres?user=postgres";
        List<Integer> rowCounts = List.of(1, 10);
        List<String> sideNames = List.of("bare", "flushless_batch", "flushless_transaction");
        int rounds = 20;
        int ops = 2000;
        int warmup = 20000;
        int seconds = 0;
        String prefix = "ascpu_" + ProcessHandle.current().pid() + "_";
        boolean w8 = false;
        boolean payment = false;
        Loader loader = null;
        for (int i = 0; i < args.length; i++) {
            String value = i + 1 < args.length ? args[i + 1] : "";
            switch (args[i]) {
                case "--url" -> url = value;
                case "--rows" ->
                    rowCounts = Arrays.stream(value.split(","))
                            .map(Integer::valueOf)
                            .toList();
                case "--sides" -> sideNames = List.of(value.split(","));
                case "--rounds" -> rounds = Integer.parseInt(value);
                case "--ops" -> ops = Integer.parseInt(value);
                case "--warmup" -> warmup = Integer.parseInt(value);
                case "--seconds" -> seconds = Integer.parseInt(value);
                case "--prefix" -> prefix = value;
                case "--workload" ->
                    w8 = switch (value) {
                        case "w7" -> false;
                        case "payment" -> {
                            label = "Payment";
                            payment = true;
                            yield false;
                        }
                        case "w8" -> {
                            label = "W8";
                            yield true;
                        }
                        case "loader", "loader_order_line", "loader_stock" -> {
                            loader = Loader.of(value);
                            label = loader.label;
                            yield false;
                        }
                        default ->
                            throw new IllegalArgumentException(
                                    "--workload w7, w8, payment, loader, loader_order_line or loader_stock: " + value);
                    };
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
            i++;
        }
        THREADS.setThreadAllocatedMemoryEnabled(true);
        try (Connection house = DriverManager.getConnection(url)) {
            house.setAutoCommit(true);
            for (int rows : rowCounts) {
                List<Side> sides = new ArrayList<>();
                try {
                    for (String name : sideNames) {
                        String table = prefix + "w7_" + rows + "_" + name;
                        execute(
                                house,
                                "DROP TABLE IF EXISTS " + table,
                                loader != null
                                        ? loader.createTable(table)
                                        : "CREATE TABLE " + table
                                                + " (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)");
                        Connection c = DriverManager.getConnection(connect(url, name));
                        c.setAutoCommit(loader != null);
                        Side side = new Side(name, c, table);
                        side.loader = loader;
                        side.backendPid = backendPid(c);
                        if (payment) {
                            side.payment = new PaymentOp(prefix + name + "_");
                            side.payment.create(house);
                        }
                        if (w8) {
                            com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
                            config.setJdbcUrl(connect(url, name));
                            config.setMaximumPoolSize(1);
                            config.setAutoCommit(true);
                            side.pool = new com.zaxxer.hikari.HikariDataSource(config);
                        }
                        sides.add(side);
                    }
                    run(house, sides, rows, rounds, ops, warmup, seconds);
                } finally {
                    for (Side s : sides) {
                        s.connection.close();
                        if (s.pool != null) {
                            s.pool.close();
                        }
                        execute(house, "DROP TABLE IF EXISTS " + s.table);
                        if (s.payment != null) {
                            s.payment.drop(house);
                        }
                    }
                }
            }
        }
    }

    private static void run(Connection house, List<Side> sides, int rows, int rounds, int ops, int warmup, int seconds)
            throws SQLException {
        for (int done = 0; done < warmup; done += ops) { // alternating, so that every side is compiled alike
            for (Side s : sides) {
                block(house, s, rows, Math.min(ops, warmup - done));
            }
        }
        if (seconds > 0) { // profiling: the first side only
            Side s = sides.get(0);
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long blocks = 0;
            double cpu = 0;
            double bytes = 0;
            while (System.nanoTime() < end) {
                double[] r = block(house, s, rows, ops);
                cpu += r[0];
                bytes += r[1];
                blocks++;
            }
            System.out.printf(
                    Locale.ROOT,
                    "[as-sent-cost] %s rows=%d %s: CPU %.2f µs/op, %.0f B/op (%d blocks of %d ops)%n",
                    label,
                    rows,
                    s.name,
                    cpu / blocks / 1e3,
                    bytes / blocks,
                    blocks,
                    ops);
            return;
        }
        for (Side s : sides) {
            s.serverMicrosPerOp = new double[rounds];
            s.processMicrosPerOp = new double[rounds];
            s.cpuNanosPerOp = new double[rounds];
            s.userNanosPerOp = new double[rounds];
            s.bytesPerOp = new double[rounds];
        }
        for (int round = 0; round < rounds; round++) {
            List<Side> order = new ArrayList<>(sides);
            if (round % 2 == 1) {
                Collections.reverse(order);
            }
            for (Side s : order) {
                double server0 = backendCpuNanos(s.backendPid);
                long process0 = PROCESS.getProcessCpuTime();
                double[] r = block(house, s, rows, ops);
                s.processMicrosPerOp[round] = (PROCESS.getProcessCpuTime() - process0) / 1e3 / ops;
                s.serverMicrosPerOp[round] = (backendCpuNanos(s.backendPid) - server0) / 1e3 / ops;
                s.cpuNanosPerOp[round] = r[0];
                s.bytesPerOp[round] = r[1];
                s.userNanosPerOp[round] = r[2];
            }
        }
        Side bare = sides.get(0);
        for (Side s : sides) {
            double[] ratio = new double[rounds];
            double[] bytesDelta = new double[rounds];
            for (int round = 0; round < rounds; round++) {
                ratio[round] = s.cpuNanosPerOp[round] / bare.cpuNanosPerOp[round];
                bytesDelta[round] = s.bytesPerOp[round] - bare.bytesPerOp[round];
            }
            System.out.printf(
                    Locale.ROOT,
                    "[as-sent-cost] %s rows=%d %-22s CPU %7.2f µs/op (median %7.2f), user %6.2f | JVM %7.1f, server %7.1f µs/op"
                            + " | %8.0f B/op"
                            + " | vs %s: CPU %.3fx ±%.3f, %+.2f µs/op, user %+.2f µs/op, %+.0f B/op | %d rounds x %d ops%n",
                    label,
                    rows,
                    s.name,
                    mean(s.cpuNanosPerOp) / 1e3,
                    median(s.cpuNanosPerOp) / 1e3,
                    mean(s.userNanosPerOp) / 1e3,
                    mean(s.processMicrosPerOp),
                    mean(s.serverMicrosPerOp),
                    mean(s.bytesPerOp),
                    bare.name,
                    mean(ratio),
                    ci95(ratio),
                    (mean(s.cpuNanosPerOp) - mean(bare.cpuNanosPerOp)) / 1e3,
                    (mean(s.userNanosPerOp) - mean(bare.userNanosPerOp)) / 1e3,
                    mean(bytesDelta),
                    rounds,
                    ops);
        }
    }

    /**
     * Empties the side's table, then runs {@code n} operations: {CPU ns, allocated bytes, user-mode CPU ns} per op.
     * User-mode CPU leaves out the kernel's socket work (the same on every side, and the noisiest part on a loaded
     * machine); the JVM reads it in clock ticks, so it is meaningful as a mean over many blocks only.
     */
    private static double[] block(Connection house, Side s, int rows, int n) throws SQLException {
        execute(house, "TRUNCATE " + s.table);
        if (s.payment != null) {
            s.payment.truncate(house);
        }
        long thread = Thread.currentThread().getId();
        long bytes0 = THREADS.getThreadAllocatedBytes(thread);
        long user0 = THREADS.getCurrentThreadUserTime();
        long cpu0 = THREADS.getCurrentThreadCpuTime();
        for (int i = 0; i < n; i++) {
            s.op(rows);
        }
        long cpu1 = THREADS.getCurrentThreadCpuTime();
        long user1 = THREADS.getCurrentThreadUserTime();
        long bytes1 = THREADS.getThreadAllocatedBytes(thread);
        return new double[] {(double) (cpu1 - cpu0) / n, (double) (bytes1 - bytes0) / n, (double) (user1 - user0) / n};
    }

    /** The backend's CPU time in ns ({@code /proc/<pid>/schedstat}'s first field), NaN when not readable. */
    private static double backendCpuNanos(int pid) {
        try {
            String stat = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/" + pid + "/schedstat"));
            return Double.parseDouble(stat.substring(0, stat.indexOf(' ')));
        } catch (java.io.IOException | RuntimeException e) {
            return Double.NaN;
        }
    }

    private static int backendPid(Connection c) throws SQLException {
        try (Statement s = c.createStatement();
                java.sql.ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            int pid = rs.getInt(1);
            if (!c.getAutoCommit()) {
                c.commit();
            }
            return pid;
        }
    }

    private static String connect(String url, String side) {
        if (side.equals("bare")) {
            return url;
        }
        if (side.equals("flag")) { // pgjdbc's own rewrite, the free alternative (issue #27)
            return url + (url.contains("?") ? "&" : "?") + "reWriteBatchedInserts=true";
        }
        if (!side.startsWith("flushless_")) {
            throw new IllegalArgumentException("side bare, flag or flushless_<mode>: " + side);
        }
        String mode = side.substring("flushless_".length());
        if (mode.equals("transaction_buffering")) { // buffers however near the server is
            mode = "transaction&flushless.bufferMinRoundTripMicros=0";
        }
        if (mode.equals("batch_copy")) { // COPY for every coalesced plain INSERT batch
            mode = "batch&flushless.copy=always";
        }
        if (mode.equals("group_commit")) {
            mode = "batch&flushless.groupCommit=true";
        }
        return "jdbc:flushless:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?") + "flushless.mode="
                + mode;
    }

    private static void execute(Connection c, String... sql) throws SQLException {
        try (Statement s = c.createStatement()) {
            for (String text : sql) {
                s.execute(text);
            }
        }
    }

    private static double mean(double[] values) {
        double sum = 0;
        for (double v : values) {
            sum += v;
        }
        return sum / values.length;
    }

    private static double median(double[] values) {
        double[] sorted = values.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
    }

    /** Half-width of the 95% interval of the mean (normal approximation). */
    private static double ci95(double[] values) {
        if (values.length < 2) {
            return Double.NaN;
        }
        double m = mean(values);
        double ss = 0;
        for (double v : values) {
            ss += (v - m) * (v - m);
        }
        return 1.96 * Math.sqrt(ss / (values.length - 1) / values.length);
    }
}
