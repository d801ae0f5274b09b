package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.node.ArrayNode;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
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
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.infra.IterationParams;
import org.openjdk.jmh.infra.ThreadParams;
import org.openjdk.jmh.runner.IterationType;

/**
 * W8 (issue #9): single-row autocommit INSERT throughput from 1, 4, 16 and 64 application threads sharing a
 * HikariCP pool of as many connections as threads, bare pgjdbc against Flushless with
 * {@code flushless.groupCommit=true}.
 *
 * <p>One operation is one committed row: a thread borrows a connection from the pool, prepares
 * {@code INSERT INTO w8 (id, a, b) VALUES (?, ?, ?)}, executes it in autocommit (it must return 1), and gives
 * the connection back, as an application's DAO does. JMH runs the threads itself ({@code @Threads} on one
 * method per thread count) in throughput mode, so the score (ops/s summed over the threads) is committed rows
 * per second, measured while every thread is busy (JMH synchronizes the start and end of each iteration
 * across threads). An explicit thread pool inside one {@code @Benchmark} method would instead measure rounds
 * of N inserts that start together and end with the slowest: that lines the writers up for group commit (a
 * synchronized burst every round) and adds each round's tail to both variants, so it would flatter group commit.
 *
 * <p>Keys: thread i writes ids from {@code (i + 1) << 40} upwards, so no two threads collide. The table is
 * not emptied during the trial: at its end the harness checks that it holds exactly as many rows as inserts
 * returned 1 ({@code rowsInTable} in the counts file), i.e. no row was lost or doubled. For the Flushless
 * variant the counts line also carries the driver's own statistics of the measurement iterations
 * ({@code groups}, {@code groupedRows}, {@code meanGroupSize}, rows run alone, mean time of a grouped
 * statement), and for both the busiest statements from {@code pg_stat_statements} (calls, rows, server time),
 * and scheduler counters from /proc of the measurement iterations per committed row: on-CPU and run-queue time
 * of the benchmark JVM and of the pool's PostgreSQL backends, and the JVM's context switches.
 *
 * <p>Server durability: the embedded server runs with {@code fsync} and {@code synchronous_commit} off unless the
 * host JVM is started with {@code -Dflushless.test.durable=true} (then both on: each bare autocommit INSERT
 * waits for a WAL flush, the case group commit is for); the counts line records both settings.
 *
 * <p>Default length: one fork, 4 warm-up iterations of 2 s and 5 measured iterations of 2 s per configuration
 * (16 configurations, about 6 minutes in all on 2 cores).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 4, time = 2)
@Measurement(iterations = 5, time = 2)
public class W8GroupCommit {

    static final String TABLE = "w8";
    static final String INSERT = "INSERT INTO " + TABLE + " (id, a, b) VALUES (?, ?, ?)";

    @Param({"bare", "flushless_group_commit"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1"})
    public String delayMs;

    /**
     * {@code flushless.groupCommit.maxDelayMicros} of the group-commit variant (the driver's default, 200, unless
     * given with {@code -p maxDelayMicros=...}); ignored by {@code bare}.
     */
    @Param({"200"})
    public String maxDelayMicros;

    private Harness h;
    private HikariDataSource pool;
    private FlushlessReport before;
    private int threads;
    private List<Long> backends;
    private boolean measuring;
    private long opsStart;
    private Sample sampleStart;
    private long wallStart;
    private long measuredOps;
    private long measuredWall;
    private Sample measured = Sample.ZERO;

    /** One application thread's key range. */
    @State(Scope.Thread)
    public static class Writer {
        long nextId;

        @Setup(Level.Trial)
        public void setUp(ThreadParams thread) {
            nextId = (thread.getThreadIndex() + 1L) << 40;
        }
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        threads = params.getThreads();
        h = Harness.openWithoutConnection(params, variant, delayMs);
        h.house(
                "DROP TABLE IF EXISTS " + TABLE,
                "CREATE TABLE " + TABLE + " (id bigint PRIMARY KEY, a int NOT NULL, b text NOT NULL)");
        HikariConfig config = new HikariConfig();
        config.setPoolName("w8-" + variant + "-" + threads);
        config.setJdbcUrl(h.appUrl());
        java.util.Properties properties = h.appProperties();
        if (h.variant().flushlessMode() != null) {
            properties.setProperty("flushless.groupCommit.maxDelayMicros", maxDelayMicros);
        }
        config.setDataSourceProperties(properties);
        config.setMaximumPoolSize(threads);
        config.setMinimumIdle(threads);
        config.setAutoCommit(true);
        pool = new HikariDataSource(config);
        List<Connection> all = new ArrayList<>();
        for (int i = 0; i < threads; i++) { // every connection opened before the measurement starts
            all.add(pool.getConnection());
        }
        for (Connection c : all) {
            c.close();
        }
        backends = backendPids();
        h.startCounting();
    }

    /** Before a measurement iteration: snapshots for the CPU and group statistics (warm-up and JIT excluded). */
    @Setup(Level.Iteration)
    public void iterationStart(IterationParams iteration) {
        measuring = iteration.getType() == IterationType.MEASUREMENT;
        if (measuring) {
            if (before == null) {
                before = FlushlessDriver.report();
            }
            opsStart = h.ops();
            sampleStart = Sample.take(backends);
            wallStart = System.nanoTime();
        }
    }

    @TearDown(Level.Iteration)
    public void iterationEnd() {
        if (measuring) {
            measuredWall += System.nanoTime() - wallStart;
            measuredOps += h.ops() - opsStart;
            measured = measured.plus(Sample.take(backends).minus(sampleStart));
        }
    }

    @Benchmark
    @Threads(1)
    public void threads01(Writer w) throws SQLException {
        insert(w);
    }

    @Benchmark
    @Threads(4)
    public void threads04(Writer w) throws SQLException {
        insert(w);
    }

    @Benchmark
    @Threads(16)
    public void threads16(Writer w) throws SQLException {
        insert(w);
    }

    @Benchmark
    @Threads(64)
    public void threads64(Writer w) throws SQLException {
        insert(w);
    }

    private void insert(Writer w) throws SQLException {
        long id = w.nextId++;
        try (Connection c = pool.getConnection();
                PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setLong(1, id);
            ps.setInt(2, (int) id);
            ps.setString(3, "row " + id);
            int n = ps.executeUpdate();
            if (n != 1) {
                throw new IllegalStateException("INSERT returned " + n + " for id " + id);
            }
        }
        h.op();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        try {
            ObjectNode extra = h.extra();
            extra.put("threads", threads);
            extra.put("poolSize", threads);
            try (Statement s = h.houseConnection().createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT current_setting('fsync'), current_setting('synchronous_commit')")) {
                rs.next();
                extra.put("fsync", rs.getString(1));
                extra.put("synchronousCommit", rs.getString(2));
            }
            // Measurement iterations only (no warm-up, no JIT): rows, and CPU per committed row of the benchmark
            // JVM (application threads, pool, driver and the latency proxy's threads) and of the pool's PostgreSQL
            // backends (from /proc: an embedded or local server only), with each one's share of one CPU.
            long ops = Math.max(1, measuredOps);
            extra.put("measuredRows", measuredOps);
            extra.put("measuredRowsPerSecond", measuredOps / (measuredWall / 1e9));
            if (measured.clientCpu() >= 0) {
                extra.put("clientCpuUsPerRow", measured.clientCpu() / 1e3 / ops);
                extra.put("clientCpuShare", (double) measured.clientCpu() / measuredWall);
                extra.put("clientRunQueueUsPerRow", measured.clientQueued() / 1e3 / ops);
                extra.put("clientContextSwitchesPerRow", (double) measured.clientSwitches() / ops);
            }
            if (measured.serverCpu() >= 0) {
                extra.put("serverCpuUsPerRow", measured.serverCpu() / 1e3 / ops);
                extra.put("serverCpuShare", (double) measured.serverCpu() / measuredWall);
                extra.put("serverRunQueueUsPerRow", measured.serverQueued() / 1e3 / ops);
            }
            long rowsInTable;
            try (Statement s = h.houseConnection().createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM " + TABLE)) {
                rs.next();
                rowsInTable = rs.getLong(1);
            }
            extra.put("rowsInTable", rowsInTable);
            extra.put("rowsMatch", rowsInTable == h.ops());
            if (rowsInTable != h.ops()) {
                System.out.println("[flushless W8] ROW COUNT MISMATCH: " + h.ops() + " inserts returned 1, table holds "
                        + rowsInTable + " rows");
            }
            if (h.variant().flushlessMode() != null && before != null) {
                FlushlessReport after = FlushlessDriver.report();
                long grouped = delta(after.rewrites(), before.rewrites(), "group-commit");
                long groups = after.coalescedRuns() - before.coalescedRuns();
                long issued = after.statementsIssued() - before.statementsIssued();
                ObjectNode g = extra.putObject("groupCommit"); // measurement iterations only
                g.put("groups", groups);
                g.put("groupedRows", grouped);
                g.put("rowsAlone", issued - grouped);
                g.put("meanGroupSize", groups == 0 ? 0 : (double) grouped / groups);
                g.put("groupedShare", issued == 0 ? 0 : (double) grouped / issued);
                g.put(
                        "meanGroupMillis",
                        groups == 0 ? 0 : (after.coalescedNanos() - before.coalescedNanos()) / 1e6 / groups);
                ObjectNode fallbacks = g.putObject("fallbacks");
                for (Map.Entry<String, Long> e : after.fallbacks().entrySet()) {
                    long d = e.getValue() - before.fallbacks().getOrDefault(e.getKey(), 0L);
                    if (d != 0) {
                        fallbacks.put(e.getKey(), d);
                    }
                }
            }
            ArrayNode top = extra.putArray("topStatements");
            try (Statement s = h.houseConnection().createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 160), calls, rows,"
                                    + " total_exec_time FROM pg_stat_statements"
                                    + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                                    + " ORDER BY calls DESC LIMIT 6")) {
                while (rs.next()) {
                    ObjectNode q = top.addObject();
                    q.put("query", rs.getString(1));
                    q.put("calls", rs.getLong(2));
                    q.put("rows", rs.getLong(3));
                    q.put("totalExecMs", rs.getDouble(4));
                }
            } catch (SQLException e) {
                extra.put("topStatementsUnavailable", e.getMessage());
            }
        } finally {
            try {
                pool.close();
            } finally {
                h.close();
            }
        }
    }

    /** The PostgreSQL backend processes of the pool's connections (all sessions in the database but this one). */
    private List<Long> backendPids() throws SQLException {
        List<Long> pids = new ArrayList<>();
        try (Statement s = h.houseConnection().createStatement();
                ResultSet rs = s.executeQuery("SELECT pid FROM pg_stat_activity"
                        + " WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            while (rs.next()) {
                pids.add(rs.getLong(1));
            }
        }
        return pids;
    }

    /**
     * Scheduler counters from /proc (Linux): on-CPU and run-queue-wait nanoseconds ({@code schedstat}, exact,
     * unlike the tick-rounded CPU times of {@code stat}) and context switches of every live thread of this JVM
     * (the application threads, the pool, the driver and the latency proxy's threads), and on-CPU and
     * run-queue nanoseconds of the pool's PostgreSQL backends (a local server only). -1 where unavailable.
     */
    record Sample(long clientCpu, long clientQueued, long clientSwitches, long serverCpu, long serverQueued) {
        static final Sample ZERO = new Sample(0, 0, 0, 0, 0);

        static Sample take(List<Long> backends) {
            long[] client = {0, 0, 0};
            try (java.util.stream.Stream<java.nio.file.Path> tasks =
                    java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
                for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) tasks::iterator) {
                    try {
                        long[] sched = schedstat(task.resolve("schedstat"));
                        client[0] += sched[0];
                        client[1] += sched[1];
                        for (String line : java.nio.file.Files.readAllLines(task.resolve("status"))) {
                            if (line.startsWith("voluntary_ctxt_switches:")
                                    || line.startsWith("nonvoluntary_ctxt_switches:")) {
                                client[2] += Long.parseLong(
                                        line.substring(line.indexOf(':') + 1).trim());
                            }
                        }
                    } catch (java.io.IOException | RuntimeException e) {
                        // the thread ended meanwhile
                    }
                }
            } catch (java.io.IOException | RuntimeException e) {
                client = new long[] {-1, -1, -1};
            }
            long[] server = {0, 0};
            for (long pid : backends) {
                try {
                    long[] sched = schedstat(java.nio.file.Path.of("/proc", Long.toString(pid), "schedstat"));
                    server[0] += sched[0];
                    server[1] += sched[1];
                } catch (java.io.IOException | RuntimeException e) {
                    server = new long[] {-1, -1};
                    break;
                }
            }
            return new Sample(client[0], client[1], client[2], server[0], server[1]);
        }

        private static long[] schedstat(java.nio.file.Path file) throws java.io.IOException {
            String[] f = java.nio.file.Files.readString(file).trim().split("\\s+");
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        }

        Sample minus(Sample o) {
            return new Sample(
                    sub(clientCpu, o.clientCpu),
                    sub(clientQueued, o.clientQueued),
                    sub(clientSwitches, o.clientSwitches),
                    sub(serverCpu, o.serverCpu),
                    sub(serverQueued, o.serverQueued));
        }

        Sample plus(Sample o) {
            return new Sample(
                    add(clientCpu, o.clientCpu),
                    add(clientQueued, o.clientQueued),
                    add(clientSwitches, o.clientSwitches),
                    add(serverCpu, o.serverCpu),
                    add(serverQueued, o.serverQueued));
        }

        private static long sub(long a, long b) {
            return a < 0 || b < 0 ? -1 : a - b;
        }

        private static long add(long a, long b) {
            return a < 0 || b < 0 ? -1 : a + b;
        }
    }

    private static long delta(Map<String, Long> after, Map<String, Long> before, String key) {
        return after.getOrDefault(key, 0L) - before.getOrDefault(key, 0L);
    }
}
