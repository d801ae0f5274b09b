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

/** W1: an insert batch of 1,000 or 10,000 rows into one table, in one transaction. */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W1InsertBatch {

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    @Param({"1000", "10000"})
    public int rows;

    private Harness h;
    private InsertRows insert;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        insert = new InsertRows(h, "w1");
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
