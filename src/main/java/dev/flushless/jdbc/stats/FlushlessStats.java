package dev.flushless.jdbc.stats;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the driver did: statements the application issued, statements sent for them, round
 * trips, write statements and estimated YugabyteDB flushes before and after ({@link YugabyteFlushModel}: every
 * top-level write statement waits for at least one flush, one more per 3072 rows it writes, and a native
 * ON CONFLICT statement one per row on releases that do not batch it), rewrites by kind and fallbacks by reason. One instance per
 * connection, each also feeding {@link #GLOBAL} (the whole driver). Thread-safe and cheap on the hot path:
 * adders, no locks. {@link #report()} takes a snapshot.
 */
public final class FlushlessStats {

    /** Totals over every connection of this class loader. */
    public static final FlushlessStats GLOBAL = new FlushlessStats(null);

    /**
     * Where a connection's counters learn its server's flush model and whether a write runs inside an explicit
     * transaction (for which flushes wait for consensus, {@link YugabyteFlushModel#consensusFlushes}). Both answers
     * must cost no round trip: they are asked for writes as they are counted.
     */
    public interface FlushContext {
        /** The flush model as known now (sends nothing). */
        YugabyteFlushModel model();

        /** Whether the flush model assumes write pipelining (fixed for the connection). */
        boolean writePipelining();

        /** Whether the connection is inside an explicit transaction now. */
        boolean explicitTransaction();
    }

    /** Told about new rewrite kinds and fallback reasons, and about each coalesced execution's duration. */
    public interface Listener {
        /**
         * A rewrite kind ({@code family} "rewrite"), fallback reason ("fallback"), YugabyteDB release and pipelining
         * ("yugabyte", {@code 2025.2.8.0/off}) or reason for a read on the primary ("primary-read") was counted for the
         * first time.
         */
        void newKey(String family, String key);

        /** A coalesced batch ran in {@code nanos}. */
        void coalescedRun(long nanos);
    }

    /**
     * pgjdbc sends a batch's statements in one round trip per about 256 (it estimates 250 bytes of reply per
     * statement against a 64,000-byte budget), which is what a batch run as sent is estimated to cost.
     */
    static final int PGJDBC_STATEMENTS_PER_ROUND_TRIP = 256;

    private final FlushlessStats parent;
    private final LongAdder statementsIssued = new LongAdder();
    private final LongAdder statementsSent = new LongAdder();
    private final LongAdder roundTrips = new LongAdder();
    private final LongAdder writesIssued = new LongAdder();
    private final LongAdder writesSent = new LongAdder();
    private final LongAdder flushesBefore = new LongAdder();
    private final LongAdder flushesAfter = new LongAdder();
    private final LongAdder coalescedRuns = new LongAdder();
    private final LongAdder coalescedNanos = new LongAdder();
    /**
     * Write statements that ran as the application sent them (batch rows run as sent and single writes): each one
     * statement issued and sent, one write issued and sent, and one flush before and after. Counted once here rather
     * than in those six counters (which the getters add it to), since as sent is the hot path.
     */
    private final LongAdder writesAsSent = new LongAdder();
    /** Reads (and other non-writes) that ran as sent: each one statement issued and sent (see {@link #writesAsSent}). */
    private final LongAdder readsAsSent = new LongAdder();
    /**
     * Estimated flushes that wait for the tablet leaders only (write pipelining inside explicit transactions):
     * subtracted from the flush estimates to give those that wait for consensus. Counted only where the connection's
     * model assumes write pipelining, so the hot path of the others pays one boolean check.
     */
    private final LongAdder leaderOnlyBefore = new LongAdder();

    private final LongAdder leaderOnlyAfter = new LongAdder();
    /** The connection's flush context ({@link #attach}), {@code null} for {@link #GLOBAL} and until attached. */
    private volatile FlushContext context;
    /** {@code context.writePipelining()}, read once when attached. */
    private volatile boolean pipelining;

    private final Map<String, LongAdder> rewrites = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> fallbacks = new ConcurrentHashMap<>();
    private final LongAdder replicaReads = new LongAdder();
    private final LongAdder replicaWaits = new LongAdder();
    private final LongAdder replicaWaitNanos = new LongAdder();
    private final Map<String, LongAdder> primaryReads = new ConcurrentHashMap<>();
    private final List<Listener> listeners = new CopyOnWriteArrayList<>();

    private FlushlessStats(FlushlessStats parent) {
        this.parent = parent;
    }

    /** Counters for one connection, also counted in {@link #GLOBAL}. */
    public static FlushlessStats forConnection() {
        return new FlushlessStats(GLOBAL);
    }

    /**
     * Attaches this connection's flush context: from now on the estimates follow its server's model, and, where the
     * model assumes write pipelining, the flushes of writes inside explicit transactions count as waiting for the
     * tablet leaders only. A connection to YugabyteDB is also counted under its release
     * ({@link #yugabyteConnections()}).
     */
    public void attach(FlushContext flushContext) {
        this.context = flushContext;
        this.pipelining = flushContext != null && flushContext.writePipelining();
        YugabyteFlushModel model = flushContext == null ? null : flushContext.model();
        if (model != null && model.release() != null) {
            yugabyteConnection(model.release() + "/" + (pipelining ? "on" : "off"));
        }
    }

    /** The connection's flush model as known now, or {@code null} (the driver-wide counters, or not attached). */
    public YugabyteFlushModel flushModel() {
        FlushContext c = context;
        return c == null ? null : c.model();
    }

    private final Map<String, LongAdder> yugabyteConnections = new ConcurrentHashMap<>();

    private void yugabyteConnection(String key) {
        if (parent != null) {
            parent.yugabyteConnection(key);
            return;
        }
        count(yugabyteConnections, "yugabyte", key, 1);
    }

    /**
     * Connections opened to YugabyteDB (driver-wide), by {@code release/pipelining} as the flush model assumed them
     * ({@code 2025.2.8.0/off}); empty for a connection's own counters.
     */
    public Map<String, Long> yugabyteConnections() {
        return snapshot(yugabyteConnections);
    }

    /** Connections opened to YugabyteDB under {@code key} so far (for meters). */
    public long yugabyteConnections(String key) {
        LongAdder adder = yugabyteConnections.get(key);
        return adder == null ? 0 : adder.sum();
    }

    /** Whether this connection's writes run inside an explicit transaction now, where that matters (pipelining). */
    private boolean leaderOnlyNow() {
        FlushContext c = context;
        return pipelining && c != null && c.explicitTransaction();
    }

    private void leaderOnly(long before, long after) {
        if (before != 0) {
            leaderOnlyBefore.add(before);
        }
        if (after != 0) {
            leaderOnlyAfter.add(after);
        }
        if (parent != null) {
            parent.leaderOnly(before, after);
        }
    }

    /** Registers a listener (used by the Micrometer binder). */
    public void addListener(Listener listener) {
        listeners.add(listener);
    }

    /** One statement executed as the application sent it (one round trip). */
    public void executed(boolean write) {
        roundTrips.increment();
        if (write) {
            writesAsSent.increment();
            if (pipelining && leaderOnlyNow()) {
                leaderOnly(1, 1);
            }
        } else {
            readsAsSent.increment();
        }
        if (parent != null) {
            parent.executed(write);
        }
    }

    /**
     * pgjdbc sent transaction control: a COMMIT or ROLLBACK for {@code commit()}, {@code rollback()} or
     * {@code setAutoCommit(true)}, or a SAVEPOINT, ROLLBACK TO SAVEPOINT or RELEASE SAVEPOINT for the application's
     * savepoint calls: a round trip that no application statement issued. Transaction control is not counted as a
     * statement sent (see {@link FlushlessReport}).
     */
    public void transactionControl() {
        roundTrips.increment();
        if (parent != null) {
            parent.transactionControl();
        }
    }

    /**
     * A batch of {@code rows} write statements ran coalesced: {@code statements} statements of rewrite
     * {@code kind} ({@code sent} SQL statements in all, guard savepoints included) in {@code trips} round
     * trips, taking {@code nanos}.
     */
    public void rewrite(String kind, int rows, int statements, int sent, int trips, long nanos) {
        rewrite(
                kind,
                rows,
                statements,
                sent,
                trips,
                nanos,
                Math.max(
                        statements,
                        (rows + YugabyteFlushModel.DEFAULT_SESSION_MAX_BATCH_SIZE - 1)
                                / YugabyteFlushModel.DEFAULT_SESSION_MAX_BATCH_SIZE));
    }

    /**
     * As {@link #rewrite(String, int, int, int, int, long)}, with the YugabyteDB flushes the statements sent are
     * estimated to cost ({@link YugabyteFlushModel}); each of the {@code rows} statements the application issued
     * counts one flush before.
     */
    public void rewrite(String kind, int rows, int statements, int sent, int trips, long nanos, long flushes) {
        statementsIssued.add(rows);
        statementsSent.add(sent);
        roundTrips.add(trips);
        writesIssued.add(rows);
        writesSent.add(statements);
        flushesBefore.add(rows);
        flushesAfter.add(flushes);
        coalescedRuns.increment();
        coalescedNanos.add(nanos);
        if (pipelining) {
            // with write pipelining: inside an explicit transaction no flush waits for consensus (its COMMIT does),
            // in autocommit each statement waits once, at its commit (YugabyteFlushModel rule 6)
            if (leaderOnlyNow()) {
                leaderOnly(rows, flushes);
            } else {
                leaderOnly(0, flushes - Math.min(flushes, statements));
            }
        }
        count(rewrites, "rewrite", kind, rows);
        for (Listener listener : listeners) {
            listener.coalescedRun(nanos);
        }
        if (parent != null) {
            parent.rewrite(kind, rows, statements, sent, trips, nanos, flushes);
        }
    }

    /**
     * A batch of {@code rows} statements ran as sent, because of {@code reason} ({@code null}: nothing to say),
     * counted under the reason's code; the occurrence's text goes to the DEBUG log only.
     */
    public void fallback(dev.flushless.jdbc.Fallback reason, int rows) {
        if (rows <= 0) {
            return;
        }
        writesAsSent.add(rows);
        roundTrips.add((rows + PGJDBC_STATEMENTS_PER_ROUND_TRIP - 1) / PGJDBC_STATEMENTS_PER_ROUND_TRIP);
        if (pipelining && leaderOnlyNow()) {
            leaderOnly(rows, rows);
        }
        if (reason != null) {
            counted(reason, rows);
        }
        if (parent != null) {
            parent.fallback(reason, rows);
        }
    }

    /**
     * Rows counted under {@code reason} only, their execution being counted where it happens: rows that ran coalesced
     * but not in the form asked for (e.g. {@code flushless.onConflict=antijoin} fell back to native ON CONFLICT, counted
     * as a rewrite), or a single write whose route the reason decided (counted as it runs, as sent or riding along).
     */
    public void noted(dev.flushless.jdbc.Fallback reason, int rows) {
        counted(reason, rows);
        if (parent != null) {
            parent.noted(reason, rows);
        }
    }

    /**
     * A statement that was first tried coalesced with others (e.g. a group commit that failed) runs alone for
     * {@code reason}: counted under the reason only (its execution is counted as it happens).
     */
    public void retried(dev.flushless.jdbc.Fallback reason) {
        counted(reason, 1);
        if (parent != null) {
            parent.retried(reason);
        }
    }

    private static final System.Logger FALLBACK_LOG = System.getLogger("dev.flushless.jdbc.fallback");

    /** Counts under the code; logs the text (which may quote SQL) at DEBUG on the root counters only. */
    private void counted(dev.flushless.jdbc.Fallback reason, int rows) {
        count(fallbacks, "fallback", reason.code(), rows);
        if (parent == null && FALLBACK_LOG.isLoggable(System.Logger.Level.DEBUG)) {
            FALLBACK_LOG.log(System.Logger.Level.DEBUG, "{0} row(s) [{1}]: {2}", rows, reason.code(), reason.text());
        }
    }

    private void count(Map<String, LongAdder> counters, String family, String key, int rows) {
        LongAdder adder = counters.get(key);
        if (adder == null) {
            LongAdder created = new LongAdder();
            adder = counters.putIfAbsent(key, created);
            if (adder == null) {
                adder = created;
                for (Listener listener : listeners) {
                    listener.newKey(family, key);
                }
            }
        }
        adder.add(rows);
    }

    // ---- replica reads (flushless.replicas) ----

    /**
     * A read ran on a replica; {@code waitNanos} is how long the replica waited to replay what the read must see (0:
     * it had already).
     */
    public void replicaRead(long waitNanos) {
        replicaReads.increment();
        if (waitNanos > 0) {
            replicaWaits.increment();
            replicaWaitNanos.add(waitNanos);
        }
        if (parent != null) {
            parent.replicaRead(waitNanos);
        }
    }

    /** A read that could have run on a replica ran on the primary, for the reason with code {@code reason}. */
    public void primaryRead(String reason) {
        count(primaryReads, "primary-read", reason, 1);
        if (parent != null) {
            parent.primaryRead(reason);
        }
    }

    /** Reads that ran on a replica so far. */
    public long replicaReads() {
        return replicaReads.sum();
    }

    /** Replica reads that waited for the replica to replay what they must see. */
    public long replicaWaits() {
        return replicaWaits.sum();
    }

    /** The time those waits took, in nanoseconds. */
    public long replicaWaitNanos() {
        return replicaWaitNanos.sum();
    }

    /** Reads sent to the primary for reason code {@code reason} so far (for meters). */
    public long primaryReads(String reason) {
        LongAdder adder = primaryReads.get(reason);
        return adder == null ? 0 : adder.sum();
    }

    /** Reads sent to the primary though replicas are configured, by reason code. */
    public Map<String, Long> primaryReads() {
        return snapshot(primaryReads);
    }

    /** Statements the application issued (each batch row or member counts one). */
    public long statementsIssued() {
        return statementsIssued.sum() + writesAsSent.sum() + readsAsSent.sum();
    }

    /** Statements sent to the server for them. */
    public long statementsSent() {
        return statementsSent.sum() + writesAsSent.sum() + readsAsSent.sum();
    }

    /** Round trips: exact for coalesced batches and single statements, estimated for batches run as sent. */
    public long roundTrips() {
        return roundTrips.sum();
    }

    /** Write statements the application issued. */
    public long writesIssued() {
        return writesIssued.sum() + writesAsSent.sum();
    }

    /** Write statements sent. */
    public long writesSent() {
        return writesSent.sum() + writesAsSent.sum();
    }

    /** YugabyteDB flushes the application's write statements would cost without Flushless (estimated). */
    public long estimatedFlushesBefore() {
        return flushesBefore.sum() + writesAsSent.sum();
    }

    /** YugabyteDB flushes the statements Flushless sent cost (estimated, {@link YugabyteFlushModel}). */
    public long estimatedFlushesAfter() {
        return flushesAfter.sum() + writesAsSent.sum();
    }

    /**
     * Of {@link #estimatedFlushesBefore()}, those that wait for a consensus (Raft) round: all of them unless the model
     * assumes write pipelining ({@link YugabyteFlushModel#consensusFlushes}).
     */
    public long estimatedConsensusFlushesBefore() {
        return estimatedFlushesBefore() - leaderOnlyBefore.sum();
    }

    /** Of {@link #estimatedFlushesAfter()}, those that wait for a consensus (Raft) round. */
    public long estimatedConsensusFlushesAfter() {
        return estimatedFlushesAfter() - leaderOnlyAfter.sum();
    }

    /** Rows coalesced, by rewrite kind (e.g. {@code insert-unnest}). */
    public Map<String, Long> rewrites() {
        return snapshot(rewrites);
    }

    /** Rows run as sent, by reason code ({@link dev.flushless.jdbc.FallbackReason#code()}). */
    public Map<String, Long> fallbacks() {
        return snapshot(fallbacks);
    }

    /** Rows coalesced with rewrite {@code kind} so far (for meters). */
    public long rewritten(String kind) {
        LongAdder adder = rewrites.get(kind);
        return adder == null ? 0 : adder.sum();
    }

    /** Rows run as sent because of {@code reason} so far (for meters). */
    public long fellBack(String reason) {
        LongAdder adder = fallbacks.get(reason);
        return adder == null ? 0 : adder.sum();
    }

    /** A consistent-enough snapshot of every counter. */
    public FlushlessReport report() {
        YugabyteFlushModel model = flushModel();
        return new FlushlessReport(
                statementsIssued(),
                statementsSent(),
                roundTrips(),
                estimatedFlushesBefore(),
                estimatedFlushesAfter(),
                estimatedConsensusFlushesBefore(),
                estimatedConsensusFlushesAfter(),
                model == null ? null : String.join("; ", model.describe()),
                coalescedRuns.sum(),
                coalescedNanos.sum(),
                rewrites(),
                fallbacks(),
                replicaReads(),
                replicaWaits(),
                replicaWaitNanos(),
                primaryReads());
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
        Map<String, Long> copy = new TreeMap<>();
        counters.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    @Override
    public String toString() {
        return report().toString();
    }
}
