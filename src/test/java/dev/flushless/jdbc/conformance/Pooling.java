package dev.flushless.jdbc.conformance;

import static dev.flushless.jdbc.conformance.Behaviour.of;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;

/**
 * Conformance behaviours: a HikariCP pool over the variant's DataSource, used from several threads. Only
 * deterministic outcomes (counts, sums, per-thread results collected in thread order) are recorded.
 */
final class Pooling {

    private Pooling() {}

    private static HikariDataSource pool(DataSource dataSource, int size) {
        HikariConfig config = new HikariConfig();
        config.setDataSource(dataSource);
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /** Runs {@code threads} tasks concurrently and returns their results in task order. */
    private static <T> List<T> parallel(
            int threads, java.util.function.IntFunction<java.util.concurrent.Callable<T>> task) throws Exception {
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                futures.add(executor.submit(task.apply(i)));
            }
            List<T> results = new ArrayList<>();
            for (Future<T> future : futures) {
                results.add(future.get());
            }
            return results;
        } finally {
            executor.shutdownNow();
        }
    }

    static List<Behaviour> behaviours() {
        return List.of(
                of("pooling: HikariCP pool of 4 shared by 8 threads doing inserts and reads", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE pooled (thread int, n int, PRIMARY KEY (thread, n))");
                    try (HikariDataSource pool = pool(env.dataSource(), 4)) {
                        List<String> results = parallel(8, thread -> () -> {
                            int seen = 0;
                            for (int n = 0; n < 25; n++) {
                                try (Connection pc = pool.getConnection();
                                        PreparedStatement insert =
                                                pc.prepareStatement("INSERT INTO pooled VALUES (?, ?)");
                                        PreparedStatement read = pc.prepareStatement(
                                                "SELECT count(*), coalesce(sum(n), 0) FROM pooled WHERE thread = ?")) {
                                    insert.setInt(1, thread);
                                    insert.setInt(2, n);
                                    insert.executeUpdate();
                                    read.setInt(1, thread);
                                    try (ResultSet rs = read.executeQuery()) {
                                        rs.next();
                                        if (rs.getInt(1) == n + 1) {
                                            seen++;
                                        }
                                    }
                                }
                            }
                            return "thread " + thread + " saw its own rows " + seen + " times";
                        });
                        t.add("results", results);
                    }
                    t.rows(
                            "totals",
                            c.createStatement()
                                    .executeQuery("SELECT count(*), sum(n), count(DISTINCT thread) FROM pooled"));
                }),
                of("pooling: 8 threads committing batched transactions through HikariCP", (env, t) -> {
                    Connection c = env.connection();
                    Statement setup = c.createStatement();
                    setup.execute("CREATE TABLE orders (id int PRIMARY KEY, thread int, amount int)");
                    setup.execute("CREATE TABLE counter (id int PRIMARY KEY, n int)");
                    setup.execute("INSERT INTO counter VALUES (1, 0)");
                    try (HikariDataSource pool = pool(env.dataSource(), 4)) {
                        List<String> results = parallel(8, thread -> () -> {
                            int committed = 0;
                            for (int round = 0; round < 5; round++) {
                                try (Connection pc = pool.getConnection()) {
                                    pc.setAutoCommit(false);
                                    try (PreparedStatement ps =
                                                    pc.prepareStatement("INSERT INTO orders VALUES (?, ?, ?)");
                                            Statement s = pc.createStatement()) {
                                        for (int k = 0; k < 5; k++) {
                                            int id = thread * 1000 + round * 10 + k;
                                            ps.setInt(1, id);
                                            ps.setInt(2, thread);
                                            ps.setInt(3, k + 1);
                                            ps.addBatch();
                                        }
                                        int inserted = 0;
                                        for (int count : ps.executeBatch()) {
                                            inserted += count;
                                        }
                                        s.executeUpdate("UPDATE counter SET n = n + " + inserted + " WHERE id = 1");
                                        if (round == 4) {
                                            pc.rollback();
                                        } else {
                                            pc.commit();
                                            committed += inserted;
                                        }
                                    }
                                    pc.setAutoCommit(true);
                                }
                            }
                            return "thread " + thread + " committed " + committed;
                        });
                        t.add("results", results);
                    }
                    t.rows(
                            "orders",
                            c.createStatement()
                                    .executeQuery("SELECT count(*), sum(amount), count(DISTINCT thread) FROM orders"));
                    t.rows("counter", c.createStatement().executeQuery("SELECT n FROM counter"));
                }),
                of("pooling: HikariCP resets state when a connection returns to the pool", (env, t) -> {
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE reset (id int)");
                    try (HikariDataSource pool = pool(env.dataSource(), 1)) {
                        try (Connection pc = pool.getConnection()) {
                            t.add("autocommit", pc.getAutoCommit());
                            t.add("isolation", pc.getTransactionIsolation());
                            t.add("readOnly", pc.isReadOnly());
                            pc.setAutoCommit(false);
                            pc.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
                            pc.createStatement().executeUpdate("INSERT INTO reset VALUES (1)");
                        }
                        try (Connection pc = pool.getConnection()) {
                            t.add("autocommit after return", pc.getAutoCommit());
                            t.add("isolation after return", pc.getTransactionIsolation());
                            t.rows(
                                    "uncommitted insert rolled back",
                                    pc.createStatement().executeQuery("SELECT count(*) FROM reset"));
                            pc.setReadOnly(true);
                            pc.setAutoCommit(false);
                            t.call(
                                    "write in read-only",
                                    () -> pc.createStatement().executeUpdate("INSERT INTO reset VALUES (2)"));
                        }
                        try (Connection pc = pool.getConnection()) {
                            t.add("readOnly after return", pc.isReadOnly());
                            t.add(
                                    "insert after return",
                                    pc.createStatement().executeUpdate("INSERT INTO reset VALUES (3)"));
                            t.add("schema", pc.getSchema().equals(c.getSchema()));
                            t.add("unwrap PGConnection", pc.isWrapperFor(org.postgresql.PGConnection.class));
                            t.add(
                                    "metadata connection is the proxy",
                                    pc.getMetaData().getConnection() == pc);
                            Statement s = pc.createStatement();
                            t.add("statement connection is the proxy", s.getConnection() == pc);
                            ResultSet rs = s.executeQuery("SELECT 1");
                            t.add("result set statement is the proxy", rs.getStatement() == s);
                            rs.close();
                        }
                    }
                    t.rows("rows", c.createStatement().executeQuery("SELECT * FROM reset ORDER BY id"));
                }),
                of("pooling: connections from the variant's DataSource", (env, t) -> {
                    DataSource ds = env.dataSource();
                    Connection c = env.connection();
                    c.createStatement().execute("CREATE TABLE ds (id int)");
                    try (Connection a = ds.getConnection();
                            Connection b = ds.getConnection()) {
                        t.add("distinct connections", a != b);
                        t.add("same schema", a.getSchema().equals(c.getSchema()));
                        t.add("autocommit", a.getAutoCommit());
                        a.setAutoCommit(false);
                        a.createStatement().executeUpdate("INSERT INTO ds VALUES (1)");
                        t.rows("b before commit", b.createStatement().executeQuery("SELECT count(*) FROM ds"));
                        a.commit();
                        t.rows("b after commit", b.createStatement().executeQuery("SELECT count(*) FROM ds"));
                        t.add("isWrapperFor PGConnection", a.isWrapperFor(org.postgresql.PGConnection.class));
                    }
                }));
    }
}
