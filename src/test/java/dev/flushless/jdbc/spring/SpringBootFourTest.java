package dev.flushless.jdbc.spring;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.metrics.FlushlessMetrics;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.Banner;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ApplicationContextInitializer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;

/**
 * A Spring Boot 4 application (this project compiles against Boot 4.1; examples/spring-boot runs Boot 3.5):
 * Boot's own DataSource auto-configuration with only a {@code jdbc:flushless:} URL, or with the delegate's
 * driver class named too, gets a HikariCP pool of Flushless connections (through spring.factories' Boot 4 key);
 * the metrics auto-configuration (through AutoConfiguration.imports) adds a {@link FlushlessMetrics} bean when a
 * MeterRegistry bean exists, and not beside the application's own.
 */
@ExtendWith(PostgresExtension.class)
class SpringBootFourTest {

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {}

    /** Boot would otherwise reconfigure java.util.logging for the whole test JVM. */
    @BeforeAll
    static void noLoggingSystem() {
        System.setProperty(LoggingSystem.SYSTEM_PROPERTY, LoggingSystem.NONE);
    }

    @AfterAll
    static void loggingSystemBack() {
        System.clearProperty(LoggingSystem.SYSTEM_PROPERTY);
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class AppWithRegistry {
        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class AppWithOwnMetrics {
        static final FlushlessMetrics OWN = new FlushlessMetrics(FlushlessStats.GLOBAL, Tags.of("app", "shop"));

        @Bean
        MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }

        @Bean
        FlushlessMetrics ownFlushlessMetrics() {
            return OWN;
        }
    }

    /** Adds a property source first when the context is prepared (a lambda would lack the context type Boot reads). */
    private record LaterSource(String url) implements ApplicationContextInitializer<ConfigurableApplicationContext> {
        @Override
        public void initialize(ConfigurableApplicationContext context) {
            context.getEnvironment()
                    .getPropertySources()
                    .addFirst(new MapPropertySource(
                            "later",
                            Map.of(
                                    "spring.datasource.url",
                                    url,
                                    "spring.datasource.driver-class-name",
                                    "org.postgresql.Driver")));
        }
    }

    private static ConfigurableApplicationContext run(Class<?> app, TestDatabase db, String... properties) {
        return builder(app, db, properties).run();
    }

    private static SpringApplicationBuilder builder(Class<?> app, TestDatabase db, String... properties) {
        List<String> all = new ArrayList<>(List.of(properties));
        String user = db.credentials().getProperty("user");
        if (user != null) {
            all.add("spring.datasource.username=" + user);
        }
        String password = db.credentials().getProperty("password");
        if (password != null) {
            all.add("spring.datasource.password=" + password);
        }
        return new SpringApplicationBuilder(app)
                .web(WebApplicationType.NONE)
                .bannerMode(Banner.Mode.OFF)
                .logStartupInfo(false)
                .properties(all.toArray(String[]::new));
    }

    private static void assertFlushlessPool(ConfigurableApplicationContext context) throws Exception {
        HikariDataSource pool = assertInstanceOf(HikariDataSource.class, context.getBean(DataSource.class));
        assertEquals(FlushlessDriver.class.getName(), pool.getDriverClassName());
        try (Connection c = pool.getConnection();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT 42")) {
            assertTrue(c.isWrapperFor(FlushlessConnection.class));
            assertTrue(rs.next());
            assertEquals(42, rs.getInt(1));
        }
        assertEquals(
                1,
                context.getEnvironment().getPropertySources().stream()
                        .filter(s -> s.getName().equals(FlushlessDriverClassNames.NAME))
                        .count());
    }

    @Test
    void theUrlAlone(TestDatabase db) throws Exception {
        try (ConfigurableApplicationContext context =
                run(App.class, db, "spring.datasource.url=" + db.flushlessUrl())) {
            assertFlushlessPool(context);
            assertTrue(
                    context.getBeansOfType(FlushlessMetrics.class).isEmpty(), "no MeterRegistry, no FlushlessMetrics");
        }
    }

    @Test
    void theDelegatesDriverClassNamed(TestDatabase db) throws Exception {
        try (ConfigurableApplicationContext context = run(
                App.class,
                db,
                "spring.datasource.url=" + db.flushlessUrl("flushless.mode=transaction"),
                "spring.datasource.driver-class-name=org.postgresql.Driver")) {
            assertFlushlessPool(context);
        }
    }

    @Test
    void aDelegatesDriverClassFromASourceAddedLaterIsReplacedToo(TestDatabase db) throws Exception {
        // As a test's @DynamicPropertySource or a config server's source: added first, after the environment
        // post-processors ran.
        String url = db.flushlessUrl();
        try (ConfigurableApplicationContext context =
                builder(App.class, db).initializers(new LaterSource(url)).run()) {
            assertFlushlessPool(context);
        }
    }

    @Test
    void metricsBindThemselvesWhenARegistryExists(TestDatabase db) throws Exception {
        try (ConfigurableApplicationContext context =
                run(AppWithRegistry.class, db, "spring.datasource.url=" + db.flushlessUrl())) {
            assertEquals(1, context.getBeansOfType(FlushlessMetrics.class).size());
            assertTrue(context.getBeansOfType(FlushlessMetricsAutoConfiguration.class)
                            .size()
                    == 1);
        }
        try (ConfigurableApplicationContext context =
                run(AppWithOwnMetrics.class, db, "spring.datasource.url=" + db.flushlessUrl())) {
            assertSame(AppWithOwnMetrics.OWN, context.getBean(FlushlessMetrics.class));
        }
    }
}
