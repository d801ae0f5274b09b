package dev.flushless.examples.boot;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

/**
 * An application that already named pgjdbc's driver ({@code spring.datasource.driver-class-name=org.postgresql.Driver})
 * and swaps only the URL: HikariCP gets FlushlessDriver (org.postgresql.Driver does not accept the URL).
 */
@TestPropertySource(properties = "spring.datasource.driver-class-name=org.postgresql.Driver")
class DelegateDriverClassNameTest extends ShopApplicationTestSupport {

    static final String DATABASE = TestDatabases.create("delegate_driver");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        dataSource(registry, TestDatabases.flushless(DATABASE, ""));
    }

    @Test
    void pgjdbcsDriverClassNamedBehavesLikeBarePgjdbc() throws Exception {
        assertSameAsBarePgjdbc(DATABASE);
    }
}
