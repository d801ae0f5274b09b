package dev.flushless.examples.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.flushless.jdbc.FlushlessDriver;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SimpleDriverDataSource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Flyway with a data source of its own ({@code spring.flyway.url=jdbc:flushless:...}, {@code spring.flyway.user}):
 * Boot builds it with FlushlessDriver (without the integration: "Driver has not been set"); the migration leaves
 * the same history and the application behaves as on bare pgjdbc.
 */
class FlywayUrlTest extends ShopApplicationTestSupport {

    static final String DATABASE = TestDatabases.create("flyway_url");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        dataSource(registry, TestDatabases.flushless(DATABASE, ""));
        registry.add("spring.flyway.url", () -> TestDatabases.flushless(DATABASE, "flushless.mode=transaction"));
        String user = TestDatabases.user(DATABASE);
        if (user != null) {
            registry.add("spring.flyway.user", () -> user);
        }
    }

    @Test
    void flywayByItsOwnUrlBehavesLikeBarePgjdbc() throws Exception {
        SimpleDriverDataSource migrations = assertInstanceOf(
                SimpleDriverDataSource.class,
                context.getBean(Flyway.class).getConfiguration().getDataSource());
        assertInstanceOf(FlushlessDriver.class, migrations.getDriver());
        assertEquals(TestDatabases.flushless(DATABASE, "flushless.mode=transaction"), migrations.getUrl());
        assertSameAsBarePgjdbc(DATABASE);
    }
}
