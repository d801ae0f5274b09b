package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.stats.FlushlessReport;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * W8 paired: single-row autocommit INSERT throughput from {@code threads} application threads through a HikariCP
 * pool of as many connections, bare pgjdbc against a Flushless variant (default: batch mode with
 * {@code flushless.groupCommit=true}) in ONE fork. Each side has its own pool, latency proxy (same delay) and table;
 * the same {@code threads} worker threads run alternating blocks of {@code blockMs} on the two pools (ABBA: bare
 * first in even pairs, second in odd ones). In a block every worker inserts back to back (borrow,
 * {@code prepareStatement}, {@code executeUpdate} = 1, close, as {@link W8GroupCommit}) until the block's deadline;
 * the block's throughput is the rows committed over the time from the start signal to the last worker's return
 * (its in-flight insert included, for both sides alike). Per pair: the ratio of the variant's throughput to bare's
 * ({@code speed}, the "x of bare") and of the worker threads' summed CPU time per row (ThreadMXBean; the
 * group-commit leader work runs on these threads), with 95% intervals; per side round trips and server statements
 * per row; for a Flushless variant the mean group size of its measured blocks. At the end each table must hold
 * exactly as many rows as inserts returned 1.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class W8PairedThroughput {

    @Param({"1", "4", "16", "64"})
    public int threads;

    @Param({"flushless_group_commit"})
    public String variant;

    /** One-way delay of the latency proxy in ms, fractional allowed ({@code direct}: no proxy). */
    @Param({"0", "0.25", "1"})
    public String delayMs;

    @Param({"8"})
    public int pairs;

    @Param({"500"})
    public int blockMs;

    /** Warm-up: alternating blocks of {@code blockMs} for this long (ms). */
    @Param({"3000"})
    public int warmupMs;

    /** Longest warm-up (ms): past {@code warmupMs} it goes on until the JIT has settled, up to this. */
    @Param({"30000"})
    public int maxWarmupMs;

    private double[] warmup;

    /** {@code flushless.groupCommit.maxDelayMicros} of a Flushless variant (the driver's default, 200). */
    @Param({"200"})
    public String maxDelayMicros;

    private BenchmarkParams params;
    private final List<Side> sides = new ArrayList<>();
    private ExecutorService workers;
    private Ping proxied;
    private Ping direct;

    private static final class Side {
        final String variant;
        final Harness h;
        final String table;
        HikariDataSource pool;
        long[] nextId;
        double wall;
        double cpu;
        long rows;
        long roundTrips;
        long statements;
        boolean statementsCounted = true;
        long groups;
        long groupedRows;
        double[] roundRate;
        double[] roundCpu;

        Side(String variant, Harness h) {
            this.variant = variant;
            this.h = h;
            this.table = "w8p_" + variant;
        }
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        this.params = params;
        for (String v : List.of("bare", variant)) {
            Harness h = Harness.openWithoutConnection(params, v, delayMs);
            h.skipCountsLine();
            Side s = new Side(v, h);
            sides.add(s);
            h.house(
                    "DROP TABLE IF EXISTS " + s.table,
                    "CREATE TABLE " + s.table + " (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)");
            HikariConfig config = new HikariConfig();
            config.setPoolName("w8p-" + v + "-" + threads);
            config.setJdbcUrl(h.appUrl());
            Properties properties = h.appProperties();
            if (h.variant().flushlessMode() != null) {
                properties.setProperty("flushless.groupCommit.maxDelayMicros", maxDelayMicros);
            }
            config.setDataSourceProperties(properties);
            config.setMaximumPoolSize(threads);
            config.setMinimumIdle(threads);
            config.setAutoCommit(true);
            s.pool = new HikariDataSource(config);
            List<Connection> all = new ArrayList<>();
            for (int i = 0; i < threads; i++) { // every connection opened before the measurement starts
                all.add(s.pool.getConnection());
            }
            for (Connection c : all) {
                c.close();
            }
            s.nextId = new long[threads];
            for (int i = 0; i < threads; i++) {
                s.nextId[i] = (i + 1L) << 40;
            }
        }
        AtomicInteger n = new AtomicInteger();
        workers = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "w8p-writer-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        for (Side s : sides) {
            s.h.startCounting();
        }
    }

    @Benchmark
    public double paired() throws Exception {
        warmup = PairStats.warmUp(sides.stream().map(side -> side.h).toList(), warmupMs, maxWarmupMs, round -> {
            for (Side s : order(round)) {
                block(s, false);
            }
        });
        // the achieved delay in this fork's conditions, warmed: pings through bare's proxy and direct
        proxied = Ping.measure(sides.get(0).h.appUrl(), 20, 100);
        direct = Ping.measure(Targets.benchmarkUrl(), 20, 100);
        for (Side s : sides) {
            s.roundRate = new double[pairs];
            s.roundCpu = new double[pairs];
            if (s.h.proxy() != null) {
                s.h.proxy().resetCounters(); // lateness of the measured blocks only (round trips: the socket's)
            }
        }
        for (int p = 0; p < pairs; p++) {
            for (Side s : order(p)) {
                double[] r = block(s, true);
                s.roundRate[p] = r[0];
                s.roundCpu[p] = r[1];
            }
        }
        Side bare = sides.get(0);
        Side v = sides.get(1);
        double[] speed = new double[pairs];
        double[] cpu = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            speed[p] = v.roundRate[p] / bare.roundRate[p];
            cpu[p] = v.roundCpu[p] / bare.roundCpu[p];
        }
        ObjectNode line = new ObjectMapper().createObjectNode();
        line.put("benchmark", params.getBenchmark());
        ObjectNode pn = line.putObject("params");
        for (String k : params.getParamsKeys()) {
            pn.put(k, params.getParam(k));
        }
        ObjectNode r = line.putObject("lowLatencyPair");
        r.put("workload", "w8_" + threads + "t");
        r.put("threads", threads);
        r.put("delayMs", delayMs);
        r.put("variant", v.variant);
        r.put("against", "bare");
        r.put("pairs", pairs);
        PairStats.putWarmup(r, warmup);
        r.put("blockMs", blockMs);
        PairStats.put(r, "speed", speed);
        PairStats.put(r, "cpuRatio", cpu);
        for (Side s : sides) {
            String prefix = s == bare ? "bare" : "variant";
            r.put(prefix + "RowsPerSecond", s.rows / s.wall);
            r.put(prefix + "MsPerOp", s.wall / s.rows * 1e3 * threads); // mean latency of one insert
            r.put(prefix + "CpuUsPerOp", s.cpu / s.rows * 1e6);
            r.put(prefix + "RoundTripsPerOp", (double) s.roundTrips / s.rows);
            if (s.statementsCounted) {
                r.put(prefix + "StatementsPerOp", (double) s.statements / s.rows);
            }
        }
        if (v.h.variant().flushlessMode() != null) {
            r.put("variantMeanGroupSize", v.groups == 0 ? 0 : (double) v.groupedRows / v.groups);
            r.put("variantGroupedShare", v.rows == 0 ? 0 : (double) v.groupedRows / v.rows);
        }
        proxied.putInto(r, "pingProxied");
        direct.putInto(r, "pingDirect");
        if (bare.h.proxy() != null) { // how late the proxies' delayed chunks went out in the measured blocks
            r.put("bareProxyMeanLatenessUs", bare.h.proxy().meanLatenessMicros());
            r.put("variantProxyMeanLatenessUs", v.h.proxy().meanLatenessMicros());
        }
        boolean match = true;
        for (Side s : sides) {
            try (Statement st = s.h.houseConnection().createStatement();
                    ResultSet rs = st.executeQuery("SELECT count(*) FROM " + s.table)) {
                rs.next();
                long inTable = rs.getLong(1);
                if (inTable != s.h.ops()) {
                    match = false;
                    System.out.println("[flushless W8 paired] ROW COUNT MISMATCH on " + s.variant + ": " + s.h.ops()
                            + " inserts returned 1, table holds " + inTable + " rows");
                }
            }
        }
        r.put("rowsMatch", match);
        Harness.append(line);
        System.out.println(String.format(
                Locale.ROOT,
                "[paired] %s D=%s %s vs bare: speed %.3fx ±%.3f | rows/s %.0f vs %.0f | CPU µs/row %.0f vs %.0f"
                        + " (%.2fx ±%.2f) | RT/row %.2f vs %.2f | stmts/row %s vs %s | group %.1f | %d pairs x %d ms"
                        + " | ping %.3f ms, proxy late %.0f/%.0f µs",
                r.path("workload").asText(),
                delayMs,
                v.variant,
                r.path("speed").asDouble(),
                r.path("speedCi95").asDouble(),
                r.path("variantRowsPerSecond").asDouble(),
                r.path("bareRowsPerSecond").asDouble(),
                r.path("variantCpuUsPerOp").asDouble(),
                r.path("bareCpuUsPerOp").asDouble(),
                r.path("cpuRatio").asDouble(),
                r.path("cpuRatioCi95").asDouble(),
                r.path("variantRoundTripsPerOp").asDouble(),
                r.path("bareRoundTripsPerOp").asDouble(),
                fmt(r, "variantStatementsPerOp"),
                fmt(r, "bareStatementsPerOp"),
                r.path("variantMeanGroupSize").asDouble(),
                pairs,
                blockMs,
                r.path("pingProxiedMedianMs").asDouble(),
                r.path("variantProxyMeanLatenessUs").asDouble(),
                r.path("bareProxyMeanLatenessUs").asDouble()));
        return PairStats.mean(speed);
    }

    private static String fmt(ObjectNode r, String field) {
        return r.has(field) ? String.format(Locale.ROOT, "%.2f", r.path(field).asDouble()) : "n/a";
    }

    private List<Side> order(int round) {
        return round % 2 == 0 ? sides : List.of(sides.get(1), sides.get(0));
    }

    /** One block on {@code s}: {rows per second, worker CPU seconds per row}; added to its sums if {@code measured}. */
    private double[] block(Side s, boolean measured) throws Exception {
        long st0 = measured ? s.h.serverStatements() : 0;
        long rt0 = s.h.roundTrips();
        FlushlessReport before = measured && s.h.variant().flushlessMode() != null ? FlushlessDriver.report() : null;
        CountDownLatch start = new CountDownLatch(1);
        long[] deadline = new long[1];
        List<Future<long[]>> results = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            int worker = i;
            results.add(workers.submit(() -> {
                start.await();
                long c0 = PairStats.threadCpuNanos();
                long rows = 0;
                long end;
                synchronized (deadline) {
                    end = deadline[0];
                }
                while (System.nanoTime() - end < 0) {
                    insert(s, worker);
                    rows++;
                }
                return new long[] {rows, PairStats.threadCpuNanos() - c0};
            }));
        }
        long t0 = System.nanoTime();
        synchronized (deadline) {
            deadline[0] = t0 + TimeUnit.MILLISECONDS.toNanos(blockMs);
        }
        start.countDown();
        long rows = 0;
        long cpu = 0;
        for (Future<long[]> f : results) {
            long[] r = f.get();
            rows += r[0];
            cpu += r[1];
        }
        double wall = (System.nanoTime() - t0) / 1e9;
        if (measured) {
            long st1 = s.h.serverStatements();
            s.wall += wall;
            s.cpu += cpu / 1e9;
            s.rows += rows;
            s.roundTrips += s.h.roundTrips() - rt0;
            if (st0 < 0 || st1 < 0) {
                s.statementsCounted = false;
            } else {
                s.statements += st1 - st0;
            }
            if (before != null) {
                FlushlessReport after = FlushlessDriver.report();
                s.groups += after.coalescedRuns() - before.coalescedRuns();
                s.groupedRows += after.rewrites().getOrDefault("group-commit", 0L)
                        - before.rewrites().getOrDefault("group-commit", 0L);
            }
        }
        return new double[] {rows / wall, cpu / 1e9 / Math.max(1, rows)};
    }

    private void insert(Side s, int worker) throws SQLException {
        long id = s.nextId[worker]++;
        try (Connection c = s.pool.getConnection();
                PreparedStatement ps = c.prepareStatement("INSERT INTO " + s.table + " (id, a, b) VALUES (?, ?, ?)")) {
            ps.setLong(1, id);
            ps.setInt(2, (int) id);
            ps.setString(3, "row " + id);
            int n = ps.executeUpdate();
            if (n != 1) {
                throw new IllegalStateException("INSERT returned " + n + " for id " + id);
            }
        }
        s.h.op();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        workers.shutdownNow();
        for (Side s : sides) {
            try {
                s.pool.close();
            } finally {
                s.h.close();
            }
        }
    }
}
