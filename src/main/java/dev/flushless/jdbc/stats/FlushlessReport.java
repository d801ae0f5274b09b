package dev.flushless.jdbc.stats;

import java.util.Map;

/**
 * What Flushless saved, for one connection or the whole driver: a snapshot of {@link FlushlessStats}.
 *
 * @param statementsIssued statements the application issued (each batch row or Statement-batch member counts one)
 * @param statementsSent statements sent to the server for them (guard savepoints included; the application's
 *     transaction control, BEGIN, COMMIT, ROLLBACK and its savepoints' SAVEPOINT, ROLLBACK TO and RELEASE, not)
 * @param roundTrips client round trips, those of {@code commit()}, {@code rollback()}, {@code setAutoCommit(true)}
 *     ending a transaction and the savepoint calls included (estimated for batches run as sent, at pgjdbc's 256 per
 *     round trip)
 * @param estimatedFlushesBefore YugabyteDB flushes bare pgjdbc would have caused: one per write statement issued
 *     ({@link YugabyteFlushModel}: a single-row write statement waits for one flush)
 * @param estimatedFlushesAfter the same for the statements Flushless sent, by {@link YugabyteFlushModel}: one per
 *     write statement and per 3072 rows it writes, one per row for a native ON CONFLICT statement on a release
 *     that does not batch ON CONFLICT (assumed unless the connection is to a YugabyteDB that does)
 * @param estimatedConsensusFlushesBefore of {@code estimatedFlushesBefore}, those that wait for a consensus (Raft)
 *     round: all of them, unless the model assumes write pipelining (then none inside explicit transactions, whose
 *     COMMIT carries the wait, and one per statement in autocommit)
 * @param estimatedConsensusFlushesAfter the same of {@code estimatedFlushesAfter}
 * @param flushModel what the connection's estimates assumed ({@link YugabyteFlushModel#describe()}: release,
 *     isolation, ON CONFLICT batching, write pipelining), or {@code null} for the driver-wide report
 * @param coalescedRuns coalesced batch executions
 * @param coalescedNanos time spent in them
 * @param rewrites rows coalesced, by rewrite kind
 * @param fallbacks rows run as sent, by reason
 * @param replicaReads reads that ran on a replica ({@code flushless.replicas}): statements, a read-only transaction's
 *     each counting one
 * @param replicaWaits of those, the ones whose replica had not replayed yet what the read must see, so that it waited
 *     (read-your-writes; the wait shares the read's round trip)
 * @param replicaWaitNanos the time the replicas reported waiting for those
 * @param primaryReads reads that could have run on a replica but ran on the primary, by reason code
 *     ({@code dev.flushless.jdbc.replica.PrimaryReason})
 */
public record FlushlessReport(
        long statementsIssued,
        long statementsSent,
        long roundTrips,
        long estimatedFlushesBefore,
        long estimatedFlushesAfter,
        long estimatedConsensusFlushesBefore,
        long estimatedConsensusFlushesAfter,
        String flushModel,
        long coalescedRuns,
        long coalescedNanos,
        Map<String, Long> rewrites,
        Map<String, Long> fallbacks,
        long replicaReads,
        long replicaWaits,
        long replicaWaitNanos,
        Map<String, Long> primaryReads) {

    public FlushlessReport {
        rewrites = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(rewrites));
        fallbacks = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(fallbacks));
        primaryReads = java.util.Collections.unmodifiableMap(new java.util.TreeMap<>(primaryReads));
    }

    /** A report without replica reads (the form before {@code flushless.replicas}). */
    public FlushlessReport(
            long statementsIssued,
            long statementsSent,
            long roundTrips,
            long estimatedFlushesBefore,
            long estimatedFlushesAfter,
            long estimatedConsensusFlushesBefore,
            long estimatedConsensusFlushesAfter,
            String flushModel,
            long coalescedRuns,
            long coalescedNanos,
            Map<String, Long> rewrites,
            Map<String, Long> fallbacks) {
        this(
                statementsIssued,
                statementsSent,
                roundTrips,
                estimatedFlushesBefore,
                estimatedFlushesAfter,
                estimatedConsensusFlushesBefore,
                estimatedConsensusFlushesAfter,
                flushModel,
                coalescedRuns,
                coalescedNanos,
                rewrites,
                fallbacks,
                0,
                0,
                0,
                Map.of());
    }

    /** A report without the consensus split and model (every flush waiting for consensus, as without pipelining). */
    public FlushlessReport(
            long statementsIssued,
            long statementsSent,
            long roundTrips,
            long estimatedFlushesBefore,
            long estimatedFlushesAfter,
            long coalescedRuns,
            long coalescedNanos,
            Map<String, Long> rewrites,
            Map<String, Long> fallbacks) {
        this(
                statementsIssued,
                statementsSent,
                roundTrips,
                estimatedFlushesBefore,
                estimatedFlushesAfter,
                estimatedFlushesBefore,
                estimatedFlushesAfter,
                null,
                coalescedRuns,
                coalescedNanos,
                rewrites,
                fallbacks);
    }

    @Override
    public String toString() {
        return "issued=" + statementsIssued + " sent=" + statementsSent + " roundTrips=" + roundTrips
                + " flushes(est.)=" + estimatedFlushesBefore + "->" + estimatedFlushesAfter
                + (estimatedConsensusFlushesBefore == estimatedFlushesBefore
                                && estimatedConsensusFlushesAfter == estimatedFlushesAfter
                        ? ""
                        : " consensus=" + estimatedConsensusFlushesBefore + "->" + estimatedConsensusFlushesAfter)
                + " rewrites=" + rewrites + " fallbacks=" + fallbacks
                + (replicaReads + primaryReads.size() > 0
                        ? " replicaReads=" + replicaReads + " replicaWaits=" + replicaWaits + " primaryReads="
                                + primaryReads
                        : "");
    }
}
