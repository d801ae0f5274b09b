package dev.flushless.examples.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The URL swap and nothing else: {@code spring.datasource.url=jdbc:flushless:postgresql://...} (default
 * {@code flushless.mode=batch}), no driver class named anywhere. Same rows, sequences, Flyway history, ids and
 * optimistic-lock failure as bare pgjdbc, in fewer statements.
 */
class BatchModeUrlOnlyTest extends ShopApplicationTestSupport {

    static final String DATABASE = TestDatabases.create("batch");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        dataSource(registry, TestDatabases.flushless(DATABASE, ""));
    }

    @Test
    void theUrlSwapAloneBehavesLikeBarePgjdbc() throws Exception {
        List<String> named = new ArrayList<>();
        for (PropertySource<?> source : context.getEnvironment().getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    if (name.toLowerCase().replace("-", "").contains("driverclassname")) {
                        named.add(source.getName() + ": " + name);
                    }
                }
            }
        }
        assertTrue(named.isEmpty(), "the configuration names a driver class: " + named);
        Run run = assertSameAsBarePgjdbc(DATABASE);
        assertTrue(
                run.counted().get("flushless.statements.sent") < run.counted().get("flushless.statements.issued"),
                run.counted().toString());
    }
}
