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

/** W7: the insert batch of W1 over group sizes (rows per batch) 1..10,000: where each variant bends. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W7GroupSizeSweep {

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"1"})
    public String delayMs;

    @Param({"1", "10", "100", "1000", "10000"})
    public int rows;

    private Harness h;
    private InsertRows insert;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        insert = new InsertRows(h, "w7");
        h.startCounting();
    }

    @Setup(Level.Iteration)
    public void empty() throws Exception {
        insert.truncate();
    }

    @Benchmark
    public int insertBatch() throws Exception {
        return insert.insert(rows);
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
