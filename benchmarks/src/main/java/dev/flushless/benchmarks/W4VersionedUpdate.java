package dev.flushless.benchmarks;

import java.sql.Connection;
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
 * W4: a versioned (optimistic-lock) update batch of 1,000 rows, {@code UPDATE .. SET .., version = ?
 * WHERE id = ? AND version = ?}, every count checked, in one transaction. Hand-written: one
 * {@code UPDATE .. FROM unnest(arrays)} in autocommit that fails as a whole (division by zero) when a
 * version does not match, so that nothing is half-applied.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class W4VersionedUpdate {

    static final int ROWS = VersionedUpdateBatch.ROWS;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    /**
     * {@code transaction}: the batch and a COMMIT (what an ORM does); {@code autocommit}: the batch alone, as
     * the baseline measurements of the reference ran it (the hand-written statement always runs alone).
     */
    @Param({"transaction", "autocommit"})
    public String commit;

    private Harness h;
    private VersionedUpdateBatch updates;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        updates = new VersionedUpdateBatch(h, "w4", "autocommit".equals(commit));
        h.startCounting();
    }

    @Benchmark
    public int update() throws Exception {
        h.op();
        Connection c = h.app();
        int first = updates.next();
        if (h.variant().applicationCode()) {
            return updates.batch(c, first);
        }
        long[] ids = new long[ROWS];
        int[] vs = new int[ROWS];
        int[] old = new int[ROWS];
        for (int i = 0; i < ROWS; i++) {
            ids[i] = first + i;
            vs[i] = updates.value();
            old[i] = updates.version(first + i);
        }
        try (PreparedStatement ps = c.prepareStatement("WITH u AS (UPDATE w4 t SET v = x.v, version = x.version + 1"
                + " FROM unnest(?::bigint[], ?::int[], ?::int[]) AS x(id, v, version)"
                + " WHERE t.id = x.id AND t.version = x.version RETURNING 1)"
                + " SELECT count(*) / (count(*) = ?)::int FROM u")) {
            ps.setObject(1, ids);
            ps.setObject(2, vs);
            ps.setObject(3, old);
            ps.setLong(4, ROWS);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (rs.getInt(1) != ROWS) {
                    throw new IllegalStateException("updated " + rs.getInt(1) + " rows");
                }
            }
        }
        updates.updated(first);
        return ROWS;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
