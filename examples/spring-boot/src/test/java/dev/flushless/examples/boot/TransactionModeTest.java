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
        // the example database is on this host, where transaction mode by default runs writes as sent
        // (flushless.bufferMinRoundTripMicros): buffer anyway, to show it
        dataSource(
                registry,
                TestDatabases.flushless(DATABASE, "flushless.mode=transaction&flushless.bufferMinRoundTripMicros=0"));
    }

    @Test
    void transactionModeBehavesLikeBarePgjdbc() throws Exception {
        Run run = assertSameAsBarePgjdbc(DATABASE);
        assertTrue(
                run.counted().get("flushless.statements.sent") < run.counted().get("flushless.statements.issued"),
                run.counted().toString());
    }
}
