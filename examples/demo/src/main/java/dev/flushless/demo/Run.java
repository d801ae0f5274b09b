package dev.flushless.demo;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.demo.Server.Space;
import dev.flushless.demo.Server.StatementCounts;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.hibernate.SessionFactory;

/**
 * One measured run of the workload into a fresh space: through bare pgjdbc or Flushless in one mode, directly or
 * through the latency proxy. Round trips are counted on the client's sockets ({@link RoundTripCountingSocketFactory},
 * from the driver's test-jar), server statements from {@code pg_stat_statements}, Flushless's own counters (its
 * report, with the YugabyteDB flush model's estimates) from the driver-wide {@link FlushlessStats#GLOBAL}.
 */
final class Run {

    private Run() {}

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

    /** What one run observed. */
    record Result(
            Variant variant,
            double delayMs,
            StatementCounts server,
            long commits,
            long roundTrips,
            long nanos,
            Snapshot flushless) {}

    /** A copy of the driver-wide Flushless counters, or the difference of two. */
    record Snapshot(
            long issued,
            long sent,
            long flushesBefore,
            long flushesAfter,
            Map<String, Long> rewrites,
            Map<String, Long> fallbacks) {
        static Snapshot of(FlushlessStats stats) {
            return new Snapshot(
                    stats.statementsIssued(),
                    stats.statementsSent(),
                    stats.estimatedFlushesBefore(),
                    stats.estimatedFlushesAfter(),
                    stats.rewrites(),
                    stats.fallbacks());
        }

        Snapshot minus(Snapshot before) {
            return new Snapshot(
                    issued - before.issued,
                    sent - before.sent,
                    flushesBefore - before.flushesBefore,
                    flushesAfter - before.flushesAfter,
                    difference(rewrites, before.rewrites),
                    difference(fallbacks, before.fallbacks));
        }

        private static Map<String, Long> difference(Map<String, Long> after, Map<String, Long> before) {
            Map<String, Long> result = new TreeMap<>();
            after.forEach((k, v) -> {
                long d = v - before.getOrDefault(k, 0L);
                if (d != 0) {
                    result.put(k, d);
                }
            });
            return result;
        }
    }

    /**
     * Runs the workload once into {@code space} ({@code proxy}: through it, or null for a direct connection), printing
     * a line per phase when {@code phases}, and a line for the run when {@code verbose}.
     */
    static Result once(
            Server server,
            Space space,
            Variant variant,
            LatencyProxy proxy,
            Workload.Sizes sizes,
            boolean verbose,
            boolean phases)
            throws SQLException {
        try (Connection c = server.connect(space);
                Statement s = c.createStatement()) {
            for (String ddl : Model.DDL) {
                s.execute(ddl);
            }
        }
        String url = url(server.url(space), variant, proxy);
        double delay = proxy == null ? 0 : proxy.delayNanos() / 1e6;
        String tag = String.format(Locale.ROOT, "%-11s %-8s", variant.label, Demo.delayTag(delay));
        if (verbose && phases) {
            Demo.say((variant.mode == null ? "bare pgjdbc run" : "Flushless run, flushless.mode=" + variant.mode) + ": "
                    + Demo.redact(url) + (space.schema() == null ? "" : " (schema " + space.schema() + ")"));
        }
        String counterName = space.database() + "/" + space.schema() + "/" + System.nanoTime();
        RoundTripCountingSocketFactory.Counter trips = RoundTripCountingSocketFactory.counter(counterName);
        try (HikariDataSource pool = pool(server, space, url, counterName);
                SessionFactory factory = Workload.sessionFactory(pool)) {
            waitForPool(pool);
            StatementCounts before = server.statementCounts(space.database());
            Snapshot statsBefore = Snapshot.of(FlushlessStats.GLOBAL);
            trips.reset();
            long start = System.nanoTime();
            long[] tripsBefore = {0};
            Workload workload = new Workload(pool, sizes, (phase, detail, nanos) -> {
                long now = trips.roundTrips();
                if (verbose && phases) {
                    Demo.say(String.format(
                            Locale.ROOT,
                            "  %s %-17s %-53s %7s %,6d round trips",
                            tag,
                            phase,
                            detail,
                            Demo.seconds(nanos),
                            now - tripsBefore[0]));
                }
                tripsBefore[0] = now;
            });
            workload.run(factory);
            long nanos = System.nanoTime() - start;
            long roundTrips = trips.roundTrips();
            StatementCounts after = server.statementCounts(space.database());
            Snapshot statsAfter = Snapshot.of(FlushlessStats.GLOBAL);
            if (verbose && server.statementStats && "1".equals(System.getenv("FLUSHLESS_DEMO_DEBUG"))) {
                server.dumpStatements(space.database());
            }
            if (verbose) {
                Demo.say(String.format(
                        Locale.ROOT,
                        "  %s %-17s %-53s %7s %,6d round trips",
                        tag,
                        "total",
                        "",
                        Demo.seconds(nanos),
                        roundTrips));
            }
            return new Result(
                    variant,
                    delay,
                    before == null ? null : after.minus(before),
                    workload.commits(),
                    roundTrips,
                    nanos,
                    statsAfter.minus(statsBefore));
        }
    }

    /** The run's URL: the space's, through {@code proxy} when given, with the Flushless prefix and mode. */
    private static String url(String bareUrl, Variant variant, LatencyProxy proxy) {
        String url = proxy == null ? bareUrl : proxy.proxiedUrl(bareUrl);
        return variant.mode == null
                ? url
                : "jdbc:flushless:" + url.substring("jdbc:".length()) + (url.indexOf('?') < 0 ? "?" : "&")
                        + "flushless.mode=" + variant.mode;
    }

    private static HikariDataSource pool(Server server, Space space, String url, String counterName) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("demo-" + space.label().replace(' ', '-'));
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
        RoundTripCountingSocketFactory.properties(counterName)
                .forEach((k, v) -> config.addDataSourceProperty((String) k, v));
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
}
