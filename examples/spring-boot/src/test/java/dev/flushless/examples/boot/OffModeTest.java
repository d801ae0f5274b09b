package dev.flushless.examples.boot;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code flushless.mode=off}: the driver only wraps; everything as bare pgjdbc. */
class OffModeTest extends ShopApplicationTestSupport {

    static final String DATABASE = TestDatabases.create("off");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        dataSource(registry, TestDatabases.flushless(DATABASE, "flushless.mode=off"));
    }

    @Test
    void offModeBehavesLikeBarePgjdbc() throws Exception {
        assertSameAsBarePgjdbc(DATABASE);
    }
}
