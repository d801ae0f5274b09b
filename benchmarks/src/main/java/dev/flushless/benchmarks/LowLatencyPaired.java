package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * The low-latency regime, paired: bare pgjdbc and the Flushless modes a user might leave on, in ONE fork, on one
 * application thread, in alternating blocks, so that drift and the noise of other work on a shared machine
 * cancel out of each ratio (the method of {@link W6PairedOverhead}).
 *
 * <p>Sides: {@code bare} plus each of {@code variants} ({@code +}-separated; default {@code flushless_batch} and
 * {@code flushless_transaction}); each side has its own connection, its own latency proxy (same delay) and its own
 * tables. A round runs one block of {@code opsPerBlock} operations on every side, in the order bare, v1, v2 in
 * even rounds and v2, v1, bare in odd ones (ABBA generalised: linear drift cancels out of every ratio). Each
 * round gives, per variant, the ratio of its wall time per operation to bare's and of the calling thread's CPU time
 * per operation (ThreadMXBean); the result is the mean ratio over the rounds with its 95% interval. Also per side:
 * round trips per operation (the driver's socket, {@code RoundTripCountingSocketFactory}) and server statements per
 * operation ({@code pg_stat_statements}, read before and after each block: the blocks run one at a time).
 *
 * <p>Workloads ({@code workload}): {@code w2} (W2's three single-row INSERTs into three tables + commit,
 * {@link ThreeTableTransaction}; tables emptied before each block), {@code w3} (W3's upsert batch of 1,000 rows, 10%
 * existing, + commit, {@link UpsertBatch}), {@code w4} and {@code w4_autocommit} (W4's versioned update batch of 1,000
 * rows + commit, or in autocommit, {@link VersionedUpdateBatch}), {@code w5} (W5's Hibernate-style transaction, 10
 * parents, 50 children, 10 versioned updates, {@link OrmFlush}), {@code w6} (W6's point SELECT by primary key,
 * {@link PointSelect}: the wrapper's cost where nothing is rewritten), {@code w7_<rows>} (W7's insert batch of that
 * many rows + commit, {@link InsertRows}; each side's table is emptied before each of its blocks, outside the timing),
 * {@code w9} (the small ORM flush, 5 parents, 20 children, 5 updates, {@link W9OrmFlush}). W1 is {@code w7_1000}.
 * Bulk workloads ({@link BulkInsert}, {@code benchmarks/run.sh --bulk}): {@code narrow_<rows>} and {@code wide_<rows>}
 * (one batch of that many rows + commit; narrow is W7's table, wide TPC-C's order_line) and {@code narrow_load_<rows>},
 * {@code wide_load_<rows>} (that many rows in batches of 1,000, each committed); they also take the sides
 * {@code rewrite} (pgjdbc with {@code reWriteBatchedInserts=true}) and {@code copy} ({@code COPY .. FROM STDIN}).
 *
 * <p>Baselines: every line also holds, under {@code baselines}, the variant's ratio against each pgjdbc side in the
 * fork other than itself (bare, rewrite, copy: their time over the variant's, per round), as {@link BulkReport}
 * tabulates.
 *
 * <p>Block size: {@code blockMs} of the mean side, calibrated in the warm-up ({@code warmupMs} of alternating
 * blocks after 10 operations per side, past pgjdbc's {@code prepareThreshold}), at least 3 operations. JMH's own
 * score (one shot) is not the result: each variant's line goes to the counts file ({@code lowLatencyPair}) and is
 * printed as {@code [paired] ...}; {@link PairedReport} tabulates them (pooling the forks).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class LowLatencyPaired {

    @Param({"w2", "w3", "w4", "w4_autocommit", "w5", "w6", "w7_1", "w7_10", "w7_100", "w7_1000", "w9"})
    public String workload;

    /** The variants paired with bare in this fork, {@code +}-separated. */
    @Param({"flushless_batch+flushless_transaction"})
    public String variants;

    /** One-way delay of the latency proxy in ms, fractional allowed ({@code direct}: no proxy). */
    @Param({"0", "0.25", "1"})
    public String delayMs;

    /** Rounds (each one block per side). */
    @Param({"16"})
    public int pairs;

    /** Target duration of one block (ms), calibrated in the warm-up. */
    @Param({"200"})
    public int blockMs;

    /** Warm-up: alternating blocks for this long (ms) after the first operations. */
    @Param({"2000"})
    public int warmupMs;

    /** Longest warm-up (ms): past {@code warmupMs} it goes on until the JIT has settled, up to this. */
    @Param({"30000"})
    public int maxWarmupMs;

    private double[] warmup;

    static final int MIN_OPS_PER_BLOCK = 3;

    /** Operations per side before the warm-up (past pgjdbc's {@code prepareThreshold}); fewer for the loads. */
    private int firstOps = 10;

    /** The least operations per block ({@link #MIN_OPS_PER_BLOCK}; 1 for the loads). */
    private int minOpsPerBlock = MIN_OPS_PER_BLOCK;

    private BenchmarkParams params;
    private final List<Side> sides = new ArrayList<>();
    private Ping proxied;
    private Ping direct;

    /** One connection's side of the comparison and its sums over the measured blocks. */
    private static final class Side {
        final String variant;
        final Harness h;
        Op op;
        Op beforeBlock = () -> {};
        double wall;
        double cpu;
        long roundTrips;
        long statements;
        long ops;
        boolean statementsCounted = true;
        /** Per round: seconds per operation, CPU seconds per operation. */
        double[] roundWall;

        double[] roundCpu;

        Side(String variant, Harness h) {
            this.variant = variant;
            this.h = h;
        }
    }

    interface Op {
        void run() throws SQLException;
    }

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        this.params = params;
        List<String> names = new ArrayList<>();
        names.add("bare");
        for (String v : variants.split("\\+")) {
            if (!v.isBlank() && !v.equals("bare")) {
                names.add(v.trim());
            }
        }
        for (String v : names) {
            if (Variant.of(v) == Variant.COPY && !BulkInsert.handles(workload)) {
                throw new IllegalArgumentException("the copy side runs the bulk workloads only, not " + workload);
            }
            Harness h = Harness.open(params, v, delayMs);
            h.skipCountsLine();
            Side side = new Side(v, h);
            sides.add(side);
            bind(side, "lp_" + workload + "_" + v);
        }
        for (Side s : sides) {
            s.h.startCounting();
        }
    }

    /** Sets {@code side}'s operation (and what runs before each of its blocks) for {@link #workload}. */
    private void bind(Side side, String prefix) throws SQLException {
        Harness h = side.h;
        if (workload.equals("w5")) {
            OrmFlush f = new OrmFlush(
                    h,
                    prefix,
                    W5HibernateTransaction.PARENTS,
                    W5HibernateTransaction.CHILDREN_PER_PARENT,
                    W5HibernateTransaction.UPDATES);
            side.op = f::flush;
        } else if (workload.equals("w9")) {
            OrmFlush f =
                    new OrmFlush(h, prefix, W9OrmFlush.PARENTS, W9OrmFlush.CHILDREN_PER_PARENT, W9OrmFlush.UPDATES);
            side.op = f::flush;
        } else if (workload.startsWith("w7_")) {
            int rows = Integer.parseInt(workload.substring(3));
            InsertRows insert = new InsertRows(h, prefix);
            side.op = () -> insert.insert(rows);
            side.beforeBlock = insert::truncate;
        } else if (workload.equals("w2")) {
            ThreeTableTransaction t = new ThreeTableTransaction(h, prefix + "_");
            side.op = t::run;
            side.beforeBlock = t::truncate;
        } else if (workload.equals("w3")) {
            UpsertBatch u = new UpsertBatch(h, prefix);
            side.op = u::run;
        } else if (workload.equals("w4") || workload.equals("w4_autocommit")) {
            VersionedUpdateBatch u = new VersionedUpdateBatch(h, prefix, workload.equals("w4_autocommit"));
            side.op = u::run;
        } else if (workload.equals("w6")) {
            PointSelect q = new PointSelect(h, prefix);
            side.op = q::select;
        } else if (BulkInsert.handles(workload)) {
            BulkInsert b = BulkInsert.of(h, prefix, workload);
            side.op = b::run;
            side.beforeBlock = b::truncate;
            if (b.batchesPerOp() > 1) { // a load takes seconds: fewer first operations, blocks of one or more
                firstOps = Math.max(1, (10 + b.batchesPerOp() - 1) / b.batchesPerOp());
                minOpsPerBlock = 1;
            }
        } else {
            throw new IllegalArgumentException("unknown workload " + workload
                    + " (w2, w3, w4, w4_autocommit, w5, w6, w7_<rows>, w9, narrow_<rows>, wide_<rows>,"
                    + " narrow_load_<rows>, wide_load_<rows>)");
        }
    }

    @Benchmark
    public double paired() throws Exception {
        for (Side s : sides) { // past prepareThreshold, both paths compiled at C1 at least
            block(s, firstOps, false);
        }
        int[] opsPerBlock = {minOpsPerBlock};
        warmup = PairStats.warmUp(sides.stream().map(side -> side.h).toList(), warmupMs, maxWarmupMs, round -> {
            double secondsPerOp = 0;
            for (Side s : order(round)) {
                secondsPerOp += block(s, opsPerBlock[0], false)[0];
            }
            secondsPerOp /= sides.size();
            opsPerBlock[0] = Math.max(minOpsPerBlock, (int) Math.round(blockMs / 1e3 / secondsPerOp));
        });
        // the achieved delay in this fork's conditions, warmed: pings through bare's proxy and direct
        proxied = Ping.measure(sides.get(0).h.appUrl(), 20, 100);
        direct = Ping.measure(Targets.benchmarkUrl(), 20, 100);
        for (Side s : sides) {
            s.roundWall = new double[pairs];
            s.roundCpu = new double[pairs];
            if (s.h.proxy() != null) {
                s.h.proxy().resetCounters(); // lateness of the measured blocks only (round trips: the socket's)
            }
        }
        for (int p = 0; p < pairs; p++) {
            for (Side s : order(p)) {
                double[] r = block(s, opsPerBlock[0], true);
                s.roundWall[p] = r[0];
                s.roundCpu[p] = r[1];
            }
        }
        double first = Double.NaN;
        for (Side v : sides.subList(1, sides.size())) {
            ObjectNode line = pairLine(v, opsPerBlock[0]);
            Harness.append(line);
            ObjectNode r = (ObjectNode) line.get("lowLatencyPair");
            System.out.println(summary(r));
            if (Double.isNaN(first)) {
                first = r.path("speed").asDouble();
            }
        }
        return first;
    }

    /**
     * The counts-file line of variant {@code v} against bare ({@code speed}: bare's time over {@code v}'s per round),
     * with {@code baselines}: per baseline side in the fork other than {@code v} (bare, and in the bulk workloads
     * rewrite and copy), the same ratio against it and its own figures per operation.
     */
    private ObjectNode pairLine(Side v, int opsPerBlock) {
        Side bare = sides.get(0);
        double[] wall = new double[pairs];
        double[] cpu = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            wall[p] = v.roundWall[p] / bare.roundWall[p];
            cpu[p] = v.roundCpu[p] / bare.roundCpu[p];
        }
        ObjectNode line = new ObjectMapper().createObjectNode();
        line.put("benchmark", params.getBenchmark());
        ObjectNode pn = line.putObject("params");
        for (String k : params.getParamsKeys()) {
            pn.put(k, params.getParam(k));
        }
        pn.put("variant", v.variant);
        ObjectNode r = line.putObject("lowLatencyPair");
        r.put("workload", workload);
        r.put("delayMs", delayMs);
        r.put("variant", v.variant);
        r.put("against", "bare");
        r.put("pairs", pairs);
        r.put("opsPerBlock", opsPerBlock);
        PairStats.putWarmup(r, warmup);
        r.put("sidesInFork", sides.size());
        PairStats.put(r, "speed", speed(bare, v));
        PairStats.put(r, "wallRatio", wall);
        PairStats.put(r, "cpuRatio", cpu);
        putSide(r, "bare", bare);
        putSide(r, "variant", v);
        ObjectNode baselines = r.putObject("baselines");
        for (Side b : sides) {
            if (b != v && Variant.of(b.variant).baseline()) {
                ObjectNode o = baselines.putObject(b.variant);
                PairStats.put(o, "speed", speed(b, v));
                putSide(o, "baseline", b);
            }
        }
        proxied.putInto(r, "pingProxied");
        direct.putInto(r, "pingDirect");
        if (bare.h.proxy() != null) { // how late the proxies' delayed chunks went out in the measured blocks
            r.put("bareProxyMeanLatenessUs", bare.h.proxy().meanLatenessMicros());
            r.put("variantProxyMeanLatenessUs", v.h.proxy().meanLatenessMicros());
        }
        return line;
    }

    /** Per round: {@code against}'s time per operation over {@code v}'s (above 1: {@code v} is faster). */
    private double[] speed(Side against, Side v) {
        double[] speed = new double[pairs];
        for (int p = 0; p < pairs; p++) {
            speed[p] = against.roundWall[p] / v.roundWall[p];
        }
        return speed;
    }

    private static void putSide(ObjectNode r, String prefix, Side s) {
        r.put(prefix + "MsPerOp", s.wall / s.ops * 1e3);
        r.put(prefix + "CpuUsPerOp", s.cpu / s.ops * 1e6);
        r.put(prefix + "RoundTripsPerOp", (double) s.roundTrips / s.ops);
        if (s.statementsCounted) {
            r.put(prefix + "StatementsPerOp", (double) s.statements / s.ops);
        }
    }

    /** The one-line human summary of a pair line. */
    static String summary(ObjectNode r) {
        return String.format(
                        Locale.ROOT,
                        "[paired] %s D=%s %s vs bare: speed %.3fx ±%.3f | ms/op %.3f vs %.3f | CPU µs/op %.0f vs %.0f (%.2fx ±%.2f)"
                                + " | RT/op %.2f vs %.2f | stmts/op %s vs %s | %d pairs x %d ops | ping %.3f ms, proxy late %.0f/%.0f µs",
                        r.path("workload").asText(),
                        r.path("delayMs").asText(),
                        r.path("variant").asText(),
                        r.path("speed").asDouble(),
                        r.path("speedCi95").asDouble(),
                        r.path("variantMsPerOp").asDouble(),
                        r.path("bareMsPerOp").asDouble(),
                        r.path("variantCpuUsPerOp").asDouble(),
                        r.path("bareCpuUsPerOp").asDouble(),
                        r.path("cpuRatio").asDouble(),
                        r.path("cpuRatioCi95").asDouble(),
                        r.path("variantRoundTripsPerOp").asDouble(),
                        r.path("bareRoundTripsPerOp").asDouble(),
                        stmts(r, "variant"),
                        stmts(r, "bare"),
                        r.path("pairs").asInt(),
                        r.path("opsPerBlock").asInt(),
                        r.path("pingProxiedMedianMs").asDouble(),
                        r.path("variantProxyMeanLatenessUs").asDouble(),
                        r.path("bareProxyMeanLatenessUs").asDouble())
                + otherBaselines(r);
    }

    /** {@code " | vs rewrite 1.234x ±0.012, vs copy ..."} for the baselines other than bare, or "". */
    private static String otherBaselines(ObjectNode r) {
        StringBuilder s = new StringBuilder();
        r.path("baselines").fields().forEachRemaining(e -> {
            if (!e.getKey().equals("bare")) {
                s.append(s.length() == 0 ? " | " : ", ")
                        .append(String.format(
                                Locale.ROOT,
                                "vs %s %.3fx ±%.3f",
                                e.getKey(),
                                e.getValue().path("speed").asDouble(),
                                e.getValue().path("speedCi95").asDouble()));
            }
        });
        return s.toString();
    }

    private static String stmts(ObjectNode r, String prefix) {
        return r.has(prefix + "StatementsPerOp")
                ? String.format(
                        Locale.ROOT, "%.2f", r.path(prefix + "StatementsPerOp").asDouble())
                : "n/a";
    }

    /** Bare first in even rounds, last in odd ones. */
    private List<Side> order(int round) {
        if (round % 2 == 0) {
            return sides;
        }
        List<Side> reversed = new ArrayList<>(sides);
        java.util.Collections.reverse(reversed);
        return reversed;
    }

    /** Runs {@code n} operations on {@code s}: {seconds per op, CPU seconds per op}; adds them to its sums if {@code measured}. */
    private double[] block(Side s, int n, boolean measured) throws SQLException {
        s.beforeBlock.run();
        long st0 = measured ? s.h.serverStatements() : 0;
        long rt0 = s.h.roundTrips();
        long c0 = PairStats.threadCpuNanos();
        long t0 = System.nanoTime();
        for (int i = 0; i < n; i++) {
            s.op.run();
        }
        long t1 = System.nanoTime();
        long c1 = PairStats.threadCpuNanos();
        long rt1 = s.h.roundTrips();
        double wall = (t1 - t0) / 1e9;
        double cpu = (c1 - c0) / 1e9;
        if (measured) {
            long st1 = s.h.serverStatements();
            s.wall += wall;
            s.cpu += cpu;
            s.roundTrips += rt1 - rt0;
            s.ops += n;
            if (st0 < 0 || st1 < 0) {
                s.statementsCounted = false;
            } else {
                s.statements += st1 - st0;
            }
        }
        return new double[] {wall / n, cpu / n};
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        for (Side s : sides) {
            s.h.close();
        }
    }
}
