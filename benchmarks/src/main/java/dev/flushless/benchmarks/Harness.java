package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * One trial of one workload: the application's connection for the variant (through the latency proxy
 * unless the delay is {@code direct}), a direct housekeeping connection for setup (not counted), and the
 * counters reported next to the time: round trips on the driver's socket and in the proxy, and server-side
 * statements from {@code pg_stat_statements}, each divided by the operations of the trial (warm-up
 * included: the counts per operation do not change with warm-up, the times do).
 */
public final class Harness implements AutoCloseable {

    /** System property: the {@code jdbc:postgresql://} URL of the database to run in (set by {@link BenchMain}). */
    public static final String URL_PROPERTY = "flushless.bench.url";
    /** System property: the file the per-trial counts are appended to (JSON lines). */
    public static final String COUNTS_PROPERTY = "flushless.bench.counts";

    /** Transaction control and session statements are not counted as server statements. */
    private static final String STATEMENTS_SQL = "SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
            + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
            + " AND query !~* '^\\s*(begin|commit|rollback|start\\s+transaction|end|savepoint|release|set|show"
            + "|discard|deallocate|truncate|analyze|vacuum|create|drop|select pg_stat_statements)\\M'";

    private final BenchmarkParams params;
    private final Variant variant;
    private final String delay;
    private final Connection house;
    private final LatencyProxy proxy;
    private final RoundTripCountingSocketFactory.Counter socket;
    private final String appUrl;
    private final Properties appProperties;
    private final Connection app;
    private final String statsProblem;
    private final LongAdder ops = new LongAdder();
    private final ObjectNode extra = new ObjectMapper().createObjectNode();
    private boolean countsLine = true;

    private Harness(BenchmarkParams params, Variant variant, String delay, boolean openApp)
            throws SQLException, IOException {
        this.params = params;
        this.variant = variant;
        this.delay = delay;
        String serverUrl = Targets.benchmarkUrl();
        this.house = DriverManager.getConnection(serverUrl);
        this.statsProblem = prepareStatementStats(house);
        this.proxy = "direct".equals(delay) ? null : LatencyProxy.forUrlMillis(serverUrl, Double.parseDouble(delay));
        String url = proxy == null ? serverUrl : proxy.proxiedUrl(serverUrl);
        String key = params.getBenchmark() + "-" + UUID.randomUUID();
        Properties properties = RoundTripCountingSocketFactory.properties(key);
        this.socket = RoundTripCountingSocketFactory.counter(key);
        if (variant == Variant.REWRITE) {
            properties.setProperty("reWriteBatchedInserts", "true");
        }
        String flushless = variant.flushlessUrlParameters();
        if (flushless != null) {
            url = "jdbc:flushless:" + url.substring("jdbc:".length()) + (url.contains("?") ? "&" : "?") + flushless;
        }
        this.appUrl = url;
        this.appProperties = properties;
        this.app = openApp ? DriverManager.getConnection(url, properties) : null;
    }

    /** Opens the trial's connections; call from {@code @Setup(Level.Trial)}. */
    public static Harness open(BenchmarkParams params, String variant, String delay) throws Exception {
        return new Harness(params, Variant.of(variant), delay, true);
    }

    /**
     * Like {@link #open} but without the application's connection: the workload opens its own (e.g. a pool)
     * with {@link #appUrl()} and {@link #appProperties()}, so that they are counted and go through the proxy.
     */
    public static Harness openWithoutConnection(BenchmarkParams params, String variant, String delay) throws Exception {
        return new Harness(params, Variant.of(variant), delay, false);
    }

    /** The URL of the application's connections (through the proxy; {@code jdbc:flushless:} for Flushless variants). */
    public String appUrl() {
        return appUrl;
    }

    /** The connection properties of the application's connections (the round-trip counting socket factory). */
    public Properties appProperties() {
        Properties copy = new Properties();
        copy.putAll(appProperties);
        return copy;
    }

    /** Extra fields for this trial's line in the counts file (set them before {@link #close()}). */
    public ObjectNode extra() {
        return extra;
    }

    public Variant variant() {
        return variant;
    }

    /** The application's connection (counted, through the proxy). */
    public Connection app() {
        if (app == null) {
            throw new IllegalStateException("opened without the application's connection");
        }
        return app;
    }

    /** Runs setup statements on the direct housekeeping connection (not counted). */
    public void house(String... sql) throws SQLException {
        try (Statement s = house.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        }
    }

