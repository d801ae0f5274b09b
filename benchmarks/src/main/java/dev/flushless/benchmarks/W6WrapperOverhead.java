package dev.flushless.benchmarks;

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
 * W6, precise: the Flushless wrapper's overhead on point SELECTs (flushless_batch against bare pgjdbc),
 * with more forks and iterations than the short suite, without the proxy ({@code direct}) and through it at
 * D=0, where the overhead is largest relative to the operation. Target: at most 3%.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(3)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 4, time = 1)
public class W6WrapperOverhead {

    @Param({"bare", "flushless_batch"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"direct", "0"})
    public String delayMs;

    private Harness h;
    private PointSelect query;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        query = new PointSelect(h);
        h.startCounting();
    }

    @Benchmark
    public int select() throws Exception {
        return query.select();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
