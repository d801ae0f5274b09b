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
        /** The values the read had, as taken (the key of {@link Table#byValues}). */
        final Map<String, Object> read;
        /** Those still known: a buffered UPDATE that sets a key column makes its value unknown. */
        Map<String, Object> values;

        final LockStrength strength;

        Entry(Map<String, Object> read, LockStrength strength) {
            this.read = Map.copyOf(read);
            this.values = this.read;
            this.strength = strength;
        }

        void forget(Collection<String> columns) {
            for (String column : columns) {
                if (values.containsKey(column)) {
                    Map<String, Object> known = new HashMap<>(values);
                    known.keySet().removeAll(columns);
                    values = known;
                    return;
                }
            }
        }
    }

    /**
     * One table's locked rows, in the order read, and indexed by the values they were read with. While every read of
     * the table used the same key columns ({@code columns}), a row matching values of exactly those columns can only be
     * one read with those values (a match needs every value equal, and known values are a subset of those read), so
     * lookups by key take the index instead of a scan.
     */
    private static final class Table {
        final List<Entry> entries = new ArrayList<>();
        final Map<Map<String, Object>, List<Entry>> byValues = new HashMap<>();
        java.util.Set<String> columns;
        boolean mixedColumns;

        void add(Entry entry) {
            entries.add(entry);
            byValues.computeIfAbsent(entry.read, k -> new ArrayList<>(1)).add(entry);
            if (columns == null) {
                columns = entry.read.keySet();
            } else if (!columns.equals(entry.read.keySet())) {
                mixedColumns = true;
            }
        }

        /** The entries that may match {@code values}: by the index where it answers exactly, else all. */
        List<Entry> candidates(Map<String, Object> values) {
            if (!mixedColumns && columns.equals(values.keySet())) {
                List<Entry> found = byValues.get(values);
                return found == null ? List.of() : found;
            }
            return entries;
        }
    }

    private final Map<Long, Table> byTable = new HashMap<>();

    /** A locking read of table {@code oid} returned its row with {@code values} in its key columns. */
    public void locked(long oid, Map<String, Object> values, LockStrength strength) {
        byTable.computeIfAbsent(oid, k -> new Table()).add(new Entry(values, strength));
    }

    /**
     * Whether a row of table {@code oid} whose columns hold {@code values} (every one of them known from one locking
     * read of it) is locked at least as strongly as a non-key UPDATE needs.
     */
    public boolean holdsForUpdate(long oid, Map<String, Object> values) {
        Table table = byTable.get(oid);
        if (table == null) {
            return false;
        }
        for (Entry entry : table.candidates(values)) {
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
        Table table = byTable.get(oid);
        if (table != null) {
            for (Entry entry : table.candidates(values)) {
                if (matches(entry, values)) {
                    entry.forget(columns);
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
