package dev.flushless.jdbc.metrics;

import dev.flushless.jdbc.stats.FlushlessStats;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.util.concurrent.TimeUnit;

/**
 * Micrometer meters for what Flushless saved: {@code registry.bind(new FlushlessMetrics())} for the whole
 * driver, or {@code new FlushlessMetrics(connection.unwrap(FlushlessConnection.class).flushlessStats(), tags)}
 * for one connection. Micrometer is optional: only this class needs it on the classpath.
 *
 * <ul>
 *   <li>{@code flushless.statements.issued}, {@code flushless.statements.sent}: statements the application
 *       issued and statements sent to the server;</li>
 *   <li>{@code flushless.round.trips}: client round trips (estimated for batches run as sent);</li>
 *   <li>{@code flushless.flushes.estimated} with tag {@code phase} = {@code before} | {@code after}: the
 *       YugabyteDB flush estimate without and with Flushless;</li>
 *   <li>{@code flushless.flushes.consensus.estimated} (tag {@code phase}): of those, the flushes that wait for a
 *       consensus round (all of them unless the servers run with write pipelining);</li>
 *   <li>{@code flushless.yugabyte.connections} (tags {@code release}, {@code write_pipelining}): connections opened to
 *       YugabyteDB by release and whether the flush model assumed write pipelining;</li>
 *   <li>{@code flushless.rewrites} (tag {@code kind}) and {@code flushless.fallbacks} (tag {@code reason}):
 *       rows coalesced by rewrite kind, rows run as sent by reason;</li>
 *   <li>{@code flushless.flush}: a timer of coalesced batch executions;</li>
 *   <li>{@code flushless.replica.reads}: reads that ran on a replica; {@code flushless.replica.waits}: a function
 *       timer of those that waited for the replica to replay what they must see; {@code flushless.replica.primary.reads}
 *       (tag {@code reason}): reads that ran on the primary though replicas are configured, by reason code.</li>
 * </ul>
 */
public final class FlushlessMetrics implements MeterBinder {

    private final FlushlessStats stats;
    private final Iterable<Tag> tags;

    /** Meters for the whole driver ({@link FlushlessStats#GLOBAL}). */
    public FlushlessMetrics() {
        this(FlushlessStats.GLOBAL, Tags.empty());
    }

    public FlushlessMetrics(FlushlessStats stats, Iterable<Tag> tags) {
        this.stats = stats;
        this.tags = tags;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        counter(
                registry,
                "flushless.statements.issued",
                "Statements the application issued",
                FlushlessStats::statementsIssued,
                Tags.empty());
        counter(
                registry,
                "flushless.statements.sent",
                "Statements sent to the server",
                FlushlessStats::statementsSent,
                Tags.empty());
        counter(
                registry,
                "flushless.round.trips",
                "Client round trips (estimated for batches run as sent)",
                FlushlessStats::roundTrips,
                Tags.empty());
        counter(
                registry,
                "flushless.flushes.estimated",
                "Estimated YugabyteDB flushes without Flushless",
                FlushlessStats::estimatedFlushesBefore,
                Tags.of("phase", "before"));
        counter(
                registry,
                "flushless.flushes.estimated",
                "Estimated YugabyteDB flushes with Flushless",
                FlushlessStats::estimatedFlushesAfter,
                Tags.of("phase", "after"));
        counter(
                registry,
                "flushless.flushes.consensus.estimated",
                "Estimated YugabyteDB flushes without Flushless that wait for consensus",
                FlushlessStats::estimatedConsensusFlushesBefore,
                Tags.of("phase", "before"));
        counter(
                registry,
                "flushless.flushes.consensus.estimated",
                "Estimated YugabyteDB flushes with Flushless that wait for consensus",
                FlushlessStats::estimatedConsensusFlushesAfter,
                Tags.of("phase", "after"));
        counter(
                registry,
                "flushless.replica.reads",
                "Reads that ran on a replica (flushless.replicas)",
                FlushlessStats::replicaReads,
                Tags.empty());
        io.micrometer.core.instrument.FunctionTimer.builder(
                        "flushless.replica.waits",
                        stats,
                        FlushlessStats::replicaWaits,
                        FlushlessStats::replicaWaitNanos,
                        TimeUnit.NANOSECONDS)
                .description("Replica reads that waited for the replica to replay the writes they must see")
                .tags(tags)
                .register(registry);
        Timer flush = Timer.builder("flushless.flush")
                .description("Duration of coalesced batch executions")
                .tags(tags)
                .register(registry);
        stats.addListener(new FlushlessStats.Listener() {
            @Override
            public void newKey(String family, String key) {
                keyed(registry, family, key);
            }

            @Override
            public void coalescedRun(long nanos) {
                flush.record(nanos, TimeUnit.NANOSECONDS);
            }
        });
        stats.rewrites().keySet().forEach(kind -> keyed(registry, "rewrite", kind));
        stats.fallbacks().keySet().forEach(reason -> keyed(registry, "fallback", reason));
        stats.yugabyteConnections().keySet().forEach(key -> keyed(registry, "yugabyte", key));
        stats.primaryReads().keySet().forEach(reason -> keyed(registry, "primary-read", reason));
    }

    private void keyed(MeterRegistry registry, String family, String key) {
        if ("yugabyte".equals(family)) {
            int slash = key.lastIndexOf('/');
            counter(
                    registry,
                    "flushless.yugabyte.connections",
                    "Connections opened to YugabyteDB, by release and assumed write pipelining",
                    s -> s.yugabyteConnections(key),
                    Tags.of("release", key.substring(0, slash), "write_pipelining", key.substring(slash + 1)));
        } else if ("primary-read".equals(family)) {
            counter(
                    registry,
                    "flushless.replica.primary.reads",
                    "Reads that could have run on a replica but ran on the primary, by reason",
                    s -> s.primaryReads(key),
                    Tags.of("reason", key));
        } else if ("rewrite".equals(family)) {
            counter(
                    registry,
                    "flushless.rewrites",
                    "Rows coalesced, by rewrite kind",
                    s -> s.rewritten(key),
                    Tags.of("kind", key));
        } else {
            counter(
                    registry,
                    "flushless.fallbacks",
                    "Rows run as sent, by reason",
                    s -> s.fellBack(key),
                    Tags.of("reason", key));
        }
    }

    private void counter(
            MeterRegistry registry,
            String name,
            String description,
            java.util.function.ToDoubleFunction<FlushlessStats> value,
            Tags extra) {
        FunctionCounter.builder(name, stats, value)
                .description(description)
                .tags(tags)
                .tags(extra)
                .register(registry);
    }
}
