package dev.flushless.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.demo.Server.Space;
import dev.flushless.demo.Server.StatementCounts;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
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
 * once per variant, each into a fresh database on the same server: through bare pgjdbc, and through
 * {@code jdbc:flushless:postgresql://} with {@code flushless.mode=batch} and with
 * {@code flushless.mode=transaction}; then one table compares what the server and the network saw and
 * whether all the databases hold identical rows.
 */
public final class Demo {

    static final String USAGE = """
            Usage: examples/demo/run.sh [--url JDBC_URL] [--mode batch|transaction|both] [--scale FACTOR]
                                        [--no-warmup] [--keep] [--help]

            Runs an order-processing workload (Hibernate 6 + HikariCP: customers, products, orders with
            lines, price updates, stock upserts, cancellations) through bare pgjdbc and through Flushless
            (flushless.mode=batch and flushless.mode=transaction), each into a fresh database, and prints
            one table comparing server statements, client round trips, estimated YugabyteDB flushes, wall
            time, and whether the data is identical.

              --url JDBC_URL    use this PostgreSQL or YugabyteDB server instead of an embedded PostgreSQL,
                                e.g. 'jdbc:postgresql://localhost:5432/postgres?user=postgres&password=secret'.
                                The demo creates and drops the databases flushless_demo_* there (schemas of
                                that name in the URL's database when it may not create databases).
              --mode MODE       which Flushless runs to compare with bare pgjdbc: batch (flushless.mode=batch,
                                coalesced JDBC batches), transaction (flushless.mode=transaction, also
                                buffered INSERTs: a transaction's writes in one round trip), or both (default)
              --scale FACTOR    multiply the workload's size (default 1; e.g. 0.2 for a quick look, 3 for more)
              --no-warmup       skip the small warm-up run of each variant (the JVM is then colder for the
                                first, bare run)
              --keep            keep the demo's databases (or schemas) afterwards
              --help            this text

            Exit codes: 0 identical data, 1 the data differs, 2 bad arguments, 3 the demo failed.
            """;

    /** One way of running the workload: bare pgjdbc, or Flushless in one {@code flushless.mode}. */
    enum Variant {
        BARE("bare", "bare pgjdbc", null),
        BATCH("batch", "Flushless batch", "batch"),
        TRANSACTION("transaction", "Flushless transaction", "transaction");

        /** Short name: progress lines, database names, {@code --mode} values. */
        final String label;
        /** Column header of the table. */
        final String title;
        /** The {@code flushless.mode} of the run, or null for bare pgjdbc. */
        final String mode;

        Variant(String label, String title, String mode) {
            this.label = label;
            this.title = title;
            this.mode = mode;
        }
    }

    /** Keeps Hibernate's INFO lines off the console (java.util.logging holds loggers weakly). */
    private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");

    private Demo() {}

    /** Parsed command line. */
    record Options(String url, List<Variant> variants, double scale, boolean warmup, boolean keep) {}

    /** What one run observed. */
    record Result(
            Variant variant,
            StatementCounts server,
            long commits,
            long roundTrips,
            long nanos,
            Map<String, Long> rewrites,
            Map<String, Long> fallbacks,
            long batchRows,
            long batchStatements) {}

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
        List<Variant> variants = List.of(Variant.BARE, Variant.BATCH, Variant.TRANSACTION);
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
                            throw new UsageException(
                                    "--url needs a value, e.g. --url 'jdbc:postgresql://localhost:5432/postgres?user=postgres'");
                        }
                        value = args[++i];
                    }
                    if (value.startsWith("jdbc:flushless:")) {
                        throw new UsageException(
                                "--url takes the bare server URL (jdbc:postgresql://...); the demo adds"
                                        + " the jdbc:flushless: prefix itself for the Flushless runs. Got: " + value);
                    }
                    if (!value.startsWith("jdbc:postgresql://") || value.length() == "jdbc:postgresql://".length()) {
                        throw new UsageException(
                                "--url must be a jdbc:postgresql://host[:port]/database[?user=...] URL, got: " + value);
                    }
                    url = value;
                }
                case "--mode" -> {
                    if (value == null) {
                        if (i + 1 >= args.length) {
                            throw new UsageException("--mode needs a value: batch, transaction or both");
                        }
                        value = args[++i];
                    }
                    variants = switch (value) {
                        case "batch" -> List.of(Variant.BARE, Variant.BATCH);
                        case "transaction" -> List.of(Variant.BARE, Variant.TRANSACTION);
                        case "both" -> List.of(Variant.BARE, Variant.BATCH, Variant.TRANSACTION);
                        default -> throw new UsageException("--mode takes batch, transaction or both, got: " + value);
                    };
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
                default ->
                    throw new UsageException(
                            arg.startsWith("-") ? "unknown option " + arg : "unexpected argument " + arg);
            }
            if (value != null && !(arg.equals("--url") || arg.equals("--mode") || arg.equals("--scale"))) {
                throw new UsageException(arg + " takes no value");
            }
        }
        return new Options(url, variants, scale, warmup, keep);
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
            try (Connection c = server.admin();
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT version()")) {
                rs.next();
                version = rs.getString(1);
            }
            say("server ready: " + server.description + ", " + version.split(",")[0] + " ("
                    + seconds(System.nanoTime() - t) + ")"
                    + (server.statementStats
                            ? ""
                            : "; pg_stat_statements not available: server statements shown as n/a"));

            Workload.Sizes sizes = Workload.Sizes.scaled(options.scale());
            List<Variant> variants = options.variants();
            if (options.warmup()) {
                t = System.nanoTime();
                say("warm-up: a small run of each variant, so that every measured run finds a warm JVM ...");
                Workload.Sizes small = Workload.Sizes.scaled(options.scale() / 10);
                for (Variant variant : variants) {
                    Space space = server.create(variant.label, "flushless_demo_warmup_" + variant.label);
                    runOnce(server, space, variant, small, false);
                    server.drop(space);
                }
                say("warm-up done (" + seconds(System.nanoTime() - t) + ")");
            }
            say(String.format(
                    Locale.ROOT,
                    "workload: %,d customers, %,d products, %,d orders (%d per transaction),"
                            + " %d price rounds, %d deliveries of %,d SKUs; Hibernate batch_size=50",
                    sizes.customers(),
                    sizes.products(),
                    sizes.orders(),
                    sizes.ordersPerTransaction(),
                    sizes.priceRounds(),
                    sizes.deliveries(),
                    sizes.skusPerDelivery()));
            List<Space> spaces = new ArrayList<>();
            for (Variant variant : variants) {
                spaces.add(server.create(variant.label, "flushless_demo_" + variant.label));
            }
            List<Result> results = new ArrayList<>();
            for (int i = 0; i < variants.size(); i++) {
                results.add(runOnce(server, spaces.get(i), variants.get(i), sizes, true));
            }

            say("comparing every table's rows (ordered by primary key) between the " + spaces.size()
                    + " databases ...");
            List<String> differences = DataComparison.differences(server, spaces);
            printTable(server, results, differences, flushModel(server, spaces.get(0)));
            boolean identical = differences.stream().allMatch(d -> d == null);
            if (options.keep() || !identical) {
                StringBuilder kept = new StringBuilder();
                for (Space space : spaces) {
                    kept.append(kept.length() == 0 ? "" : ", ").append(where(space));
                }
                say("kept for inspection: " + kept);
            } else if (options.url() != null) {
                for (Space space : spaces) {
                    server.drop(space);
                }
            }
            say("done in " + seconds(System.nanoTime() - demoStart) + " (server start included)");
            return identical ? 0 : 1;
        }
    }

    /** One run of the workload into {@code space}, through bare pgjdbc or through Flushless. */
    static Result runOnce(Server server, Space space, Variant variant, Workload.Sizes sizes, boolean verbose)
            throws SQLException {
        try (Connection c = server.connect(space);
                Statement s = c.createStatement()) {
            for (String ddl : Model.DDL) {
                s.execute(ddl);
            }
        }
        String bareUrl = server.url(space);
        String url = variant.mode == null
                ? bareUrl
                : "jdbc:flushless:" + bareUrl.substring("jdbc:".length()) + (bareUrl.indexOf('?') < 0 ? "?" : "&")
                        + "flushless.mode=" + variant.mode;
        if (verbose) {
            say((variant.mode == null ? "bare pgjdbc run" : "Flushless run, flushless.mode=" + variant.mode) + ": "
                    + redact(url) + (space.schema() == null ? "" : " (schema " + space.schema() + ")"));
        }
        String counterName = space.database() + "/" + space.schema() + "/" + System.nanoTime();
        try (HikariDataSource pool = pool(server, space, url, counterName);
                SessionFactory factory = Workload.sessionFactory(pool)) {
            waitForPool(pool);
            StatementCounts before = server.statementCounts(space.database());
            Snapshot statsBefore = Snapshot.of(FlushlessStats.GLOBAL);
            RoundTrips.counter(counterName).set(0);
            long start = System.nanoTime();
            long[] tripsBefore = {0};
            Workload workload = new Workload(pool, sizes, (phase, detail, nanos) -> {
                long trips = RoundTrips.counter(counterName).get();
                if (verbose) {
                    say(String.format(
                            Locale.ROOT,
                            "  %-11s %-17s %-53s %7s %,6d round trips",
                            variant.label,
                            phase,
                            detail,
                            seconds(nanos),
                            trips - tripsBefore[0]));
                }
                tripsBefore[0] = trips;
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
                say(String.format(
                        Locale.ROOT,
                        "  %-11s %-17s %-53s %7s %,6d round trips",
                        variant.label,
                        "total",
                        "",
                        seconds(nanos),
                        roundTrips));
            }
            return new Result(
                    variant,
                    before == null ? null : after.minus(before),
                    workload.commits(),
                    roundTrips,
                    nanos,
                    minus(statsAfter.rewrites, statsBefore.rewrites),
                    minus(statsAfter.fallbacks, statsBefore.fallbacks),
                    statsAfter.issued - statsBefore.issued,
                    statsAfter.sent - statsBefore.sent);
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
        while (pool.getHikariPoolMXBean().getTotalConnections() < pool.getMinimumIdle()
                && System.nanoTime() < deadline) {
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

    /**
     * One row of the table: a name, then per variant a value and (for the Flushless variants) its change
     * against bare pgjdbc.
     */
    private record Row(String name, String[] values, String[] changes) {}

    /**
     * Prints the table. {@code results.get(0)} is bare pgjdbc; {@code differences.get(i)} is null when the data
     * of {@code results.get(i)} is identical to bare pgjdbc's, else the first difference.
     */
    /**
     * The YugabyteDB flush model the estimate row follows: the server's own release and settings (read with the
     * driver's ServerFacts: on YugabyteDB one query of current_setting values, on PostgreSQL nothing), write pipelining
     * as the release has it by default.
     */
    static YugabyteFlushModel flushModel(Server server, Space space) throws SQLException {
        try (Connection c = server.connect(space)) {
            return ServerFacts.of(c).flushModel(c);
        }
    }

    private static void printTable(
            Server server, List<Result> results, List<String> differences, YugabyteFlushModel model) {
        Result bare = results.get(0);
        int n = results.size();
        boolean stats = results.stream().allMatch(r -> r.server() != null);
        List<Row> rows = new ArrayList<>();
        rows.add(counts(
                "server statements (pg_stat_statements)",
                results,
                r -> stats ? r.server().statements() : -1));
        rows.add(counts(
                "  of which INSERT/UPDATE/DELETE",
                results,
                r -> stats ? r.server().writes() : -1));
        rows.add(counts("client round trips", results, Result::roundTrips));
        rows.add(counts(
                "est. YugabyteDB flushes (*)", results, r -> stats ? r.server().writes() + r.commits() : -1));
        // every workload statement runs in an explicit transaction: with write pipelining only the commits wait
        rows.add(counts(
                "  of which wait for consensus",
                results,
                r -> stats ? (model.writePipelining() ? r.commits() : r.server().writes() + r.commits()) : -1));
        String[] times = new String[n];
        String[] speed = new String[n];
        String[] data = new String[n];
        String[] none = new String[n];
        for (int i = 0; i < n; i++) {
            Result r = results.get(i);
            times[i] = seconds(r.nanos());
            speed[i] = i == 0
                    ? ""
                    : bare.nanos() >= r.nanos()
                            ? String.format(Locale.ROOT, "%.2fx faster", (double) bare.nanos() / Math.max(1, r.nanos()))
                            : String.format(
                                    Locale.ROOT, "%.2fx slower", (double) r.nanos() / Math.max(1, bare.nanos()));
            data[i] = i == 0 ? "" : differences.get(i) == null ? "identical" : "DIFFERENT";
            none[i] = "";
        }
        rows.add(new Row("wall time (workload only)", times, speed));
        rows.add(new Row("resulting data (every table, by PK)", data, none));

        // Each variant's column: the value right-aligned, then its change against bare pgjdbc left-aligned.
        int nameWidth = 0;
        int[] valueWidth = new int[n];
        int[] changeWidth = new int[n];
        for (Row row : rows) {
            nameWidth = Math.max(nameWidth, row.name().length());
            for (int i = 0; i < n; i++) {
                valueWidth[i] = Math.max(valueWidth[i], row.values()[i].length());
                changeWidth[i] = Math.max(changeWidth[i], row.changes()[i].length());
            }
        }
        int[] width = new int[n];
        for (int i = 0; i < n; i++) {
            width[i] = Math.max(
                    results.get(i).variant().title.length(), valueWidth[i] + (i == 0 ? 0 : 2 + changeWidth[i]));
            valueWidth[i] = width[i] - (i == 0 ? 0 : 2 + changeWidth[i]);
        }
        StringBuilder header = new StringBuilder(" ".repeat(nameWidth));
        for (int i = 0; i < n; i++) {
            String title = results.get(i).variant().title;
            header.append(" | ").append(i == 0 ? pad(title, width[i], true) : pad(title, width[i], false));
        }
        String rule = "-".repeat(header.length());
        StringBuilder out = new StringBuilder("\n");
        out.append(header.toString().stripTrailing()).append('\n').append(rule).append('\n');
        for (Row row : rows) {
            StringBuilder line = new StringBuilder(pad(row.name(), nameWidth, false));
            for (int i = 0; i < n; i++) {
                line.append(" | ").append(pad(row.values()[i], valueWidth[i], true));
                if (i > 0) {
                    line.append("  ").append(pad(row.changes()[i], changeWidth[i], false));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        out.append(rule).append('\n');
        boolean sameCommits = results.stream().allMatch(r -> r.commits() == bare.commits());
        String commits = sameCommits
                ? String.format(Locale.ROOT, "%,d transactions in each run", bare.commits())
                : String.join(
                                ", ",
                                results.stream()
                                        .map(r -> String.format(Locale.ROOT, "%s %,d", r.variant().label, r.commits()))
                                        .toList())
                        + " transactions";
        out.append(String.format(
                Locale.ROOT,
                "(*) estimated by the YugabyteDB flush model: one flush per INSERT/UPDATE/DELETE statement the%n"
                        + "    server ran (pg_stat_statements; a CTE chain of writes counts once) plus one per COMMIT%n"
                        + "    (%s, counted by the workload). The model, as read from this server:%n",
                commits));
        for (String line : model.describe()) {
            out.append("    ").append(wrap(line, 100, "      "));
        }
        if (!stats) {
            out.append("    n/a: pg_stat_statements is not preloaded or not readable on ")
                    .append(server.description)
                    .append(".\n");
        }
        StringBuilder note =
                new StringBuilder("Round trips: counted on the client's sockets (write-to-read turns), pool"
                        + " start-up excluded; per phase in the progress lines above.");
        if (results.stream().anyMatch(r -> r.variant() == Variant.BATCH)) {
            note.append(" pgjdbc already sends each JDBC batch in one round trip, so batch mode saves statements, not"
                    + " round trips.");
        }
        if (results.stream().anyMatch(r -> r.variant() == Variant.TRANSACTION)) {
            note.append(" Transaction mode buffers each transaction's INSERTs and sends them with the first statement"
                    + " that needs them (an UPDATE or DELETE batch rides along in its round trip) or with the commit."
                    + " The round trips left are reads, sequence fetches (Hibernate's nextval sends nothing buffered:"
                    + " these tables take their ids from Hibernate, not from sequence defaults), and the"
                    + " UPDATE/DELETE batches after the first, whose counts Hibernate checks at once (the cancellations"
                    + " alternate DELETE batches of an order's lines and of the order: about two round trips per order"
                    + " in every run).");
        }
        out.append(wrap(note.toString(), 104, "    "));
        for (Result r : results) {
            if (r.variant().mode == null) {
                continue;
            }
            out.append(String.format(
                    Locale.ROOT,
                    "%nFlushless's own report (flushless.mode=%s run): %,d statements issued"
                            + " by the application, %,d sent%n",
                    r.variant().mode,
                    r.batchRows(),
                    r.batchStatements()));
            out.append("  rewrites by kind (rows): ")
                    .append(describe(r.rewrites()))
                    .append('\n');
            out.append("  fallbacks by reason (rows run as sent): ")
                    .append(describe(r.fallbacks()))
                    .append('\n');
        }
        out.append('\n');
        boolean identical = true;
        for (int i = 1; i < n; i++) {
            if (differences.get(i) != null) {
                identical = false;
                out.append("DATA DIFFERS between bare pgjdbc and ")
                        .append(results.get(i).variant().title)
                        .append(" (flushless.mode=")
                        .append(results.get(i).variant().mode)
                        .append("): ")
                        .append(differences.get(i))
                        .append('\n');
            }
        }
        if (identical) {
            out.append("Data: identical (every table's rows, ordered by primary key, in ")
                    .append(n == 2 ? "both" : "all " + n)
                    .append(" databases).\n");
        }
        System.out.print(out);
        System.out.flush();
    }

    /** {@code text} in lines of at most {@code width} characters, the second and later indented. */
    static String wrap(String text, int width, String indent) {
        StringBuilder out = new StringBuilder();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                out.append(line).append('\n');
                line.setLength(0);
                line.append(indent);
            }
            if (line.length() > 0 && !line.toString().equals(indent)) {
                line.append(' ');
            }
            line.append(word);
        }
        return out.append(line).append('\n').toString();
    }

    private static String pad(String text, int width, boolean right) {
        String fill = " ".repeat(Math.max(0, width - text.length()));
        return right ? fill + text : text + fill;
    }

    /** A row of counts, each Flushless one with its change against bare pgjdbc (n/a where a count is negative). */
    private static Row counts(String name, List<Result> results, java.util.function.ToLongFunction<Result> count) {
        int n = results.size();
        String[] values = new String[n];
        String[] changes = new String[n];
        long bare = count.applyAsLong(results.get(0));
        for (int i = 0; i < n; i++) {
            long value = count.applyAsLong(results.get(i));
            values[i] = value < 0 ? "n/a" : String.format(Locale.ROOT, "%,d", value);
            changes[i] = i == 0 || value < 0 || bare < 0 ? "" : ratio(bare, value, "fewer", "more");
        }
        return new Row(name, values, changes);
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
        return r >= 1
                ? String.format(Locale.ROOT, "%.1fx %s", r, better)
                : String.format(Locale.ROOT, "%.1fx %s", 1 / r, worse);
    }

    private static String describe(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ")
                .append(k)
                .append(' ')
                .append(String.format(Locale.ROOT, "%,d", v)));
        return sb.toString();
    }

    private static String where(Space space) {
        return space.schema() == null
                ? "database " + space.database()
                : "schema " + space.database() + "." + space.schema();
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
