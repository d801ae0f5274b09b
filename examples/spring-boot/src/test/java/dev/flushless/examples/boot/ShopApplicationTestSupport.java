package dev.flushless.examples.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDriver;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;

/**
 * The shop application, started by {@code @SpringBootTest} with one test class's configuration, compared with
 * the same application on bare pgjdbc ({@code jdbc:postgresql://}, started once per JVM, {@link #bare()}): the
 * same workload ({@link Workload}) must leave the same rows, sequence values and Flyway history, and the
 * application must observe the same ids and exceptions (the optimistic-lock failure included); Actuator's health
 * must say the same; {@code /actuator/metrics} must list Flushless's meters beside HikariCP's.
 */
@SpringBootTest(
        webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = "management.endpoint.health.show-details=always")
@DirtiesContext(classMode = DirtiesContext.ClassMode.AFTER_CLASS)
abstract class ShopApplicationTestSupport {

    static final List<String> FLUSHLESS_METERS = List.of(
            "flushless.statements.issued",
            "flushless.statements.sent",
            "flushless.round.trips",
            "flushless.flushes.estimated",
            "flushless.flush");

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static Run bare;

    @Autowired
    ConfigurableApplicationContext context;

    @LocalServerPort
    int port;

    /** What one run of the workload showed. */
    record Run(
            List<String> observed,
            Map<String, List<List<String>>> database,
            JsonNode health,
            TreeSet<String> meters,
            Map<String, Double> counted) {}

    /** Registers {@code url} as spring.datasource.url, with the user it names (the URL swap; nothing else). */
    static void dataSource(DynamicPropertyRegistry registry, String url) {
        registry.add("spring.datasource.url", () -> url);
        String user = TestDatabases.user(url);
        if (user != null) {
            registry.add("spring.datasource.username", () -> user);
        }
    }

    /** The workload on the same application with bare pgjdbc, run once per JVM. */
    static synchronized Run bare() throws Exception {
        if (bare == null) {
            String url = TestDatabases.create("bare");
            List<String> args = new ArrayList<>(List.of(
                    "--server.port=0",
                    "--spring.datasource.url=" + url,
                    "--management.endpoint.health.show-details=always"));
            if (TestDatabases.user(url) != null) {
                args.add("--spring.datasource.username=" + TestDatabases.user(url));
            }
            try (ConfigurableApplicationContext bareContext =
                    new SpringApplicationBuilder(ShopApplication.class).run(args.toArray(String[]::new))) {
                HikariDataSource pool = (HikariDataSource) bareContext.getBean(DataSource.class);
                assertEquals("org.postgresql.Driver", pool.getDriverClassName());
                int barePort = Integer.parseInt(bareContext.getEnvironment().getProperty("local.server.port"));
                bare = run(bareContext, barePort, url);
            }
        }
        return bare;
    }

    /** Runs the workload on this test's application (database {@code pgjdbcUrl}) and compares it with bare pgjdbc. */
    Run assertSameAsBarePgjdbc(String pgjdbcUrl) throws Exception {
        Run expected = bare();
        assertFlushlessPool();
        Run actual = run(context, port, pgjdbcUrl);
        System.out.println("[" + getClass().getSimpleName() + "] Flushless counted " + actual.counted()
                + "; the application observed " + actual.observed());
        assertEquals(expected.observed(), actual.observed(), "what the application observed");
        assertTrue(
                actual.observed().stream()
                        .anyMatch(o -> o.startsWith(
                                "optimistic lock: org.springframework.orm.ObjectOptimisticLockingFailureException: ")),
                actual.observed()::toString);
        assertTrue(actual.observed().contains("constraint: 23514"), actual.observed()::toString);
        for (String part : expected.database().keySet()) {
            assertEquals(expected.database().get(part), actual.database().get(part), part);
        }
        assertEquals(
                "UP", actual.health().path("status").asText(), actual.health().toString());
        assertEquals(
                expected.health().path("components").path("db"),
                actual.health().path("components").path("db"));
        for (String meter : FLUSHLESS_METERS) {
            assertTrue(actual.meters().contains(meter), meter + " missing from /actuator/metrics: " + actual.meters());
        }
        assertTrue(
                actual.meters().contains("hikaricp.connections"),
                actual.meters().toString());
        double issued = actual.counted().get("flushless.statements.issued");
        double sent = actual.counted().get("flushless.statements.sent");
        assertTrue(issued > 0 && sent > 0 && sent <= issued, "issued " + issued + ", sent " + sent);
        return actual;
    }

    /** The application's pool opens Flushless connections through FlushlessDriver. */
    void assertFlushlessPool() throws Exception {
        HikariDataSource pool = assertInstanceOf(HikariDataSource.class, context.getBean(DataSource.class));
        assertEquals(FlushlessDriver.class.getName(), pool.getDriverClassName());
        try (Connection c = pool.getConnection()) {
            assertTrue(c.isWrapperFor(FlushlessConnection.class));
        }
    }

    private static Run run(ConfigurableApplicationContext context, int port, String pgjdbcUrl) throws Exception {
        Map<String, Double> before = counters(port);
        List<String> observed = Workload.run(context);
        Map<String, Double> after = counters(port);
        Map<String, Double> counted = new LinkedHashMap<>();
        after.forEach((name, value) -> counted.put(name, value - before.getOrDefault(name, 0.0)));
        TreeSet<String> meters = new TreeSet<>();
        get(port, "/actuator/metrics").path("names").forEach(n -> meters.add(n.asText()));
        return new Run(observed, DatabaseState.read(pgjdbcUrl), get(port, "/actuator/health"), meters, counted);
    }

    /** Flushless's statement counters from /actuator/metrics (empty on bare pgjdbc). */
    private static Map<String, Double> counters(int port) throws Exception {
        Map<String, Double> values = new LinkedHashMap<>();
        for (String name :
                List.of("flushless.statements.issued", "flushless.statements.sent", "flushless.round.trips")) {
            JsonNode meter = get(port, "/actuator/metrics/" + name);
            values.put(name, meter.path("measurements").path(0).path("value").asDouble(0));
        }
        return values;
    }

    private static JsonNode get(int port, String path) throws Exception {
        HttpResponse<String> response = HTTP.send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() == 404) {
            return JSON.createObjectNode();
        }
        assertEquals(200, response.statusCode(), path + ": " + response.body());
        return JSON.readTree(response.body());
    }
}
