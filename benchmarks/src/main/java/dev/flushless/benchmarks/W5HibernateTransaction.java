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
 * W5: a Hibernate-style transaction as Hibernate flushes it with {@code jdbc.batch_size=50},
 * {@code order_inserts}, {@code order_updates} and {@code batch_versioned_data}: a batch inserting 10 new
 * parents, a batch inserting their 50 children (5 each), a batch of 10 versioned updates of existing
 * parents (counts checked), then COMMIT ({@link OrmFlush}, shared with W9). Ids are assigned by the client
 * (as a pooled sequence optimizer does between its rare {@code nextval} calls). Hand-written: one
 * {@code WITH p AS (INSERT parents), c AS (INSERT children), u AS (UPDATE other parents) SELECT ..} in autocommit. That statement is correct only
 * because the updated parents are not the inserted ones (an UPDATE in a WITH does not see rows inserted by
 * the same statement): a careful engineer knows it, a driver cannot assume it. {@code flushless_transaction}:
 * the two INSERT batches are buffered and ride, in one round trip, with the coalesced UPDATE batch (whose
 * counts the application checks before it commits); the COMMIT is a second round trip.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W5HibernateTransaction {

    static final int PARENTS = 10;
    static final int CHILDREN_PER_PARENT = 5;
    static final int UPDATES = 10;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    private Harness h;
    private OrmFlush flush;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        flush = new OrmFlush(h, "w5", PARENTS, CHILDREN_PER_PARENT, UPDATES);
        h.startCounting();
    }

    @Benchmark
    public int transaction() throws Exception {
        return flush.flush();
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
