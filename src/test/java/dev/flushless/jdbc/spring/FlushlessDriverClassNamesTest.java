package dev.flushless.jdbc.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceProperties;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.env.SystemEnvironmentPropertySource;

/**
 * Which driver class Boot's JDBC consumers see after {@link FlushlessEnvironmentPostProcessor}: FlushlessDriver
 * for {@code jdbc:flushless:} URLs whose driver class is missing or the delegate's, the application's own
 * choice otherwise, nothing for other URLs. Boot's own {@link DataSourceProperties} is bound as Boot binds it.
 */
class FlushlessDriverClassNamesTest {

    private static final String FLUSHLESS = "dev.flushless.jdbc.FlushlessDriver";
    private static final String URL = "jdbc:flushless:postgresql://db.example.com:5432/shop";

    private static StandardEnvironment environment(String... keyValues) {
        Map<String, Object> map = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            map.put(keyValues[i], keyValues[i + 1]);
        }
        StandardEnvironment environment = new StandardEnvironment();
        environment.getPropertySources().addFirst(new MapPropertySource("application", map));
        new FlushlessEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        return environment;
    }

    private static String bound(StandardEnvironment environment, String property) {
        return Binder.get(environment).bind(property, String.class).orElse(null);
    }

    /** What DataSourceAutoConfiguration hands HikariCP: DataSourceProperties.determineDriverClassName(). */
    private static String dataSourceDriver(StandardEnvironment environment) throws Exception {
        DataSourceProperties properties = Binder.get(environment)
                .bind("spring.datasource", DataSourceProperties.class)
                .orElseGet(DataSourceProperties::new);
        properties.afterPropertiesSet();
        return properties.determineDriverClassName();
    }

    @Test
    void urlAloneGetsTheFlushlessDriver() throws Exception {
        StandardEnvironment environment = environment("spring.datasource.url", URL + "?flushless.mode=transaction");
        assertEquals(FLUSHLESS, bound(environment, "spring.datasource.driver-class-name"));
        assertEquals(FLUSHLESS, dataSourceDriver(environment));
        assertEquals(FLUSHLESS, environment.getProperty("spring.datasource.driver-class-name"));
    }

    @Test
    void withoutTheIntegrationBootCannotDetermineTheDriver() {
        StandardEnvironment environment = new StandardEnvironment();
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource("application", Map.of("spring.datasource.url", URL)));
        DataSourceProperties properties = Binder.get(environment)
                .bind("spring.datasource", DataSourceProperties.class)
                .get();
        Exception e = assertThrows(Exception.class, () -> {
            properties.afterPropertiesSet();
            properties.determineDriverClassName();
        });
        assertTrue(e.getMessage().contains("Failed to determine a suitable driver class"), e.getMessage());
    }

    @Test
    void theDelegatesDriverIsReplaced() throws Exception {
        for (String delegate :
                new String[] {"org.postgresql.Driver", "com.yugabyte.Driver", " org.postgresql.Driver "}) {
            StandardEnvironment environment =
                    environment("spring.datasource.url", URL, "spring.datasource.driver-class-name", delegate);
            assertEquals(FLUSHLESS, dataSourceDriver(environment), delegate);
        }
        // Relaxed names: YAML's camel case, the environment variables of a container.
        assertEquals(
                FLUSHLESS,
                dataSourceDriver(environment(
                        "spring.datasource.url", URL, "spring.datasource.driverClassName", "org.postgresql.Driver")));
        StandardEnvironment fromVariables = new StandardEnvironment();
        fromVariables
                .getPropertySources()
                .addFirst(new SystemEnvironmentPropertySource(
                        "variables",
                        Map.of(
                                "SPRING_DATASOURCE_URL",
                                URL,
                                "SPRING_DATASOURCE_DRIVERCLASSNAME",
                                "org.postgresql.Driver")));
        new FlushlessEnvironmentPostProcessor().postProcessEnvironment(fromVariables, new SpringApplication());
        assertEquals(FLUSHLESS, dataSourceDriver(fromVariables));
    }

    @Test
    void anotherDriverTheApplicationChoseIsKept() {
        StandardEnvironment environment = environment(
                "spring.datasource.url", URL, "spring.datasource.driver-class-name", "com.example.TracingDriver");
        assertEquals("com.example.TracingDriver", bound(environment, "spring.datasource.driver-class-name"));
        StandardEnvironment flushless =
                environment("spring.datasource.url", URL, "spring.datasource.driver-class-name", FLUSHLESS);
        assertEquals(FLUSHLESS, bound(flushless, "spring.datasource.driver-class-name"));
    }

    @Test
    void otherUrlsAreLeftAlone() throws Exception {
        StandardEnvironment environment = environment(
                "spring.datasource.url", "jdbc:postgresql://db/shop", "spring.flyway.url", "jdbc:postgresql://db/shop");
        assertNull(bound(environment, "spring.datasource.driver-class-name"));
        assertNull(bound(environment, "spring.flyway.driver-class-name"));
        assertEquals("org.postgresql.Driver", dataSourceDriver(environment));
        assertNull(bound(
                environment(
                        "spring.datasource.url",
                        "jdbc:postgresql://db/shop",
                        "spring.datasource.driver-class-name",
                        "org.postgresql.Driver"),
                "spring.flyway.driver-class-name"));
        assertNull(bound(environment(), "spring.datasource.driver-class-name"));
    }

    @Test
    void placeholdersAreResolved() throws Exception {
        assertEquals(FLUSHLESS, dataSourceDriver(environment("spring.datasource.url", "${SHOP_URL}", "SHOP_URL", URL)));
        assertEquals(
                "org.postgresql.Driver",
                dataSourceDriver(
                        environment("spring.datasource.url", "${SHOP_URL}", "SHOP_URL", "jdbc:postgresql://db/shop")));
    }

    @Test
    void flywayAndLiquibaseUrls() {
        StandardEnvironment environment = environment(
                "spring.datasource.url",
                "jdbc:postgresql://db/shop",
                "spring.flyway.url",
                URL,
                "spring.liquibase.url",
                URL,
                "spring.liquibase.driver-class-name",
                "org.postgresql.Driver");
        assertEquals(FLUSHLESS, bound(environment, "spring.flyway.driver-class-name"));
        assertEquals(FLUSHLESS, bound(environment, "spring.liquibase.driver-class-name"));
        assertNull(bound(environment, "spring.datasource.driver-class-name"));
        // Without a URL of their own they use the application's data source; a delegate's driver class named for
        // them (applied when spring.flyway.user is set) is replaced too, a missing one stays missing.
        StandardEnvironment inherited =
                environment("spring.datasource.url", URL, "spring.flyway.driver-class-name", "org.postgresql.Driver");
        assertEquals(FLUSHLESS, bound(inherited, "spring.flyway.driver-class-name"));
        assertNull(bound(inherited, "spring.liquibase.driver-class-name"));
    }

    @Test
    void poolProperties() {
        // A pool bound to its own URL after Boot built it from spring.datasource.url.
        StandardEnvironment hikari = environment(
                "spring.datasource.url", "jdbc:postgresql://db/shop", "spring.datasource.hikari.jdbc-url", URL);
        assertEquals(FLUSHLESS, bound(hikari, "spring.datasource.hikari.driver-class-name"));
        assertNull(bound(hikari, "spring.datasource.driver-class-name"));
        StandardEnvironment dbcp2 = environment(
                "spring.datasource.url", URL, "spring.datasource.dbcp2.driver-class-name", "org.postgresql.Driver");
        assertEquals(FLUSHLESS, bound(dbcp2, "spring.datasource.dbcp2.driver-class-name"));
        assertNull(bound(dbcp2, "spring.datasource.tomcat.driver-class-name"));
        assertNull(bound(dbcp2, "spring.datasource.hikari.driver-class-name"));
        // HikariCP refuses a driver class beside a data source class.
        StandardEnvironment dataSourceClass = environment(
                "spring.datasource.url",
                URL,
                "spring.datasource.hikari.jdbc-url",
                URL,
                "spring.datasource.hikari.data-source-class-name",
                "dev.flushless.jdbc.FlushlessDataSource");
        assertNull(bound(dataSourceClass, "spring.datasource.hikari.driver-class-name"));
    }

    @Test
    void urlsAddedAfterStartUpAreSeen() throws Exception {
        // A test's @DynamicPropertySource adds its source when the context is prepared, after the
        // environment post-processors ran.
        StandardEnvironment environment = environment();
        environment
                .getPropertySources()
                .addFirst(new MapPropertySource("dynamic", Map.of("spring.datasource.url", URL)));
        assertEquals(FLUSHLESS, dataSourceDriver(environment));
    }

    @Test
    void addedOnce() {
        StandardEnvironment environment = environment("spring.datasource.url", URL);
        new FlushlessEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        new LegacyFlushlessEnvironmentPostProcessor().postProcessEnvironment(environment, new SpringApplication());
        assertEquals(
                1,
                environment.getPropertySources().stream()
                        .filter(s -> s.getName().equals(FlushlessDriverClassNames.NAME))
                        .count());
        // Boot 4 (this test's classpath) loads both spring.factories keys: the legacy one stands aside.
        StandardEnvironment legacyOnly = new StandardEnvironment();
        new LegacyFlushlessEnvironmentPostProcessor().postProcessEnvironment(legacyOnly, new SpringApplication());
        assertTrue(!legacyOnly.getPropertySources().contains(FlushlessDriverClassNames.NAME));
    }
}
