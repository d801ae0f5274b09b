package dev.flushless.benchmarks;

import java.lang.management.ManagementFactory;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;

/**
 * Two builds of the driver in one JVM, paired: each build is loaded by a class loader of its own (its jar and the
 * dependency jars, parent the platform loader), and the W1-W6 application code, which uses only {@code java.sql},
 * runs on a connection of each, in alternating blocks (ABBA), so that drift cancels out of every ratio. For a
 * restructuring that must not change speed (issue #18): before and after in the same fork, the same server, the
 * same minute.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.flushless.benchmarks.BeforeAfterPaired \
 *   JDBC_URL BEFORE_JAR AFTER_JAR DEPENDENCY_CLASSPATH [pairs] [blockMs] [workload prefix] [modes]
 * </pre>
 *
 * {@code JDBC_URL} is a {@code jdbc:postgresql:} URL (credentials in it) of a database the run may create schemas
 * {@code ba_before} and {@code ba_after} in; each side writes its own schema. Modes {@code batch} and
 * {@code transaction}, directly (no latency proxy). Prints, per workload and mode, the mean over the pairs of
 * before's time per operation divided by after's (above 1: after is faster) with a 95% interval.
 */
public final class BeforeAfterPaired {

    private BeforeAfterPaired() {}

    /** One side: a driver build and its connection. */
    private record Side(String name, Driver driver) {
        Connection connect(String url, String mode, String schema) throws SQLException {
            Properties p = new Properties();
            Connection c = driver.connect(
                    "jdbc:flushless:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?")
                            + "currentSchema=" + schema + "&flushless.mode=" + mode,
                    p);
            if (c == null) {
                throw new SQLException("the " + name + " driver did not accept the URL");
            }
            return c;
        }
    }

    /** One JDBC operation of a workload, as the JMH benchmarks W1-W6 run it. */
    private interface Operation {
        void run(Connection c, int iteration) throws SQLException;
    }

    private record Workload(String name, Operation operation) {}

    private static List<Workload> workloads() {
        List<Workload> w = new ArrayList<>();
        w.add(new Workload("W1 insert batch, 1,000 rows", (c, it) -> {
            c.setAutoCommit(false);
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO w1 (id, n, v) VALUES (?, ?, ?)")) {
                long base = (long) it * 1000;
                for (int i = 0; i < 1000; i++) {
                    ps.setLong(1, base + i);
                    ps.setInt(2, i);
                    ps.setString(3, "v" + i);
                    ps.addBatch();
                }
                ps.executeBatch();
            }
            c.commit();
        }));
        w.add(new Workload("W2 three-table transaction", (c, it) -> {
            c.setAutoCommit(false);
            for (String t : new String[] {"w2a", "w2b", "w2c"}) {
                try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + t + " (id, v) VALUES (?, ?)")) {
                    ps.setLong(1, it);
                    ps.setString(2, "x");
                    ps.executeUpdate();
                }
            }
            c.commit();
        }));
        w.add(new Workload(
                "W3 upsert batch, 1,000 rows, 10% existing",
                (c, it) -> {
                    c.setAutoCommit(false);
                    try (PreparedStatement ps = c.prepareStatement(
                            "INSERT INTO w3 (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v")) {
                        long base = 1_000_000L + (long) it * 900;
                        for (int i = 0; i < 1000; i++) {
                            ps.setLong(1, i < 100 ? i : base + i); // ids 0-99 exist (seeded), the rest are new
                            ps.setString(2, "u" + it);
                            ps.addBatch();
                        }
                        ps.executeBatch();
                    }
                    c.commit();
                }));
        w.add(new Workload("W4 versioned update batch, 1,000 rows", (c, it) -> {
            c.setAutoCommit(false);
            try (PreparedStatement ps =
                    c.prepareStatement("UPDATE w4 SET v = ?, version = ? WHERE id = ? AND version = ?")) {
                for (int i = 0; i < 1000; i++) {
                    ps.setString(1, "v" + it);
                    ps.setLong(2, it + 1);
                    ps.setLong(3, i);
                    ps.setLong(4, it);
                    ps.addBatch();
                }
                for (int count : ps.executeBatch()) {
                    if (count != 1) {
                        throw new SQLException("W4: a version did not match");
                    }
                }
            }
            c.commit();
        }));
        w.add(new Workload("W5 Hibernate-style (10 parents, 50 children, 10 updates)", (c, it) -> {
            c.setAutoCommit(false);
            long base = 1_000_000L + (long) it * 10;
            try (PreparedStatement parents =
                            c.prepareStatement("INSERT INTO w5p (id, name, version) VALUES (?, ?, 0)");
                    PreparedStatement children =
                            c.prepareStatement("INSERT INTO w5c (id, parent_id, v) VALUES (?, ?, ?)");
                    PreparedStatement updates =
                            c.prepareStatement("UPDATE w5p SET name = ?, version = ? WHERE id = ? AND version = ?")) {
                for (int p = 0; p < 10; p++) {
                    parents.setLong(1, base + p);
                    parents.setString(2, "p");
                    parents.addBatch();
                }
                parents.executeBatch();
                for (int ch = 0; ch < 50; ch++) {
                    children.setLong(1, (base + ch / 5) * 10 + ch % 5);
                    children.setLong(2, base + ch / 5);
                    children.setString(3, "c");
                    children.addBatch();
                }
                children.executeBatch();
                for (int u = 0; u < 10; u++) { // the seeded parents 0-9, one version step per operation
                    updates.setString(1, "n" + it);
                    updates.setLong(2, it + 1);
                    updates.setLong(3, u);
                    updates.setLong(4, it);
                    updates.addBatch();
                }
                updates.executeBatch();
            }
            c.commit();
        }));
        w.add(new Workload("W6 point SELECT", (c, it) -> {
            c.setAutoCommit(true);
            try (PreparedStatement ps = c.prepareStatement("SELECT v FROM w6 WHERE id = ?")) {
                ps.setLong(1, it % 100);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                }
            }
        }));
        return w;
    }

    private static void schema(Connection admin, String schema) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("DROP SCHEMA IF EXISTS " + schema + " CASCADE");
            s.execute("CREATE SCHEMA " + schema);
            s.execute("SET search_path TO " + schema);
            s.execute("CREATE TABLE w1 (id bigint PRIMARY KEY, n int, v text)");
            for (String t : new String[] {"w2a", "w2b", "w2c"}) {
                s.execute("CREATE TABLE " + t + " (id bigint PRIMARY KEY, v text)");
            }
            s.execute("CREATE TABLE w3 (id bigint PRIMARY KEY, v text)");
            s.execute("INSERT INTO w3 SELECT g, 'seed' FROM generate_series(0, 99) g");
            s.execute("CREATE TABLE w4 (id bigint PRIMARY KEY, v text, version bigint NOT NULL)");
            s.execute("CREATE TABLE w5p (id bigint PRIMARY KEY, name text, version bigint NOT NULL)");
            s.execute("INSERT INTO w5p SELECT g, 'seed', 0 FROM generate_series(0, 9) g");
            s.execute("CREATE TABLE w5c (id bigint PRIMARY KEY, parent_id bigint REFERENCES w5p, v text)");
            s.execute("CREATE TABLE w6 (id bigint PRIMARY KEY, v text)");
            s.execute("INSERT INTO w6 SELECT g, 'v' FROM generate_series(0, 99) g");
            s.execute("SET search_path TO public");
        }
    }

    /** Resets the tables a workload's operations count on (W4's and W5's versions back to 0). */
    private static void reset(Connection admin, String schema) throws SQLException {
        try (Statement s = admin.createStatement()) {
            s.execute("TRUNCATE " + schema + ".w1, " + schema + ".w2a, " + schema + ".w2b, " + schema + ".w2c, "
                    + schema + ".w4, " + schema + ".w5c");
            s.execute("DELETE FROM " + schema + ".w3 WHERE id >= 100");
            s.execute("DELETE FROM " + schema + ".w5p WHERE id >= 10");
            s.execute("UPDATE " + schema + ".w5p SET version = 0");
            s.execute("INSERT INTO " + schema + ".w4 SELECT g, 'v', 0 FROM generate_series(0, 999) g");
        }
    }

    private static Driver load(String jar, String dependencies) throws Exception {
        URLClassLoader loader = loader(jar, dependencies);
        Class.forName("org.postgresql.Driver", true, loader); // registers this loader's pgjdbc for its FlushlessDriver
        return (Driver) Class.forName("dev.flushless.jdbc.FlushlessDriver", true, loader)
                .getDeclaredConstructor()
                .newInstance();
    }

    /** A class loader of {@code jar} (when not null) and the {@code dependencies}, parent the platform loader. */
    private static URLClassLoader loader(String jar, String dependencies) throws Exception {
        List<URL> urls = new ArrayList<>();
        if (jar != null) {
            urls.add(Path.of(jar).toUri().toURL());
        }
        for (String d : dependencies.split(java.io.File.pathSeparator)) {
            if (!d.isBlank()) {
                urls.add(Path.of(d).toUri().toURL());
            }
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    public static void main(String[] args) throws Exception {
        String url = args[0];
        Side before = new Side("before", load(args[1], args[3]));
        Side after = new Side("after", load(args[2], args[3]));
        int pairs = args.length > 4 ? Integer.parseInt(args[4]) : 12;
        long blockNanos = (args.length > 5 ? Long.parseLong(args[5]) : 300) * 1_000_000L;
        Driver pgjdbc = (Driver) Class.forName("org.postgresql.Driver", true, loader(null, args[3]))
                .getDeclaredConstructor()
                .newInstance(); // bare pgjdbc, for the schemas
        System.out.printf(
                Locale.ROOT,
                "%s, %d pairs of %d ms blocks (ABBA), direct%n",
                ManagementFactory.getRuntimeMXBean().getVmVersion(),
                pairs,
                blockNanos / 1_000_000);
        System.out.println("| workload | mode | before ms/op | after ms/op | speed after vs before (95% interval) |");
        System.out.println("|---|---|---:|---:|---:|");
        String only = args.length > 6 ? args[6] : ""; // e.g. "W1": the workloads whose name starts so
        String[] modes = args.length > 7 ? args[7].split(",") : new String[] {"batch", "transaction"};
        for (Workload workload : workloads()) {
            if (!workload.name().startsWith(only)) {
                continue;
            }
            for (String mode : modes) {
                try (Connection admin = pgjdbc.connect(url, new Properties())) {
                    schema(admin, "ba_before");
                    schema(admin, "ba_after");
                    reset(admin, "ba_before");
                    reset(admin, "ba_after");
                }
                try (Connection b = before.connect(url, mode, "ba_before");
                        Connection a = after.connect(url, mode, "ba_after")) {
                    int[] iteration = {0, 0};
                    // warm-up: 2 s per side, past pgjdbc's prepareThreshold and the JIT's first tiers
                    block(workload, b, iteration, 0, 2_000_000_000L);
                    block(workload, a, iteration, 1, 2_000_000_000L);
                    double[] ratios = new double[pairs];
                    double sumB = 0;
                    double sumA = 0;
                    for (int p = 0; p < pairs; p++) {
                        double tb;
                        double ta;
                        if (p % 2 == 0) {
                            tb = block(workload, b, iteration, 0, blockNanos);
                            ta = block(workload, a, iteration, 1, blockNanos);
                        } else {
                            ta = block(workload, a, iteration, 1, blockNanos);
                            tb = block(workload, b, iteration, 0, blockNanos);
                        }
                        ratios[p] = tb / ta;
                        sumB += tb;
                        sumA += ta;
                    }
                    double mean = PairStats.mean(ratios);
                    double half = PairStats.ci95(ratios);
                    System.out.printf(
                            Locale.ROOT,
                            "| %s | %s | %.3f | %.3f | %.3f (%.3f-%.3f) |%n",
                            workload.name(),
                            mode,
                            sumB / pairs / 1e6,
                            sumA / pairs / 1e6,
                            mean,
                            mean - half,
                            mean + half);
                }
            }
        }
    }

    /** Runs operations for about {@code nanos}; returns nanoseconds per operation. */
    private static double block(Workload workload, Connection c, int[] iteration, int side, long nanos)
            throws SQLException {
        long start = System.nanoTime();
        long end = start + nanos;
        int ops = 0;
        long now;
        do {
            workload.operation().run(c, iteration[side]++);
            ops++;
            now = System.nanoTime();
        } while (now < end);
        return (double) (now - start) / ops;
    }
}
