package dev.flushless.jdbc.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/**
 * The flush model against the figures of the reference article (YugabyteDB 2024.1, EXPLAIN (ANALYZE, DIST),
 * "Storage Flush Requests").
 */
class YugabyteFlushModelTest {

    private final YugabyteFlushModel article = YugabyteFlushModel.UNBATCHED_ON_CONFLICT;

    @Test
    void aHundredThousandRowInsertCosts33Flushes() {
        assertEquals(33, article.writeStatement(100_000));
    }

    @Test
    void theSameRowsAsInsertOnConflictCostOnePerRow() {
        assertEquals(100_000, article.onConflictStatement(100_000));
    }

    @Test
    void theAntiJoinFormCostsAbout33() {
        // read of the existing keys first (nothing pending: no flush), then 100,000 buffered writes
        long antiJoin = article.read(0) + article.writeStatement(100_000);
        assertEquals(33, antiJoin);
    }

    @Test
    void everyWriteStatementWaitsForAtLeastOneFlush() {
        assertEquals(1, article.writeStatement(0));
        assertEquals(1, article.writeStatement(1));
        assertEquals(1, article.writeStatement(3072));
        assertEquals(2, article.writeStatement(3073));
        assertEquals(1, article.onConflictStatement(0));
        assertEquals(1, article.onConflictStatement(1));
    }

    @Test
    void releasesThatBatchOnConflictFlushAsAPlainInsert() {
        YugabyteFlushModel batched = YugabyteFlushModel.forServer(true);
        assertEquals(33, batched.onConflictStatement(100_000));
        assertEquals(YugabyteFlushModel.UNBATCHED_ON_CONFLICT, YugabyteFlushModel.forServer(false));
    }

    @Test
    void commitAndReadsFlush() {
        assertEquals(1, article.commit());
        assertEquals(1, article.read(5));
        assertEquals(0, article.read(0));
    }

    @Test
    void aSmallerBatchSizeFlushesMoreOften() {
        YugabyteFlushModel small = new YugabyteFlushModel(1000, false);
        assertEquals(100, small.writeStatement(100_000));
        assertThrows(IllegalArgumentException.class, () -> new YugabyteFlushModel(0, false));
    }

    @Test
    void statsUseTheModelForCoalescedStatements() {
        FlushlessStats stats = FlushlessStats.forConnection();
        // without per-statement rows: max(statements, ceil(rows / 3072)) = max(3, 4)
        stats.rewrite("insert-unnest", 10_000, 3, 3, 1, 0);
        stats.rewrite("upsert-do-nothing", 1000, 1, 1, 1, 0, article.onConflictStatement(1000));
        stats.executed(true);
        stats.fallback(dev.flushless.jdbc.FallbackReason.SINGLE_ROW.get(), 5);
        FlushlessReport report = stats.report();
        assertEquals(10_000 + 1000 + 1 + 5, report.estimatedFlushesBefore());
        assertEquals(4 + 1000 + 1 + 5, report.estimatedFlushesAfter());
    }
}
