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
 * W9: a small ORM flush, the common case of an application writing one aggregate per transaction: a batch of 5
 * parent INSERTs, a batch of 20 child INSERTs (4 each), a batch of 5 versioned UPDATEs of existing parents
 * (counts checked), each through a fresh {@code prepareStatement}, then COMMIT ({@link OrmFlush}, W5's flush at
 * a smaller size). Bare pgjdbc: 4 round trips (the first batch carries BEGIN), 30 statements. Small batches
 * are where the driver's own per-batch cost shows against a nearby server; the low-latency paired suite
 * ({@link LowLatencyPaired}) runs it paired with bare pgjdbc, this class as separate JMH trials.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W9OrmFlush {

    static final int PARENTS = 5;
    static final int CHILDREN_PER_PARENT = 4;
    static final int UPDATES = 5;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms, fractional allowed ({@code direct}: no proxy). */
    @Param({"direct", "0", "0.25", "1"})
    public String delayMs;

    private Harness h;
    private OrmFlush flush;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        flush = new OrmFlush(h, "w9", PARENTS, CHILDREN_PER_PARENT, UPDATES);
        h.startCounting();
    }

    @Benchmark
    public int flush() throws Exception {
        return flush.flush();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
