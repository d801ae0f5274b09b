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

    static final int ROWS = 1000;
    static final int SEEDED = 10_000;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    private Harness h;
    private long nextNewId = 1_000_000;
    private long op;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        h.house(
                "DROP TABLE IF EXISTS w3",
                "CREATE TABLE w3 (id bigint PRIMARY KEY, v int NOT NULL)",
                "INSERT INTO w3 SELECT g, 0 FROM generate_series(0, " + (SEEDED - 1) + ") g",
                "ANALYZE w3");
        h.app().setAutoCommit(!h.variant().applicationCode());
        h.startCounting();
    }

    @Benchmark
    public int upsert() throws Exception {
        h.op();
        Connection c = h.app();
        long[] ids = new long[ROWS];
        int[] vs = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            // every tenth row exists (a window that moves through the seeded rows); the others are new
            ids[i] = i % 10 == 9 ? (op * (ROWS / 10) + i / 10) % SEEDED : nextNewId++;
            vs[i] = (int) op;
        }
        op++;
        if (h.variant().applicationCode()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO w3 (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v")) {
                for (int i = 0; i < ROWS; i++) {
                    ps.setLong(1, ids[i]);
                    ps.setInt(2, vs[i]);
                    ps.addBatch();
                }
                int[] counts = ps.executeBatch();
                if (counts.length != ROWS) {
                    throw new IllegalStateException("batch returned " + counts.length + " counts");
                }
            }
            c.commit();
            return ROWS;
        }
        try (PreparedStatement ps =
                c.prepareStatement("INSERT INTO w3 (id, v) SELECT * FROM unnest(?::bigint[], ?::int[])"
                        + " ON CONFLICT (id) DO UPDATE SET v = EXCLUDED.v")) {
            ps.setObject(1, ids);
            ps.setObject(2, vs);
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
