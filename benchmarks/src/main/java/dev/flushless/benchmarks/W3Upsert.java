package dev.flushless.benchmarks;

import java.sql.Connection;
import java.sql.PreparedStatement;
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
 * W3: an upsert batch of 1,000 rows ({@code INSERT .. ON CONFLICT (id) DO UPDATE}) of which 10% hit an
 * existing row, in one transaction. Hand-written: one {@code INSERT .. SELECT FROM unnest(arrays) ON
 * CONFLICT ..} in autocommit.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W3Upsert {

    static final int ROWS = UpsertBatch.ROWS;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    private Harness h;
    private UpsertBatch upserts;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        upserts = new UpsertBatch(h, "w3");
        h.startCounting();
    }

    @Benchmark
    public int upsert() throws Exception {
        h.op();
        Connection c = h.app();
        UpsertBatch.Rows rows = upserts.next();
        if (h.variant().applicationCode()) {
            return upserts.batch(c, rows);
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO w3 (id, v) SELECT * FROM unnest(?::bigint[], ?::int[])"
                        + " ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v")) {
            ps.setObject(1, rows.ids());
            ps.setObject(2, rows.values());
            int n = ps.executeUpdate();
            if (n != ROWS) {
                throw new IllegalStateException("upserted " + n + " rows");
            }
            return n;
        }
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
