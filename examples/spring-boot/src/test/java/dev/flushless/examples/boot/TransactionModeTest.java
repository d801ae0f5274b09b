package dev.flushless.examples.boot;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** {@code flushless.mode=transaction} in the URL: each order transaction in one round trip, same results. */
class TransactionModeTest extends ShopApplicationTestSupport {

    static final String DATABASE = TestDatabases.create("transaction");

    @DynamicPropertySource
    static void properties(DynamicPropertyRegistry registry) {
        dataSource(registry, TestDatabases.flushless(DATABASE, "flushless.mode=transaction"));
    }

    @Test
    void transactionModeBehavesLikeBarePgjdbc() throws Exception {
        Run run = assertSameAsBarePgjdbc(DATABASE);
        assertTrue(
                run.counted().get("flushless.statements.sent") < run.counted().get("flushless.statements.issued"),
                run.counted().toString());
    }
}
