package dev.flushless.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.demo.Server.Space;
import dev.flushless.demo.Server.StatementCounts;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.hibernate.SessionFactory;

/**
 * The Flushless demo: the same order-processing workload (Hibernate + HikariCP + plain JDBC batches) runs
 * twice, each into a fresh database on the same server, once through bare pgjdbc and once through
 * {@code jdbc:flushless:postgresql://}, then one table compares what the server and the network saw and
 * whether the two databases hold identical rows.
 */
public final class Demo {

    static final String USAGE = """
            Usage: examples/demo/run.sh [--url JDBC_URL] [--scale FACTOR] [--no-warmup] [--keep] [--help]

            Runs an order-processing workload (Hibernate 6 + HikariCP: customers, products, orders with
            lines, price updates, stock upserts, cancellations) twice, through bare pgjdbc and through
            Flushless, each into a fresh database, and prints one table comparing server statements,
            client round trips, estimated YugabyteDB flushes, wall time, and whether the data is identical.

              --url JDBC_URL    use this PostgreSQL or YugabyteDB server instead of an embedded PostgreSQL,
                                e.g. 'jdbc:postgresql://localhost:5432/postgres?user=postgres&password=secret'.
                                The demo creates and drops the databases flushless_demo_* there (schemas of
                                that name in the URL's database when it may not create databases).
              --scale FACTOR    multiply the workload's size (default 1; e.g. 0.2 for a quick look, 3 for more)
              --no-warmup       skip the small warm-up run of both drivers (the JVM is then colder for the
                                first, bare run)
              --keep            keep the demo's databases (or schemas) afterwards
              --help            this text

            Exit codes: 0 identical data, 1 the data differs, 2 bad arguments, 3 the demo failed.
            """;

    private static final String BARE = "bare";
    private static final String FLUSHLESS = "flushless";
    /** Keeps Hibernate's INFO lines off the console (java.util.logging holds loggers weakly). */
    private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");

    private Demo() {
    }

    /** Parsed command line. */
    record Options(String url, double scale, boolean warmup, boolean keep) {
    }

    /** What one run observed. */
    record Result(String label, StatementCounts server, long commits, long roundTrips, long nanos, Map<String, Long> rewrites,
            Map<String, Long> fallbacks, long batchRows, long batchStatements) {
    }

    static final class UsageException extends Exception {
        UsageException(String message) {
            super(message);
        }
    }

    public static void main(String[] args) {
        Options options;
        try {
            options = parse(args);
        } catch (UsageException e) {
            System.err.println("demo: " + e.getMessage());
            System.err.println("Run with --help for the options.");
            System.exit(2);
            return;
        }
        if (options == null) {
            System.out.print(USAGE);
            System.exit(0);
            return;
        }
        int code;
        try {
            code = run(options);
        } catch (Exception e) {
            System.err.println("demo: failed: " + e);
            for (Throwable t = e.getCause(); t != null; t = t.getCause()) {
                System.err.println("  caused by: " + t);
            }
            e.printStackTrace(System.err);
            code = 3;
        }
        System.out.flush();
        System.exit(code);
    }

