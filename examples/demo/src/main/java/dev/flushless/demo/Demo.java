package dev.flushless.demo;

import dev.flushless.demo.Run.Result;
import dev.flushless.demo.Run.Variant;
import dev.flushless.demo.Server.Space;
import dev.flushless.jdbc.testing.LatencyProxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Flushless demo: the same order-processing workload (Hibernate + HikariCP + plain JDBC batches) runs once per
 * variant and network delay, each into a fresh database on the same server: through bare pgjdbc, and through
 * {@code jdbc:flushless:postgresql://} with {@code flushless.mode=batch} and with {@code flushless.mode=transaction};
 * directly (D = 0) and through the project's latency proxy at a same-zone (0.25 ms one way) and a cross-zone (1 ms)
 * delay. Then one table compares what the server and the network saw, the wall times, and whether all the databases
 * hold identical rows.
 */
public final class Demo {

    static final String USAGE = """
            Usage: examples/demo/run.sh [--url JDBC_URL] [--mode batch|transaction|both] [--delay MS[,MS...]]
                                        [--scale FACTOR] [--no-warmup] [--keep] [--help]

            Runs an order-processing workload (Hibernate 6 + HikariCP: customers, products, orders with
            lines, price updates, stock upserts, cancellations) through bare pgjdbc and through Flushless
            (flushless.mode=batch and flushless.mode=transaction), twice at each network delay, each run into
            a fresh database, and prints one table comparing server statements, client round trips, YugabyteDB
            flushes (modelled), wall time per delay (the faster run), and whether the data is identical in
            every database.

              --url JDBC_URL    use this PostgreSQL or YugabyteDB server instead of an embedded PostgreSQL,
                                e.g. 'jdbc:postgresql://localhost:5432/postgres?user=postgres&password=secret'.
                                The demo creates and drops the databases flushless_demo_* there (schemas of
                                that name in the URL's database when it may not create databases).
              --mode MODE       which Flushless runs to compare with bare pgjdbc: batch (flushless.mode=batch,
                                coalesced JDBC batches), transaction (flushless.mode=transaction, also
                                buffered INSERTs: a transaction's writes in one round trip), or both (default)
              --delay MS,...    one-way network delays to measure at, in ms (default 0,0.25,1: no added
                                latency, same zone, cross-zone); each above 0 runs through the project's
                                latency proxy (a user-space TCP proxy), so a round trip costs 2 x MS more
              --scale FACTOR    multiply the workload's size (default 1: 250 customers, 500 products, 750
                                orders; e.g. 0.2 for a quick look, 4 for more)
              --no-warmup       skip the unmeasured warm-up runs (the JVM is then cold for the first runs)
              --keep            keep the demo's databases (or schemas) afterwards
              --help            this text

            Exit codes: 0 identical data, 1 the data differs, 2 bad arguments, 3 the demo failed.
            """;

    /** Runs of each variant at each delay; the table shows the faster (other work on the machine only adds time). */
    static final int ROUNDS = 2;

    /** Unmeasured runs of each variant before the measured ones (the measured rounds alternate their order too). */
    static final int WARM_UP_ROUNDS = 1;

    /** Keeps Hibernate's INFO lines off the console (java.util.logging holds loggers weakly). */
    private static final Logger HIBERNATE_LOG = Logger.getLogger("org.hibernate");

    private Demo() {}

    /** Parsed command line. */
    record Options(
            String url, List<Variant> variants, List<Double> delays, double scale, boolean warmup, boolean keep) {}

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
        List<Double> delays = List.of(0.0, 0.25, 1.0);
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
            boolean takesValue =
                    List.of("--url", "--mode", "--delay", "--scale").contains(arg);
            if (takesValue && value == null) {
                if (i + 1 >= args.length) {
                    throw new UsageException(arg + " needs a value (--help lists the options)");
                }
                value = args[++i];
            } else if (!takesValue && value != null) {
                throw new UsageException(arg + " takes no value");
            }
            switch (arg) {
                case "-h", "--help" -> {
                    return null;
                }
                case "--url" -> url = url(value);
                case "--mode" -> variants = variants(value);
                case "--delay" -> delays = delays(value);
                case "--scale" -> scale = scale(value);
                case "--no-warmup" -> warmup = false;
                case "--keep" -> keep = true;
                default ->
                    throw new UsageException(
                            arg.startsWith("-") ? "unknown option " + arg : "unexpected argument " + arg);
            }
        }
        return new Options(url, variants, delays, scale, warmup, keep);
    }

    private static String url(String value) throws UsageException {
        if (value.startsWith("jdbc:flushless:")) {
            throw new UsageException("--url takes the bare server URL (jdbc:postgresql://...); the demo adds"
                    + " the jdbc:flushless: prefix itself for the Flushless runs. Got: " + value);
        }
        if (!value.startsWith("jdbc:postgresql://") || value.length() == "jdbc:postgresql://".length()) {
            throw new UsageException(
                    "--url must be a jdbc:postgresql://host[:port]/database[?user=...] URL, got: " + value);
        }
        return value;
    }

    private static List<Variant> variants(String value) throws UsageException {
        return switch (value) {
            case "batch" -> List.of(Variant.BARE, Variant.BATCH);
            case "transaction" -> List.of(Variant.BARE, Variant.TRANSACTION);
            case "both" -> List.of(Variant.BARE, Variant.BATCH, Variant.TRANSACTION);
            default -> throw new UsageException("--mode takes batch, transaction or both, got: " + value);
        };
    }

    private static List<Double> delays(String value) throws UsageException {
        List<Double> delays = new ArrayList<>();
        for (String part : value.split(",", -1)) {
            double delay;
            try {
                delay = Double.parseDouble(part.strip());
            } catch (NumberFormatException e) {
                delay = -1;
            }
            if (!(delay >= 0 && delay <= 100) || delays.contains(delay)) {
                throw new UsageException("--delay takes distinct one-way delays in ms from 0 to 100, separated by"
                        + " commas (e.g. 0,0.25,1), got: " + value);
            }
            delays.add(delay);
        }
        return List.copyOf(delays);
    }

    private static double scale(String value) throws UsageException {
        double scale;
        try {
            scale = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            scale = Double.NaN;
        }
        if (!(scale >= 0.04 && scale <= 80)) {
            throw new UsageException("--scale takes a number between 0.04 and 80, got: " + value);
        }
        return scale;
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
            say("server ready: " + server.description + ", " + version(server) + " ("
                    + seconds(System.nanoTime() - t) + ")"
                    + (server.statementStats
                            ? ""
                            : "; pg_stat_statements not available: server statements shown as n/a"));
            Workload.Sizes sizes = Workload.Sizes.scaled(options.scale());
            if (options.warmup()) {
                warmUp(server, options, sizes);
            }
            say(String.format(
                    Locale.ROOT,
                    "workload: %,d customers, %,d products, %,d orders (%d per transaction),"
                            + " %d price rounds, %d deliveries of %,d SKUs; Hibernate batch_size=50; at %s",
                    sizes.customers(),
                    sizes.products(),
                    sizes.orders(),
                    sizes.ordersPerTransaction(),
                    sizes.priceRounds(),
                    sizes.deliveries(),
                    sizes.skusPerDelivery(),
                    String.join(
                            ", ", options.delays().stream().map(Demo::delayTag).toList())));
            List<Space> spaces = new ArrayList<>();
            List<List<Result>> runs = new ArrayList<>();
            List<double[]> lateness = new ArrayList<>();
            for (double delay : options.delays()) {
                runs.add(atDelay(server, options, sizes, delay, runs.size(), spaces, lateness));
            }
            say("comparing every table's rows (ordered by primary key) between the " + spaces.size()
                    + " databases ...");
            List<String> flat = DataComparison.differences(server, spaces);
            List<List<String>> differences =
                    byDelayAndVariant(flat, runs.size(), options.variants().size());
            System.out.print(ResultTable.render(server.description, runs, differences, lateness));
            System.out.flush();
            boolean identical = flat.stream().allMatch(d -> d == null);
            finish(server, options, spaces, identical);
            say("done in " + seconds(System.nanoTime() - demoStart) + " (server start included)");
            return identical ? 0 : 1;
        }
    }

    private static String version(Server server) throws java.sql.SQLException {
        try (Connection c = server.admin();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT version()")) {
            rs.next();
            return rs.getString(1).split(",")[0];
        }
    }

    /**
     * {@link #WARM_UP_ROUNDS} runs of each variant at the measured size, directly, in alternating order, so that the
     * measured runs find the JIT's work done (the first runs of a fresh JVM are up to twice as slow).
     */
    private static void warmUp(Server server, Options options, Workload.Sizes sizes) throws Exception {
        long t = System.nanoTime();
        say("warm-up: " + (WARM_UP_ROUNDS == 1 ? "an unmeasured run" : WARM_UP_ROUNDS + " unmeasured runs")
                + " of each variant, so that the measured ones find a warm JVM ...");
        List<Variant> variants = options.variants();
        int n = variants.size();
        for (int round = 0; round < WARM_UP_ROUNDS; round++) {
            for (int k = 0; k < n; k++) {
                Variant variant = variants.get(round % 2 == 0 ? n - 1 - k : k);
                Space space = server.create(variant.label, "flushless_demo_warmup_" + variant.label);
                Run.once(server, space, variant, null, sizes, false, false);
                server.drop(space);
            }
        }
        say("warm-up done (" + seconds(System.nanoTime() - t) + ")");
    }

    /**
     * Every variant at the {@code index}th delay, {@link #ROUNDS} times, each run into a fresh space (added to
     * {@code spaces}, round by round, variants in order); returns each variant's faster run, and notes the proxy's
     * lateness. Rounds alternate the order of the variants, so that none always runs first. The first delay's first
     * round prints a line per phase.
     */
    private static List<Result> atDelay(
            Server server,
            Options options,
            Workload.Sizes sizes,
            double delay,
            int index,
            List<Space> spaces,
            List<double[]> lateness)
            throws Exception {
        List<Variant> variants = options.variants();
        int n = variants.size();
        List<Space> created = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++) {
            for (Variant variant : variants) {
                created.add(server.create(
                        variant.label + " " + delayTag(delay) + " run " + (round + 1),
                        "flushless_demo_" + variant.label + "_d" + millis(delay).replace('.', '_') + "_" + round));
            }
        }
        spaces.addAll(created);
        if (index > 0) {
            say("at " + delayLabel(delay) + ":");
        }
        Result[] best = new Result[n];
        try (LatencyProxy proxy = delay > 0 ? LatencyProxy.forUrlMillis(server.url(created.get(0)), delay) : null) {
            for (int round = 0; round < ROUNDS; round++) {
                for (int k = 0; k < n; k++) {
                    int i = (index + round) % 2 == 0 ? k : n - 1 - k;
                    Space space = created.get(round * n + i);
                    boolean phases = index == 0 && round == 0;
                    Result r = Run.once(server, space, variants.get(i), proxy, sizes, true, phases);
                    if (best[i] == null || r.nanos() < best[i].nanos()) {
                        best[i] = r;
                    }
                }
            }
            lateness.add(proxy == null ? null : new double[] {proxy.meanLatenessMicros(), proxy.maxLatenessMicros()});
        }
        return List.of(best);
    }

    /**
     * The first difference of each variant's runs at each delay ({@code flat} holds every run's, in the order
     * {@link #atDelay} creates the spaces), or null where all of them are identical to the first run's data.
     */
    private static List<List<String>> byDelayAndVariant(List<String> flat, int delays, int variants) {
        List<List<String>> differences = new ArrayList<>();
        for (int d = 0; d < delays; d++) {
            List<String> atDelay = new ArrayList<>();
            for (int v = 0; v < variants; v++) {
                String first = null;
                for (int round = 0; round < ROUNDS && first == null; round++) {
                    first = flat.get((d * ROUNDS + round) * variants + v);
                }
                atDelay.add(first);
            }
            differences.add(atDelay);
        }
        return differences;
    }

    /** Keeps the spaces for inspection (--keep, or when the data differs), or drops them on a --url server. */
    private static void finish(Server server, Options options, List<Space> spaces, boolean identical)
            throws java.sql.SQLException {
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
    }

    /** "D = 0.25 ms": a delay as the progress lines and the report name it. */
    static String delayTag(double delayMs) {
        return delayMs == 0 ? "D = 0" : "D = " + millis(delayMs) + " ms";
    }

    /** A delay as the table's row names it: "D = 0 (no added latency)", "D = 0.25 ms (same zone)", ... */
    static String delayLabel(double delayMs) {
        String where = delayMs == 0
                ? "no added latency"
                : delayMs < 0.5 ? "same zone" : delayMs <= 2 ? "cross-zone" : "cross-region";
        return delayTag(delayMs) + " (" + where + ")";
    }

    /** {@code 0.25}, {@code 1}: a delay in ms without trailing zeros. */
    static String millis(double delayMs) {
        return java.math.BigDecimal.valueOf(delayMs).stripTrailingZeros().toPlainString();
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
}
