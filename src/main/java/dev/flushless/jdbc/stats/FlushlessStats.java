package dev.flushless.jdbc.stats;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counters of what the driver did: batch rows the application issued, statements sent for them, rewrites
 * by kind and fallbacks by reason. One instance per connection, each also feeding {@link #GLOBAL} (the
 * whole driver). Thread-safe and cheap: adders, no locks.
 */
public final class FlushlessStats {

    /** Totals over every connection of this class loader. */
    public static final FlushlessStats GLOBAL = new FlushlessStats(null);

    private final FlushlessStats parent;
    private final LongAdder statementsIssued = new LongAdder();
    private final LongAdder statementsSent = new LongAdder();
    private final Map<String, LongAdder> rewrites = new ConcurrentHashMap<>();
    private final Map<String, LongAdder> fallbacks = new ConcurrentHashMap<>();

    private FlushlessStats(FlushlessStats parent) {
        this.parent = parent;
    }

    /** Counters for one connection, also counted in {@link #GLOBAL}. */
    public static FlushlessStats forConnection() {
        return new FlushlessStats(GLOBAL);
    }

    /** A batch of {@code rows} application statements ran as {@code statements} statements of rewrite {@code kind}. */
    public void rewrite(String kind, int rows, int statements) {
        statementsIssued.add(rows);
        statementsSent.add(statements);
        rewrites.computeIfAbsent(kind, k -> new LongAdder()).add(rows);
        if (parent != null) {
            parent.rewrite(kind, rows, statements);
        }
    }

    /** A batch of {@code rows} application statements ran as sent, because of {@code reason}. */
    public void fallback(String reason, int rows) {
        statementsIssued.add(rows);
        statementsSent.add(rows);
        fallbacks.computeIfAbsent(reason, k -> new LongAdder()).add(rows);
        if (parent != null) {
            parent.fallback(reason, rows);
        }
    }

    /** Application statements (batch rows) seen by the batch path. */
    public long statementsIssued() {
        return statementsIssued.sum();
    }

    /** Statements sent to the server for them. */
    public long statementsSent() {
        return statementsSent.sum();
    }

    /** Rows coalesced, by rewrite kind (e.g. {@code insert-values}). */
    public Map<String, Long> rewrites() {
        return snapshot(rewrites);
    }

    /** Rows run as sent, by reason. */
    public Map<String, Long> fallbacks() {
        return snapshot(fallbacks);
    }

    private static Map<String, Long> snapshot(Map<String, LongAdder> counters) {
        Map<String, Long> copy = new TreeMap<>();
        counters.forEach((k, v) -> copy.put(k, v.sum()));
        return copy;
    }

    @Override
    public String toString() {
        return "issued=" + statementsIssued() + " sent=" + statementsSent() + " rewrites=" + rewrites()
                + " fallbacks=" + fallbacks();
    }
}
