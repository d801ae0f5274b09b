package dev.flushless.jdbc.yugabyte;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessReport;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * Against a real single-node YugabyteDB (Testcontainers): detection, the anti-join form chosen by
 * {@code flushless.onConflict=auto} on a release that does not batch ON CONFLICT (2024.1, the reference article's),
 * its counts and rows equal to bare pgjdbc's, and follower reads turned on and off with the read-only state.
 * Runs only where Docker is available; elsewhere every test is skipped with the reason printed. Set
 * {@code FLUSHLESS_YUGABYTE_IMAGE} to test another release.
 */
class YugabyteContainerTest {

    private static final String IMAGE =
            System.getenv().getOrDefault("FLUSHLESS_YUGABYTE_IMAGE", "yugabytedb/yugabyte:2024.1.3.0-b105");

    private static GenericContainer<?> yugabyte;
    /** Why the tests are skipped, or {@code null} when Docker is available. */
    private static String skipped;

    @BeforeAll
    static void start() {
        boolean docker;
        String why = "";
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            docker = false;
            why = " (" + e + ")";
        }
        if (!docker) {
            String reason = "YugabyteDB integration tests skipped: Docker is not available on this machine" + why
                    + "; they need Docker to start " + IMAGE + ".";
            System.out.println(reason);
            skipped = reason;
            return;
        }
        yugabyte = new GenericContainer<>(DockerImageName.parse(IMAGE))
                .withCommand("bin/yugabyted", "start", "--background=false")
                .withExposedPorts(5433)
                .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(3)));
        yugabyte.start();
    }

    @BeforeEach
    void needsDocker() {
        Assumptions.assumeTrue(skipped == null, skipped);
    }

    @AfterAll
    static void stop() {
        if (yugabyte != null) {
            yugabyte.stop();
        }
    }

    private static String url(String parameters) {
        return "jdbc:flushless:postgresql://" + yugabyte.getHost() + ":" + yugabyte.getMappedPort(5433) + "/yugabyte"
                + (parameters.isEmpty() ? "" : "?" + parameters);
    }

    private static Connection connect(String parameters) throws SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", "yugabyte");
        credentials.setProperty("password", "yugabyte");
        SQLException last = null;
        for (int attempt = 0; attempt < 60; attempt++) { // YSQL accepts connections a little after the port opens
            try {
                return DriverManager.getConnection(
                        parameters == null ? url("").replace("jdbc:flushless:", "jdbc:") : url(parameters),
                        credentials);
            } catch (SQLException e) {
                last = e;
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw last;
    }

    @Test
    void autoTakesTheAntiJoinFormAndGivesBarePgjdbcsCounts() throws Exception {
        List<String> results = new ArrayList<>();
        for (String variant : new String[] {null, "flushless.onConflict=auto"}) {
            String table = variant == null ? "aj_bare" : "aj_flushless";
            try (Connection c = connect(variant)) {
                try (Statement s = c.createStatement()) {
                    s.execute("DROP TABLE IF EXISTS " + table);
                    s.execute("CREATE TABLE " + table + " (k int PRIMARY KEY, code int UNIQUE, v text)");
                    s.execute("INSERT INTO " + table + " VALUES (1, 1, 'old'), (3, 3, 'old')");
                }
                PreparedStatement nothing = c.prepareStatement(
                        "INSERT INTO " + table + " (k, code, v) VALUES (?, ?, ?) ON CONFLICT (k) DO NOTHING");
                PreparedStatement update = c.prepareStatement("INSERT INTO " + table
                        + " (k, code, v) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v || '+' || "
                        + table + ".v");
                for (int k : new int[] {1, 2, 2, 3, 4, 5, 4}) {
                    nothing.setInt(1, k);
                    nothing.setInt(2, 100 + k);
                    nothing.setString(3, "n" + k);
                    nothing.addBatch();
                    update.setInt(1, k + 3);
                    update.setInt(2, 200 + k);
                    update.setString(3, "u" + k);
                    update.addBatch();
                }
                int[] nothingCounts = nothing.executeBatch();
                int[] updateCounts = update.executeBatch();
                results.add(java.util.Arrays.toString(nothingCounts) + java.util.Arrays.toString(updateCounts));
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT k, code, v FROM " + table + " ORDER BY k")) {
                    StringBuilder rows = new StringBuilder();
                    while (rs.next()) {
                        rows.append(rs.getInt(1))
                                .append('/')
                                .append(rs.getInt(2))
                                .append('/')
                                .append(rs.getString(3))
                                .append(' ');
                    }
                    results.add(rows.toString());
                }
                if (variant != null) {
                    FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
                    assertTrue(report.rewrites().containsKey("upsert-do-nothing-antijoin"), report.toString());
                    assertTrue(report.rewrites().containsKey("upsert-do-update-antijoin"), report.toString());
                }
            }
        }
        assertEquals(results.get(0), results.get(2), "counts");
        assertEquals(results.get(1), results.get(3), "rows");
    }

    @Test
    void followerReadsFollowTheReadOnlyState() throws Exception {
        try (Connection c = connect("flushless.followerReads=1500")) {
            assertEquals(List.of("off", "off"), settings(c));
            c.setReadOnly(true);
            assertEquals(List.of("on", "on"), settings(c));
            assertEquals("1500", show(c, "yb_follower_read_staleness_ms").replace("ms", ""));
            c.setReadOnly(false);
            assertEquals(List.of("off", "off"), settings(c));
            c.setAutoCommit(false);
            c.setReadOnly(true);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT count(*) FROM pg_class")) {
                assertTrue(rs.next());
            }
            c.commit();
            assertEquals(List.of("on", "on"), settings(c));
            c.commit();
        }
    }

    private static List<String> settings(Connection c) throws SQLException {
        return List.of(show(c, "yb_read_from_followers"), show(c, "default_transaction_read_only"));
    }

    private static String show(Connection c, String name) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SHOW " + name)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Test
    void theServerIsRecognised() throws Exception {
        try (Connection c = connect("")) {
            ServerFacts facts = ServerFacts.of((Connection) c.unwrap(org.postgresql.PGConnection.class));
            assertTrue(facts.yugabyte(), facts.toString());
            assertArrayEquals(
                    new boolean[] {true},
                    new boolean[] {facts.autoAntiJoin((Connection) c.unwrap(org.postgresql.PGConnection.class))},
                    "2024.1 does not batch ON CONFLICT");
        }
    }
}
