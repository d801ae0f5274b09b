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
 * W5: a Hibernate-style transaction as Hibernate flushes it with {@code jdbc.batch_size=50},
 * {@code order_inserts}, {@code order_updates} and {@code batch_versioned_data}: a batch inserting 10 new
 * parents, a batch inserting their 50 children (5 each), a batch of 10 versioned updates of existing
 * parents (counts checked), then COMMIT. Ids are assigned by the client (as a pooled sequence optimizer
 * does between its rare {@code nextval} calls). Hand-written: one {@code WITH p AS (INSERT parents), c AS
 * (INSERT children), u AS (UPDATE other parents) SELECT ..} in autocommit. That statement is correct only
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
    static final int SEEDED = 10_000;

    @Param({"bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction"})
    public String variant;

    /** One-way delay of the latency proxy in ms ({@code direct}: no proxy). */
    @Param({"0", "1", "5"})
    public String delayMs;

    private Harness h;
    private final int[] versions = new int[SEEDED];
    private long nextParent = 1_000_000;
    private long nextChild = 1;
    private long op;

    @Setup(Level.Trial)
    public void setUp(BenchmarkParams params) throws Exception {
        h = Harness.open(params, variant, delayMs);
        h.house("DROP TABLE IF EXISTS w5_child", "DROP TABLE IF EXISTS w5_parent",
                "CREATE TABLE w5_parent (id bigint PRIMARY KEY, name text NOT NULL, version int NOT NULL,"
                        + " children int NOT NULL)",
                "CREATE TABLE w5_child (id bigint PRIMARY KEY, parent_id bigint NOT NULL REFERENCES w5_parent,"
                        + " name text NOT NULL)",
                "CREATE INDEX ON w5_child (parent_id)",
                "INSERT INTO w5_parent SELECT g, 'seed', 0, 0 FROM generate_series(0, " + (SEEDED - 1) + ") g",
                "ANALYZE w5_parent");
        h.app().setAutoCommit(!h.variant().applicationCode());
        h.startCounting();
    }

    @Benchmark
    public int transaction() throws Exception {
        h.op();
        Connection c = h.app();
        long[] parents = new long[PARENTS];
        String[] parentNames = new String[PARENTS];
        long[] children = new long[PARENTS * CHILDREN_PER_PARENT];
        long[] childParents = new long[children.length];
        String[] childNames = new String[children.length];
        for (int p = 0; p < PARENTS; p++) {
            parents[p] = nextParent++;
            parentNames[p] = "parent " + parents[p];
            for (int k = 0; k < CHILDREN_PER_PARENT; k++) {
                int i = p * CHILDREN_PER_PARENT + k;
                children[i] = nextChild++;
                childParents[i] = parents[p];
                childNames[i] = "child " + k;
            }
        }
        int firstUpdated = (int) (op * UPDATES % SEEDED);
        op++;
        String newName = "renamed " + op;
        if (h.variant().applicationCode()) {
            try (PreparedStatement ps = c.prepareStatement(
                    "INSERT INTO w5_parent (name, version, children, id) VALUES (?, ?, ?, ?)")) {
                for (int p = 0; p < PARENTS; p++) {
                    ps.setString(1, parentNames[p]);
                    ps.setInt(2, 0);
                    ps.setInt(3, CHILDREN_PER_PARENT);
                    ps.setLong(4, parents[p]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO w5_child (parent_id, name, id) VALUES (?, ?, ?)")) {
                for (int i = 0; i < children.length; i++) {
                    ps.setLong(1, childParents[i]);
                    ps.setString(2, childNames[i]);
                    ps.setLong(3, children[i]);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "UPDATE w5_parent SET name = ?, version = ? WHERE id = ? AND version = ?")) {
                for (int u = 0; u < UPDATES; u++) {
                    int id = firstUpdated + u;
                    ps.setString(1, newName);
                    ps.setInt(2, versions[id] + 1);
                    ps.setLong(3, id);
                    ps.setInt(4, versions[id]);
                    ps.addBatch();
                }
                for (int count : ps.executeBatch()) {
                    if (count != 1) {
                        c.rollback();
                        throw new IllegalStateException("optimistic lock failure: update count " + count);
                    }
                }
            }
            c.commit();
        } else {
            long[] updated = new long[UPDATES];
            String[] names = new String[UPDATES];
            int[] old = new int[UPDATES];
            for (int u = 0; u < UPDATES; u++) {
                updated[u] = firstUpdated + u;
                names[u] = newName;
                old[u] = versions[firstUpdated + u];
            }
            try (PreparedStatement ps = c.prepareStatement(
                    "WITH p AS (INSERT INTO w5_parent (id, name, version, children)"
                    + " SELECT id, name, 0, " + CHILDREN_PER_PARENT + " FROM unnest(?::bigint[], ?::text[]) AS x(id, name)),"
                    + " c AS (INSERT INTO w5_child (id, parent_id, name) SELECT * FROM unnest(?::bigint[], ?::bigint[], ?::text[])),"
                    + " u AS (UPDATE w5_parent t SET name = x.name, version = x.version + 1"
                    + " FROM unnest(?::bigint[], ?::text[], ?::int[]) AS x(id, name, version)"
                    + " WHERE t.id = x.id AND t.version = x.version RETURNING 1)"
                    + " SELECT count(*) / (count(*) = ?)::int FROM u")) {
                ps.setObject(1, parents);
                ps.setObject(2, parentNames);
                ps.setObject(3, children);
                ps.setObject(4, childParents);
                ps.setObject(5, childNames);
                ps.setObject(6, updated);
                ps.setObject(7, names);
                ps.setObject(8, old);
                ps.setLong(9, UPDATES);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) != UPDATES) {
                        throw new IllegalStateException("updated " + rs.getInt(1) + " parents");
                    }
                }
            }
        }
        for (int u = 0; u < UPDATES; u++) {
            versions[firstUpdated + u]++;
        }
        return PARENTS + children.length + UPDATES;
    }

    @TearDown(Level.Trial)
    public void tearDown() throws Exception {
        h.close();
    }
}
