package dev.flushless.jdbc.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.metrics.FlushlessMetrics;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The report per connection and driver-wide, the Micrometer meters, and Micrometer staying optional. */
@ExtendWith(PostgresExtension.class)
class ReportTest {

    @Test
    void connectionReportCountsStatementsRewritesAndFallbacks(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE reported (id int PRIMARY KEY, v text)");
        long globalBefore = FlushlessDriver.report().statementsIssued();
        try (Connection c = db.flushless("batch")) {
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            FlushlessStats stats = c.unwrap(FlushlessConnection.class).flushlessStats();
            new FlushlessMetrics(stats, Tags.of("pool", "test")).bindTo(registry);
            c.setAutoCommit(false);
            PreparedStatement insert = c.prepareStatement("INSERT INTO reported VALUES (?, ?)");
            for (int i = 0; i < 100; i++) {
                insert.setInt(1, i);
                insert.setString(2, "v");
                insert.addBatch();
            }
            insert.executeBatch();
            try (Statement s = c.createStatement()) {
                s.executeQuery("SELECT 1").close();
                s.executeUpdate("UPDATE reported SET v = 'w' WHERE id = 1");
            }
            PreparedStatement viaView = c.prepareStatement("INSERT INTO reported SELECT ?, 'x'");
            for (int i = 100; i < 103; i++) {
                viaView.setInt(1, i);
                viaView.addBatch();
            }
            viaView.executeBatch();
            c.commit();

            FlushlessReport report = c.unwrap(FlushlessConnection.class).report();
            assertEquals(100 + 1 + 1 + 3, report.statementsIssued(), report.toString());
            assertEquals(
                    1 + 1 + 1 + 1 + 3,
                    report.statementsSent(),
                    "1 coalesced + its guard savepoint (left open: OpenGuards) + 2 + 3");
            assertEquals(1 + 1 + 1 + 1 + 1, report.roundTrips(), "the commit's round trip included: " + report);
            assertEquals(100 + 1 + 3, report.estimatedFlushesBefore(), report.toString());
            assertEquals(1 + 1 + 3, report.estimatedFlushesAfter(), report.toString());
            assertEquals(Long.valueOf(100), report.rewrites().get("insert-unnest"), report.toString());
            assertEquals(
                    Long.valueOf(3), report.fallbacks().get(dev.flushless.jdbc.FallbackReason.INSERT_SELECT.code()));
            assertEquals(1, report.coalescedRuns());

            assertEquals(
                    105,
                    registry.get("flushless.statements.issued")
                            .tag("pool", "test")
                            .functionCounter()
                            .count());
            assertEquals(
                    104,
                    registry.get("flushless.flushes.estimated")
                            .tag("phase", "before")
                            .functionCounter()
                            .count());
            assertEquals(
                    100,
                    registry.get("flushless.rewrites")
                            .tag("kind", "insert-unnest")
                            .functionCounter()
                            .count());
            assertEquals(
                    3,
                    registry.get("flushless.fallbacks")
                            .tag("reason", dev.flushless.jdbc.FallbackReason.INSERT_SELECT.code())
                            .functionCounter()
                            .count());
            assertEquals(1, registry.get("flushless.flush").timer().count());
            // every counter equals the report's number
            assertEquals(
                    report.statementsSent(),
                    registry.get("flushless.statements.sent").functionCounter().count());
            assertEquals(
                    report.roundTrips(),
                    registry.get("flushless.round.trips").functionCounter().count());
            assertEquals(
                    report.estimatedFlushesAfter(),
                    registry.get("flushless.flushes.estimated")
                            .tag("phase", "after")
                            .functionCounter()
                            .count());
            assertEquals(
                    report.coalescedRuns(),
                    registry.get("flushless.flush").timer().count());
            // PostgreSQL: the model of a release without pipelining, so every flush waits for consensus
            assertEquals(report.estimatedFlushesBefore(), report.estimatedConsensusFlushesBefore());
            assertEquals(
                    report.estimatedConsensusFlushesAfter(),
                    registry.get("flushless.flushes.consensus.estimated")
                            .tag("phase", "after")
                            .functionCounter()
                            .count());
            assertTrue(report.flushModel().contains("not YugabyteDB"), report.flushModel());
            assertEquals(
                    YugabyteFlushModel.UNBATCHED_ON_CONFLICT,
                    c.unwrap(FlushlessConnection.class).flushModel());
        }
        assertTrue(
                FlushlessDriver.report().statementsIssued() >= globalBefore + 105, "the driver-wide report adds it up");
    }

    /** Connections to YugabyteDB are counted by release and assumed write pipelining; nothing else is tagged. */
    @Test
    void yugabyteConnectionsAreCountedByRelease() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new FlushlessMetrics().bindTo(registry);
        YugabyteFlushModel model = YugabyteFlushModel.releaseDefaults(YugabyteRelease.of("2025.2.8.0"));
        FlushlessStats.forConnection().attach(new FlushlessStats.FlushContext() {
            @Override
            public YugabyteFlushModel model() {
                return model;
            }

            @Override
            public boolean writePipelining() {
                return false;
            }

            @Override
            public boolean explicitTransaction() {
                return false;
            }
        });
        assertTrue(registry.get("flushless.yugabyte.connections")
                        .tag("release", "2025.2.8.0")
                        .tag("write_pipelining", "off")
                        .functionCounter()
                        .count()
                >= 1);
        assertTrue(FlushlessStats.GLOBAL.yugabyteConnections().get("2025.2.8.0/off") >= 1);
    }

    @Test
    void onlyTheMetricsPackageRefersToMicrometer() throws IOException {
        Path classes = Path.of("target/classes/dev/flushless/jdbc");
        try (Stream<Path> files = Files.walk(classes)) {
            files.filter(p -> p.toString().endsWith(".class") && !p.toString().contains("/metrics/"))
                    .forEach(p -> {
                        try {
                            String bytes =
                                    new String(Files.readAllBytes(p), java.nio.charset.StandardCharsets.ISO_8859_1);
                            assertFalse(
                                    bytes.contains("io/micrometer"),
                                    p + " refers to Micrometer, which is optional at runtime");
                        } catch (IOException e) {
                            throw new java.io.UncheckedIOException(e);
                        }
                    });
        }
    }
}
