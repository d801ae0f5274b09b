package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.analysis.StatementDescription.LockStrength;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The rows the open transaction holds row locks on, by key, as far as the driver saw them taken: a
 * {@code SELECT ... FOR UPDATE} (or {@code NO KEY UPDATE}, {@code SHARE}, {@code KEY SHARE}) of one table that returned
 * a row, with the values of its {@code column = ?} conjuncts. An UPDATE of such a row by the same key knows its count
 * before it runs (the row exists and nobody else can change or delete it: PostgreSQL keeps a row lock until the
 * transaction ends) and takes no lock the transaction does not hold, so {@code flushless.mode=transaction} can
 * buffer it (see {@link BufferRules#whyNotBufferableUpdate}).
 *
 * <p>Forgotten whenever the driver cannot follow what happens to those rows: at the end of the transaction, at a
 * rollback to a savepoint (which releases the locks taken after it), and before any statement that might delete a
 * row or change its key (everything but plain reads, locking reads and the writes the buffer itself holds). Values
 * are compared as the application bound them ({@link dev.flushless.jdbc.batch.Bind#identity}), so equal binds select
 * the same row. Not thread-safe: one connection's transaction.
 */
public final class LockedRows {

    /** One locking read's rows: the values of its key conjuncts (column to bind identity), and the lock strength. */
    private static final class Entry {
        final Map<String, Object> values;
        final LockStrength strength;

        Entry(Map<String, Object> values, LockStrength strength) {
            this.values = values;
            this.strength = strength;
        }
    }

    private final Map<Long, List<Entry>> byTable = new HashMap<>();

    /** A locking read of table {@code oid} returned its row with {@code values} in its key columns. */
    public void locked(long oid, Map<String, Object> values, LockStrength strength) {
        byTable.computeIfAbsent(oid, k -> new ArrayList<>()).add(new Entry(new HashMap<>(values), strength));
    }

    /**
     * Whether a row of table {@code oid} whose columns hold {@code values} (every one of them known from one locking
     * read of it) is locked at least as strongly as a non-key UPDATE needs.
     */
    public boolean holdsForUpdate(long oid, Map<String, Object> values) {
        List<Entry> entries = byTable.get(oid);
        if (entries == null) {
            return false;
        }
        for (Entry entry : entries) {
            if (entry.strength.coversNonKeyUpdate() && matches(entry, values)) {
                return true;
            }
        }
        return false;
    }

    private static boolean matches(Entry entry, Map<String, Object> values) {
        for (Map.Entry<String, Object> value : values.entrySet()) {
            Object known = entry.values.get(value.getKey());
            if (known == null || !known.equals(value.getValue())) {
                return false;
            }
        }
        return true;
    }

    /**
     * An UPDATE (buffered) set {@code columns} of the locked row of table {@code oid} with {@code values}: those
     * columns' values are no longer known (the row stays locked).
     */
    public void updated(long oid, Map<String, Object> values, Collection<String> columns) {
        List<Entry> entries = byTable.get(oid);
        if (entries != null) {
            for (Entry entry : entries) {
                if (matches(entry, values)) {
                    entry.values.keySet().removeAll(columns);
                }
            }
        }
    }

    /** Forgets every lock (see the class comment for when). */
    public void forget() {
        byTable.clear();
    }

    /** True when no lock is known. */
    public boolean isEmpty() {
        return byTable.isEmpty();
    }
}
