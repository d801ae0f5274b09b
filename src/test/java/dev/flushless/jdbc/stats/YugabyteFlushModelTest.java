package dev.flushless.jdbc.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.stats.YugabyteFlushModel.Isolation;
import dev.flushless.jdbc.stats.YugabyteFlushModel.Wait;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The flush model against the figures of the reference article (YugabyteDB 2024.1, EXPLAIN (ANALYZE, DIST),
 * "Storage Flush Requests"), and on each release and setting since: isolation, ON CONFLICT batching, write
 * pipelining (docs/semantics.md, "Estimated YugabyteDB flushes", has the table and its sources).
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

    // ---- releases: what each does by default ----

    @Test
    void releasesAreReadFromTheServerVersion() {
        YugabyteRelease r = YugabyteRelease.parse("11.2-YB-2024.2.6.2-b0");
        assertEquals(new YugabyteRelease(2024, 2, 6, 2, 0, 11), r);
        assertEquals("2024.2", r.series());
        assertTrue(r.stable());
        YugabyteRelease preview = YugabyteRelease.parse("15.12-YB-2.31.0.0-b280");
        assertEquals(15, preview.postgresMajor());
        assertTrue(preview.preview());
        assertEquals("2.31.0.0-b280", preview.toString());
        assertNull(YugabyteRelease.parse("16.4 (Debian 16.4-1)"));
        assertNull(YugabyteRelease.parse(null));
        assertEquals(0, YugabyteRelease.of("2025.2.8.0").compareTo(YugabyteRelease.parse("15.12-YB-2025.2.8.0")));
        assertTrue(YugabyteRelease.of("2025.1.0.0").compareTo(YugabyteRelease.of("2024.2.6.2")) > 0);
    }

    /** One row per release of the docs table: ON CONFLICT setting, batched by default, RC GA and default, pipelining. */
    @Test
    void eachReleaseHasItsDefaults() {
        row("2024.1.3.0", false, false, false, false, false, false);
        row("2024.2.0.0", false, false, false, false, false, false);
        row("2024.2.6.2", true, false, true, false, false, false);
        row("2.25.0.0", true, false, true, false, false, false);
        row("2025.1.0.0", true, true, true, false, false, false);
        row("2025.2.0.0", true, true, true, true, false, false);
        row("2025.2.8.0", true, true, true, true, true, false);
        row("2026.1.0.0", true, true, true, true, true, false);
        row("2.31.0.0-b279", true, true, true, true, true, false);
        row("2.31.0.0-b280", true, true, true, true, true, true);
        row("2.31.0.0", true, true, true, true, true, true);
        row("2026.2.0.0", true, true, true, true, true, true);
        assertFalse(YugabyteRelease.of("2026.2.0.0").writePipeliningDefaultConfirmed(), "assumed, not confirmed");
        assertTrue(YugabyteRelease.of("2026.1.0.0").writePipeliningDefaultConfirmed());
    }

    private static void row(
            String release,
            boolean hasOnConflictBatching,
            boolean onConflictBatchedByDefault,
            boolean readCommittedGa,
            boolean readCommittedByDefault,
            boolean hasWritePipelining,
            boolean writePipeliningByDefault) {
        YugabyteRelease r = YugabyteRelease.of(release);
        List<Boolean> expected = List.of(
                hasOnConflictBatching,
                onConflictBatchedByDefault,
                readCommittedGa,
                readCommittedByDefault,
                hasWritePipelining,
                writePipeliningByDefault);
        List<Boolean> actual = List.of(
                r.hasOnConflictBatching(),
                r.onConflictBatchedByDefault(),
                r.readCommittedGa(),
                r.readCommittedByDefault(),
                r.hasWritePipelining(),
                r.writePipeliningByDefault());
        assertEquals(expected, actual, release);
    }

    @Test
    void releaseDefaultsGiveEachReleasesModel() {
        YugabyteFlushModel y2024 = YugabyteFlushModel.releaseDefaults(YugabyteRelease.of("2024.2.6.2"));
        assertEquals(100_000, y2024.onConflictStatement(100_000), "2024.2: batching exists but is off");
        assertEquals(Isolation.SNAPSHOT, y2024.isolation());
        assertFalse(y2024.writePipelining());
        YugabyteFlushModel y2025 = YugabyteFlushModel.releaseDefaults(YugabyteRelease.of("2025.2.8.0"));
        assertEquals(33, y2025.onConflictStatement(100_000), "2025.1 on: batched by default");
        assertEquals(Isolation.READ_COMMITTED, y2025.isolation(), "2025.2: Read Committed on new universes");
        assertFalse(y2025.writePipelining(), "2025.2: pipelining is early access, off by default");
        YugabyteFlushModel main = YugabyteFlushModel.releaseDefaults(YugabyteRelease.of("2.31.0.0-b280"));
        assertTrue(main.writePipelining(), "on by default on main since July 2026");
    }

    // ---- settings: isolation, ON CONFLICT batching, write pipelining ----

    @Test
    void isolationChangesNoCount() {
        for (Isolation isolation : Isolation.values()) {
            YugabyteFlushModel m = YugabyteFlushModel.of(YugabyteRelease.of("2025.2.8.0"), isolation, true, false);
            assertEquals(1, m.writeStatement(1), isolation.toString());
            assertEquals(33, m.writeStatement(100_000), isolation.toString());
            assertEquals(33, m.onConflictStatement(100_000), isolation.toString());
            assertEquals(Wait.CONSENSUS, m.statementFlush(true), isolation.toString());
        }
        assertEquals(Isolation.READ_COMMITTED, Isolation.of("READ COMMITTED"));
        assertEquals(Isolation.READ_COMMITTED, Isolation.of("read uncommitted"));
        assertEquals(Isolation.SNAPSHOT, Isolation.of("repeatable read"));
        assertEquals(Isolation.SERIALIZABLE, Isolation.of("serializable"));
        assertEquals(Isolation.UNKNOWN, Isolation.of(null));
    }

    @Test
    void onConflictBatchingIsTheServersSetting() {
        YugabyteRelease y2025 = YugabyteRelease.of("2025.2.8.0");
        assertEquals(
                1000,
                YugabyteFlushModel.of(y2025, Isolation.SNAPSHOT, false, false).onConflictStatement(1000));
        assertEquals(
                1, YugabyteFlushModel.of(y2025, Isolation.SNAPSHOT, true, false).onConflictStatement(1000));
    }

    @Test
    void withoutPipeliningEveryFlushWaitsForConsensus() {
        YugabyteFlushModel m =
                YugabyteFlushModel.of(YugabyteRelease.of("2025.2.8.0"), Isolation.READ_COMMITTED, true, false);
        assertEquals(Wait.CONSENSUS, m.statementFlush(true));
        assertEquals(Wait.CONSENSUS, m.statementFlush(false));
        assertEquals(Wait.CONSENSUS, m.commitFlush());
        assertEquals(33, m.consensusFlushes(33, 1, true));
        assertEquals(33, m.consensusFlushes(33, 1, false));
    }

    @Test
    void withPipeliningTheCommitCarriesTheConsensusWait() {
        YugabyteFlushModel m =
                YugabyteFlushModel.of(YugabyteRelease.of("2.31.0.0"), Isolation.READ_COMMITTED, true, true);
        assertEquals(Wait.LEADER, m.statementFlush(true), "inside an explicit transaction: the leaders only");
        assertEquals(Wait.CONSENSUS, m.statementFlush(false), "autocommit: the statement's own commit waits");
        assertEquals(Wait.CONSENSUS, m.commitFlush());
        assertEquals(0, m.consensusFlushes(33, 1, true));
        assertEquals(1, m.consensusFlushes(33, 1, false), "33 flushes, one statement: one commit");
        assertEquals(3, m.consensusFlushes(3, 3, false));
        assertEquals(33, m.writeStatement(100_000), "pipelining changes what flushes wait for, not how many");
        assertEquals(m, m.withWritePipelining(false).withWritePipelining(true));
    }

    @Test
    void theModelSaysWhatItAssumes() {
        String text = String.join(
                "\n",
                YugabyteFlushModel.of(
                                YugabyteRelease.parse("15.12-YB-2025.2.8.0-b0"), Isolation.READ_COMMITTED, true, false)
                        .describe());
        assertTrue(text.contains("YugabyteDB 2025.2.8.0 (series 2025.2, PostgreSQL 15 based)"), text);
        assertTrue(text.contains("read committed (effective)"), text);
        assertTrue(text.contains("batched by the server"), text);
        assertTrue(text.contains("off: every flush waits for consensus"), text);
        String pg = String.join("\n", unbatched().describe());
        assertTrue(pg.contains("not YugabyteDB"), pg);
        assertTrue(pg.contains("flushes once per row"), pg);
    }

    private static YugabyteFlushModel unbatched() {
        return YugabyteFlushModel.UNBATCHED_ON_CONFLICT;
    }

    @Test
    void statsSplitConsensusFlushesWithPipelining() {
        boolean[] explicit = {false};
        FlushlessStats stats = FlushlessStats.forConnection();
        YugabyteFlushModel model =
                YugabyteFlushModel.of(YugabyteRelease.of("2.31.0.0"), Isolation.READ_COMMITTED, true, true);
        stats.attach(new FlushlessStats.FlushContext() {
            @Override
            public YugabyteFlushModel model() {
                return model;
            }

            @Override
            public boolean writePipelining() {
                return true;
            }

            @Override
            public boolean explicitTransaction() {
                return explicit[0];
            }
        });
        // autocommit: a 10,000-row batch as 3 statements, 4 flushes: 3 wait for consensus (one commit each)
        stats.rewrite("insert-unnest", 10_000, 3, 3, 1, 0, 4);
        stats.executed(true);
        explicit[0] = true;
        // explicit transaction: nothing waits for consensus but the COMMIT (not counted)
        stats.rewrite("insert-unnest", 1000, 1, 1, 1, 0, 1);
        stats.executed(true);
        stats.fallback(dev.flushless.jdbc.FallbackReason.SINGLE_ROW.get(), 5);
        FlushlessReport report = stats.report();
        assertEquals(10_000 + 1 + 1000 + 1 + 5, report.estimatedFlushesBefore());
        assertEquals(4 + 1 + 1 + 1 + 5, report.estimatedFlushesAfter());
        assertEquals(10_000 + 1, report.estimatedConsensusFlushesBefore());
        assertEquals(3 + 1, report.estimatedConsensusFlushesAfter());
        assertTrue(report.flushModel().contains("write pipelining: on"), report.flushModel());
        assertTrue(report.toString().contains("consensus=10001->4"), report.toString());
    }

    @Test
    void statsWithoutPipeliningCountEveryFlushAsConsensus() {
        FlushlessStats stats = FlushlessStats.forConnection();
        stats.rewrite("insert-unnest", 10_000, 3, 3, 1, 0, 4);
        stats.executed(true);
        FlushlessReport report = stats.report();
        assertEquals(report.estimatedFlushesBefore(), report.estimatedConsensusFlushesBefore());
        assertEquals(report.estimatedFlushesAfter(), report.estimatedConsensusFlushesAfter());
        assertNull(report.flushModel(), "not attached to a server");
    }
}
