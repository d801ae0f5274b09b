package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Arrays;
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
 * W6, paired: the wrapper overhead on point SELECTs measured as a paired comparison inside one fork, so that
 * drift and noise from other work on the machine (which dominate separate JMH trials on a shared 2-core
 * machine) cancel. Two connections, bare pgjdbc and the variant, run alternating blocks of
 * {@code opsPerBlock} point SELECTs in ABBA order; each pair of blocks gives one ratio of the mean wall
 * times and one of the calling thread's CPU times (the client-side work the wrapper adds, which scheduling
 * noise disturbs less); the result is each mean ratio with its 95% confidence interval (Student t over the
 * pairs). JMH's own score for this benchmark (one shot) is not used; the result goes to the counts file
 * ({@code paired}).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class W6PairedOverhead {

    @Param({"flushless_batch"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"direct", "0"})
    public String delayMs;

    @Param({"40"})
    public int pairs;

    @Param({"1000"})
    public int opsPerBlock;

    private BenchmarkParams params;
    private Harness bare;
    private Harness other;
    private PointSelect bareQuery;
    private PointSelect otherQuery;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        this.params = params;
        bare = Harness.open(params, "bare", delayMs);
        bareQuery = new PointSelect(bare);
        other = Harness.open(params, variant, delayMs);
        otherQuery = new PointSelect(other);
        bare.startCounting();
        other.startCounting();
    }

    @Benchmark
    public double paired() throws Exception {
        for (int i = 0; i < 5; i++) { // warm-up: both paths compiled, both statements server-prepared
            block(bareQuery);
            block(otherQuery);
        }
        double[] wall = new double[pairs];
        double[] cpu = new double[pairs];
        double[] bareSum = new double[2];
        double[] otherSum = new double[2];
        for (int p = 0; p < pairs; p++) {
            double[] b;
            double[] o;
            if (p % 2 == 0) {
                b = block(bareQuery);
                o = block(otherQuery);
            } else {
                o = block(otherQuery);
                b = block(bareQuery);
            }
            wall[p] = o[0] / b[0];
            cpu[p] = o[1] / b[1];
            for (int k = 0; k < 2; k++) {
                bareSum[k] += b[k];
                otherSum[k] += o[k];
            }
        }
        ObjectNode line = new ObjectMapper().createObjectNode();
        line.put("benchmark", params.getBenchmark());
        ObjectNode p = line.putObject("params");
        for (String k : params.getParamsKeys()) {
            p.put(k, params.getParam(k));
        }
        ObjectNode r = line.putObject("paired");
        r.put("against", "bare");
        r.put("pairs", pairs);
        r.put("opsPerBlock", opsPerBlock);
        r.put("bareMsPerOp", bareSum[0] / pairs * 1e3);
        r.put("variantMsPerOp", otherSum[0] / pairs * 1e3);
        r.put("wallRatio", mean(wall));
        r.put("wallCi95", ci95(wall));
        r.put("bareCpuUsPerOp", bareSum[1] / pairs * 1e6);
        r.put("variantCpuUsPerOp", otherSum[1] / pairs * 1e6);
        r.put("cpuRatio", mean(cpu));
        r.put("cpuCi95", ci95(cpu));
        Harness.append(line);
        return mean(wall);
    }

    private static double mean(double[] x) {
        return Arrays.stream(x).average().orElse(Double.NaN);
    }

    /** Half-width of the 95% confidence interval of the mean of {@code x}. */
    private static double ci95(double[] x) {
        double m = mean(x);
        double var = Arrays.stream(x).map(v -> (v - m) * (v - m)).sum() / (x.length - 1);
        return tQuantile975(x.length - 1) * Math.sqrt(var / x.length);
    }

    /** Seconds per operation over one block: {wall, CPU time of this thread}. */
    private double[] block(PointSelect query) throws Exception {
        long c0 = THREADS.getCurrentThreadCpuTime();
        long t0 = System.nanoTime();
        for (int i = 0; i < opsPerBlock; i++) {
            query.select();
        }
        long t1 = System.nanoTime();
        long c1 = THREADS.getCurrentThreadCpuTime();
        return new double[] {(t1 - t0) / 1e9 / opsPerBlock, (c1 - c0) / 1e9 / opsPerBlock};
    }

    private static final java.lang.management.ThreadMXBean THREADS =
            java.lang.management.ManagementFactory.getThreadMXBean();

    /** The 97.5% quantile of Student's t with {@code df} degrees of freedom (close enough for df >= 5). */
    static double tQuantile975(int df) {
        double z = 1.959964;
        double g1 = (z * z * z + z) / 4;
        double g2 = (5 * Math.pow(z, 5) + 16 * z * z * z + 3 * z) / 96;
        double g3 = (3 * Math.pow(z, 7) + 19 * Math.pow(z, 5) + 17 * z * z * z - 15 * z) / 384;
        return z + g1 / df + g2 / ((double) df * df) + g3 / Math.pow(df, 3);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        bare.close();
        other.close();
    }
}