    /** The housekeeping connection, for seeding data (not counted). */
    public Connection houseConnection() {
        return house;
    }

    /** Round trips on the application's sockets since {@link #startCounting()} (all its connections). */
    public long roundTrips() {
        return socket.roundTrips();
    }

    /** The latency proxy of the application's connections, or null ({@code direct}). */
    public LatencyProxy proxy() {
        return proxy;
    }

    /**
     * Server statements run in the benchmark database since the last {@code pg_stat_statements} reset (every
     * session's, counted as in the counts file), or -1 when they cannot be counted. A paired benchmark reads it
     * before and after each block: the blocks run one at a time, so the difference is that block's.
     */
    public long serverStatements() throws SQLException {
        if (statsProblem != null) {
            return -1;
        }
        try (Statement s = house.createStatement();
                ResultSet rs = s.executeQuery(STATEMENTS_SQL)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    /**
     * No per-trial line in the counts file at {@link #close()}: for paired benchmarks, which share the database
     * between their harnesses (so each one's server statements would include the others') and write their own line.
     */
    public void skipCountsLine() {
        countsLine = false;
    }

    /** Zeroes all counters; call at the end of the trial's setup. */
    public void startCounting() throws SQLException {
        if (statsProblem == null) {
            house("SELECT pg_stat_statements_reset()");
        }
        socket.reset();
        if (proxy != null) {
            proxy.resetCounters();
        }
        ops.reset();
    }

    /** Counts one operation; call once per benchmark invocation (thread-safe). */
    public void op() {
        ops.increment();
    }

    /** Operations counted since {@link #startCounting()}. */
    public long ops() {
        return ops.sum();
    }

    /** Appends the trial's counts to the counts file and closes everything; call from {@code @TearDown(Level.Trial)}. */
    @Override
    public void close() throws Exception {
        if (!countsLine) {
            closeConnections();
            return;
        }
        long statements = -1;
        if (statsProblem == null) {
            try (Statement s = house.createStatement();
                    ResultSet rs = s.executeQuery(STATEMENTS_SQL)) {
                rs.next();
                statements = rs.getLong(1);
            }
        }
        long ops = this.ops.sum();
        ObjectMapper json = new ObjectMapper();
        ObjectNode line = json.createObjectNode();
        line.put("benchmark", params.getBenchmark());
        ObjectNode p = line.putObject("params");
        for (String k : params.getParamsKeys()) {
            p.put(k, params.getParam(k));
        }
        line.put("ops", ops);
        line.put("roundTrips", socket.roundTrips());
        if (proxy != null) {
            line.put("proxyRoundTrips", proxy.roundTrips());
        }
        if (statements >= 0) {
            line.put("statements", statements);
        } else {
            line.put("statementsUnavailable", statsProblem);
        }
        if (ops > 0) {
            line.put("roundTripsPerOp", (double) socket.roundTrips() / ops);
            if (proxy != null) {
                line.put("proxyRoundTripsPerOp", (double) proxy.roundTrips() / ops);
            }
            if (statements >= 0) {
                line.put("statementsPerOp", (double) statements / ops);
            }
        }
        line.setAll(extra);
        append(line);
        closeConnections();
    }

    private void closeConnections() throws SQLException {
        try {
            if (app != null) {
                app.close();
            }
        } finally {
            house.close();
            if (proxy != null) {
                proxy.close();
            }
        }
    }

    /** Prints {@code line} and appends it to the counts file (JSON lines), if one is configured. */
    public static synchronized void append(ObjectNode line) throws IOException {
        String text = new ObjectMapper().writeValueAsString(line);
        System.out.println();
        System.out.println("[flushless counts] " + text);
        String file = System.getProperty(COUNTS_PROPERTY);
        if (file != null && !file.isBlank()) {
            Path path = Path.of(file);
            if (path.getParent() != null) {
                Files.createDirectories(path.getParent());
            }
            Files.writeString(
                    path, text + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        }
    }

    /** Makes the housekeeping session invisible to pg_stat_statements; returns why statements cannot be counted, or null. */
    private static String prepareStatementStats(Connection house) {
        try (Statement s = house.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('shared_preload_libraries')")) {
                rs.next();
                if (!rs.getString(1).contains("pg_stat_statements")) {
                    return "pg_stat_statements is not preloaded on this server";
                }
            }
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            s.execute("SET pg_stat_statements.track = 'none'");
            return null;
        } catch (SQLException e) {
            return "pg_stat_statements unusable: " + e.getMessage();
        }
    }
}
