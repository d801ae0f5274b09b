package dev.flushless.benchmarks;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
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
 * W2: the three-table transaction of the reference article (one INSERT into each of three tables, then
 * COMMIT). Bare pgjdbc: 4 round trips (BEGIN rides with the first INSERT; COMMIT is its own). Hand-written:
 * one {@code WITH i1 AS (INSERT ..), i2 AS (..), i3 AS (..) SELECT ..} in autocommit, 1 round trip.
 * {@code flushless_transaction}: the three INSERTs are buffered and sent at {@code commit()} as one implicit
 * transaction, 1 round trip.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W2ThreeTableTransaction {

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    private Harness h;
    private ThreeTableTransaction transaction;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        transaction = new ThreeTableTransaction(h, "w2_demo");
        h.startCounting();
    }

    @Setup(Level.Iteration)
    public void empty() throws Exception {
        transaction.truncate();
    }

    @Benchmark
    public int transaction() throws Exception {
        if (h.variant().applicationCode()) {
            return transaction.run();
        }
        h.op();
        try (PreparedStatement ps = h.app()
                .prepareStatement("WITH i1 AS (INSERT INTO w2_demo1 (value) VALUES (?) RETURNING 1),"
                        + " i2 AS (INSERT INTO w2_demo2 (value) VALUES (?) RETURNING 1),"
                        + " i3 AS (INSERT INTO w2_demo3 (value) VALUES (?) RETURNING 1)"
                        + " SELECT (SELECT count(*) FROM i1), (SELECT count(*) FROM i2), (SELECT count(*) FROM i3)")) {
            for (int i = 0; i < 3; i++) {
                ps.setString(i + 1, ThreeTableTransaction.VALUES[i]);
            }
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                int n = rs.getInt(1) + rs.getInt(2) + rs.getInt(3);
                if (n != 3) {
                    throw new IllegalStateException("inserted " + n + " rows, expected 3");
                }
                return n;
            }
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