    /** The options, or null for --help. */
    static Options parse(String[] args) throws UsageException {
        String url = null;
        double scale = 1;
        boolean warmup = true;
        boolean keep = false;
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            String value = null;
            int eq = arg.indexOf('=');
            if (arg.startsWith("--") && eq > 0) {
                value = arg.substring(eq + 1);
                arg = arg.substring(0, eq);
            }
            switch (arg) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--url" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("--url needs a value, e.g. --url 'jdbc:postgresql://localhost:5432/postgres?user=postgres'");
                        }
                        value = args[++i];
                    }
                    if (value.startsWith("jdbc:flushless:")) {
                        throw new UsageException("--url takes the bare server URL (jdbc:postgresql://...); the demo adds"
                                + " the jdbc:flushless: prefix itself for the second run. Got: " + value);
                    }
                    if (!value.startsWith("jdbc:postgresql://") || value.length() == "jdbc:postgresql://".length()) {
                        throw new UsageException("--url must be a jdbc:postgresql://host[:port]/database[?user=...] URL, got: "
                                + value);
                    }
                    url = value;
                }
                case "--scale" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("--scale needs a number, e.g. --scale 0.5");
                        }
                        value = args[++i];
                    }
                    try {
                        scale = Double.parseDouble(value);
                    } catch (NumberFormatException e) {
                        throw new UsageException("--scale takes a number between 0.01 and 20, got: " + value);
                    }
                    if (!(scale >= 0.01 && scale <= 20)) {
                        throw new UsageException("--scale takes a number between 0.01 and 20, got: " + value);
                    }
                }
                case "--no-warmup" -> warmup = false;
                case "--keep" -> keep = true;
                default -> throw new UsageException(arg.startsWith("-") ? "unknown option " + arg
                        : "unexpected argument " + arg);
            }
            if (value != null && !(arg.equals("--url") || arg.equals("--scale"))) {
                throw new UsageException(arg + " takes no value");
            }
        }
        return new Options(url, scale, warmup, keep);
    }

    static int run(Options options) throws Exception {
        HIBERNATE_LOG.setLevel(Level.WARNING);
        long demoStart = System.nanoTime();
        Server server;
        long t = System.nanoTime();
        if (options.url() == null) {
            say("starting an embedded PostgreSQL (zonky, pg_stat_statements preloaded) ...");
            server = Server.embedded();
        } else {
            say("connecting to " + redact(options.url()) + " ...");
            server = Server.fromUrl(options.url());
        }
        try (server) {
            String version;
            try (Connection c = server.admin(); Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT version()")) {
                rs.next();
                version = rs.getString(1);
            }
            say("server ready: " + server.description + ", " + version.split(",")[0] + " (" + seconds(System.nanoTime() - t) + ")"
                    + (server.statementStats ? "" : "; pg_stat_statements not available: server statements shown as n/a"));

            Workload.Sizes sizes = Workload.Sizes.scaled(options.scale());
            if (options.warmup()) {
                t = System.nanoTime();
                say("warm-up: a small run through each driver, so that both measured runs find a warm JVM ...");
                Workload.Sizes small = Workload.Sizes.scaled(options.scale() / 10);
                for (String label : List.of(BARE, FLUSHLESS)) {
                    Space space = server.create(label, "flushless_demo_warmup_" + label);
                    runOnce(server, space, small, false);
                    server.drop(space);
                }
                say("warm-up done (" + seconds(System.nanoTime() - t) + ")");
            }
            say(String.format(Locale.ROOT, "workload: %,d customers, %,d products, %,d orders (%d per transaction),"
                    + " %d price rounds, %d deliveries of %,d SKUs; Hibernate batch_size=50", sizes.customers(),
                    sizes.products(), sizes.orders(), sizes.ordersPerTransaction(), sizes.priceRounds(), sizes.deliveries(),
                    sizes.skusPerDelivery()));
            Space bareSpace = server.create(BARE, "flushless_demo_bare");
            Space flushlessSpace = server.create(FLUSHLESS, "flushless_demo_flushless");
            Result bare = runOnce(server, bareSpace, sizes, true);
            Result flushless = runOnce(server, flushlessSpace, sizes, true);

            say("comparing every table's rows (ordered by primary key) between the two databases ...");
            String difference = DataComparison.firstDifference(server, bareSpace, flushlessSpace);
            printTable(server, bare, flushless, difference);
            boolean keep = options.keep() || difference != null;
            if (keep) {
                say("kept for inspection: " + where(bareSpace) + " and " + where(flushlessSpace));
            } else if (options.url() != null) {
                server.drop(bareSpace);
                server.drop(flushlessSpace);
            }
            say("done in " + seconds(System.nanoTime() - demoStart) + " (server start included)");
            return difference == null ? 0 : 1;
        }
    }

    /** One run of the workload into {@code space}, through bare pgjdbc or through Flushless. */
    static Result runOnce(Server server, Space space, Workload.Sizes sizes, boolean verbose) throws SQLException {
        boolean flushless = space.label().equals(FLUSHLESS);
        try (Connection c = server.connect(space); Statement s = c.createStatement()) {
            for (String ddl : Model.DDL) {
                s.execute(ddl);
            }
        }
        String bareUrl = server.url(space);
        String url = flushless ? "jdbc:flushless:" + bareUrl.substring("jdbc:".length()) : bareUrl;
        if (verbose) {
            say((flushless ? "Flushless run" : "bare pgjdbc run") + ": " + redact(url) + (space.schema() == null ? ""
                    : " (schema " + space.schema() + ")"));
        }
        String counterName = space.database() + "/" + space.schema() + "/" + System.nanoTime();
        try (HikariDataSource pool = pool(server, space, url, counterName);
                SessionFactory factory = Workload.sessionFactory(pool)) {
            waitForPool(pool);
            StatementCounts before = server.statementCounts(space.database());
            Snapshot statsBefore = Snapshot.of(FlushlessStats.GLOBAL);
            RoundTrips.counter(counterName).set(0);
            long start = System.nanoTime();
            Workload workload = new Workload(pool, sizes, (phase, detail, nanos) -> {
                if (verbose) {
                    say(String.format(Locale.ROOT, "  %-9s %-17s %-58s %8s", flushless ? "flushless" : "bare", phase,
                            detail, seconds(nanos)));
                }
            });
            workload.run(factory);
            long nanos = System.nanoTime() - start;
            long roundTrips = RoundTrips.counter(counterName).get();
            StatementCounts after = server.statementCounts(space.database());
            Snapshot statsAfter = Snapshot.of(FlushlessStats.GLOBAL);
            if (verbose && server.statementStats && "1".equals(System.getenv("FLUSHLESS_DEMO_DEBUG"))) {
                server.dumpStatements(space.database());
            }
            if (verbose) {
                say(String.format(Locale.ROOT, "  %-9s %-17s %-58s %8s", flushless ? "flushless" : "bare", "total", "",
                        seconds(nanos)));
            }
            return new Result(space.label(), before == null ? null : after.minus(before), workload.commits(), roundTrips,
                    nanos,
                    minus(statsAfter.rewrites, statsBefore.rewrites), minus(statsAfter.fallbacks, statsBefore.fallbacks),
                    statsAfter.issued - statsBefore.issued, statsAfter.sent - statsBefore.sent);
        }
    }

    private static HikariDataSource pool(Server server, Space space, String url, String counterName) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("demo-" + space.label());
        config.setJdbcUrl(url);
        Properties credentials = server.credentials();
        if (credentials.getProperty("user") != null) {
            config.setUsername(credentials.getProperty("user"));
        }
        if (credentials.getProperty("password") != null) {
            config.setPassword(credentials.getProperty("password"));
        }
        config.setMaximumPoolSize(2);
        config.setMinimumIdle(2);
        config.setAutoCommit(false);
        config.addDataSourceProperty("socketFactory", RoundTrips.class.getName());
        config.addDataSourceProperty("socketFactoryArg", counterName);
        if (space.schema() != null) {
            config.addDataSourceProperty("currentSchema", space.schema());
        }
        return new HikariDataSource(config);
    }

    private static void waitForPool(HikariDataSource pool) {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (pool.getHikariPoolMXBean().getTotalConnections() < pool.getMinimumIdle() && System.nanoTime() < deadline) {
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** A copy of the driver-wide Flushless counters. */
    private record Snapshot(long issued, long sent, Map<String, Long> rewrites, Map<String, Long> fallbacks) {
        static Snapshot of(FlushlessStats stats) {
            return new Snapshot(stats.statementsIssued(), stats.statementsSent(), stats.rewrites(), stats.fallbacks());
        }
    }

    private static Map<String, Long> minus(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> result = new TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) {
                result.put(k, d);
            }
        });
        return result;
    }

    private static void printTable(Server server, Result bare, Result flushless, String difference) {
        List<String[]> rows = new ArrayList<>();
        boolean stats = bare.server() != null && flushless.server() != null;
        rows.add(row("server statements (pg_stat_statements)", stats ? bare.server().statements() : -1,
                stats ? flushless.server().statements() : -1));
        rows.add(row("  of which INSERT/UPDATE/DELETE", stats ? bare.server().writes() : -1,
                stats ? flushless.server().writes() : -1));
        rows.add(row("client round trips", bare.roundTrips(), flushless.roundTrips()));
        rows.add(row("est. YugabyteDB flushes (*)", stats ? bare.server().writes() + bare.commits() : -1,
                stats ? flushless.server().writes() + flushless.commits() : -1));
        rows.add(new String[] {"wall time (workload only)", seconds(bare.nanos()), seconds(flushless.nanos()),
                bare.nanos() >= flushless.nanos()
                        ? String.format(Locale.ROOT, "%.2fx faster", (double) bare.nanos() / Math.max(1, flushless.nanos()))
                        : String.format(Locale.ROOT, "%.2fx slower", (double) flushless.nanos() / Math.max(1, bare.nanos()))});
        rows.add(new String[] {"resulting data (every table, by PK)", "", "", difference == null ? "identical" : "DIFFERENT"});

        String[] header = {"", "bare pgjdbc", "Flushless", "change"};
        int[] width = new int[4];
        for (String[] r : concat(header, rows)) {
            for (int i = 0; i < 4; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        StringBuilder out = new StringBuilder("\n");
        String rule = "-".repeat(width[0] + width[1] + width[2] + width[3] + 9);
        out.append(line(header, width)).append(rule).append('\n');
        for (String[] r : rows) {
            out.append(line(r, width));
        }
        out.append(rule).append('\n');
        out.append(String.format(Locale.ROOT, "(*) an estimate until the YugabyteDB model lands: one flush per INSERT/UPDATE/DELETE"
                + " statement the%n    server ran (pg_stat_statements; a CTE chain of writes counts once) plus one per COMMIT"
                + " (%,d and %,d%n    transactions, counted by the workload).%n", bare.commits(), flushless.commits()));
        if (!stats) {
            out.append("    n/a: pg_stat_statements is not preloaded or not readable on ").append(server.description)
                    .append(".\n");
        }
        out.append("Round trips: counted on the client's sockets (write-to-read turns), pool start-up excluded. pgjdbc\n"
                + "    already sends each JDBC batch in one round trip, so batch mode saves statements, not round trips;\n"
                + "    round trips per transaction are what flushless.mode=transaction (planned) is for.\n");
        out.append(String.format(Locale.ROOT, "%nFlushless's own report (this run): %,d statements issued by the application,"
                + " %,d sent%n", flushless.batchRows(), flushless.batchStatements()));
        out.append("  rewrites by kind (rows): ").append(describe(flushless.rewrites())).append('\n');
        out.append("  fallbacks by reason (rows run as sent): ").append(describe(flushless.fallbacks())).append('\n');
        out.append('\n');
        if (difference == null) {
            out.append("Data: identical (every table's rows, ordered by primary key, in both databases).\n");
        } else {
            out.append("DATA DIFFERS between bare pgjdbc and Flushless: ").append(difference).append('\n');
        }
        System.out.print(out);
        System.out.flush();
    }

    private static List<String[]> concat(String[] header, List<String[]> rows) {
        List<String[]> all = new ArrayList<>(rows);
        all.add(header);
        return all;
    }

    private static String line(String[] r, int[] width) {
        return String.format(Locale.ROOT, "%-" + width[0] + "s | %" + width[1] + "s | %" + width[2] + "s | %-" + width[3]
                + "s%n", r[0], r[1], r[2], r[3]);
    }

    private static String[] row(String name, long bare, long flushless) {
        if (bare < 0 || flushless < 0) {
            return new String[] {name, "n/a", "n/a", ""};
        }
        return new String[] {name, String.format(Locale.ROOT, "%,d", bare), String.format(Locale.ROOT, "%,d", flushless),
                ratio(bare, flushless, "fewer", "more")};
    }

    private static String ratio(long bare, long flushless, String better, String worse) {
        if (bare == flushless) {
            return "same";
        }
        if (flushless == 0) {
            return "all gone";
        }
        double r = (double) bare / flushless;
        if (r > 1 / 1.25 && r < 1.25) {
            return String.format(Locale.ROOT, "%+.1f %%", 100.0 * (flushless - bare) / bare);
        }
        return r >= 1 ? String.format(Locale.ROOT, "%.1fx %s", r, better)
                : String.format(Locale.ROOT, "%.1fx %s", 1 / r, worse);
    }

    private static String describe(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ").append(k).append(' ')
                .append(String.format(Locale.ROOT, "%,d", v)));
        return sb.toString();
    }

    private static String where(Space space) {
        return space.schema() == null ? "database " + space.database() : "schema " + space.database() + "." + space.schema();
    }

    static String seconds(long nanos) {
        return String.format(Locale.ROOT, "%.2f s", nanos / 1e9);
    }

    /** The URL without a password value. */
    static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }

    static void say(String message) {
        System.out.println("[demo] " + message);
        System.out.flush();
    }
}
