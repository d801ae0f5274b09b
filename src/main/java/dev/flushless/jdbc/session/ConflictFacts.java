package dev.flushless.jdbc.session;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the anti-join form of {@code INSERT ... ON CONFLICT} must know about a table beyond its columns' types,
 * to do exactly what PostgreSQL's ON CONFLICT does: which unique indexes are the arbiters of a conflict target
 * and how they compare keys, and what PostgreSQL checks on every proposed row before it looks for a conflict
 * (NOT NULL, CHECK constraints, the coercion of each value to its column's type) and draws for it (sequence
 * defaults). Read from the catalog once per table and connection ({@link TableCatalog#conflictFacts}).
 *
 * @param relkind {@code pg_class.relkind} ({@code r} a plain table, {@code p} a partitioned one)
 * @param inheritanceParent whether the table has inheritance children or partitions
 * @param hasCheckConstraints whether the table has CHECK constraints
 * @param columns every column, by name
 * @param uniqueIndexes every unique index of the table
 */
public record ConflictFacts(
        String relkind,
        boolean inheritanceParent,
        boolean hasCheckConstraints,
        Map<String, ColumnFacts> columns,
        List<UniqueIndex> uniqueIndexes) {

    /**
     * One column: its type modifier ({@code atttypmod}, -1 for none), its type with the modifier as a cast
     * target ({@code format_type(atttypid, atttypmod)}), NOT NULL, whether it has a default, is generated, and
     * whether an INSERT that does not supply it draws from a sequence (identity, or a default calling a function
     * other than a few clock and UUID built-ins); {@code lengthLimitedDomain}: its type is a domain over a type with
     * a modifier (e.g. {@code varchar(5)}).
     */
    public record ColumnFacts(
            String name,
            int typmod,
            String typeWithModifier,
            boolean notNull,
            boolean hasDefault,
            boolean generated,
            boolean drawsFromSequence,
            boolean lengthLimitedDomain) {}

    /**
     * One unique index: its name, its key columns in order ({@code null} entries for expressions), whether it is
     * checked immediately (not deferrable), valid, partial, on expressions, NULLS NOT DISTINCT, whether all its
     * collations are deterministic and all its operator classes the default ones.
     */
    public record UniqueIndex(
            String name,
            List<String> columns,
            boolean immediate,
            boolean valid,
            boolean partial,
            boolean expressions,
            boolean nullsNotDistinct,
            boolean deterministicCollations,
            boolean defaultOpclasses) {}

    public ColumnFacts column(String name) {
        return columns.get(name);
    }

    /**
     * The indexes PostgreSQL infers as arbiters of {@code ON CONFLICT (target)} without an index predicate: the
     * valid, non-partial unique indexes on exactly the target's columns (in any order).
     */
    public List<UniqueIndex> arbiters(List<String> target) {
        Set<String> wanted = new HashSet<>(target);
        List<UniqueIndex> arbiters = new ArrayList<>();
        for (UniqueIndex index : uniqueIndexes) {
            if (index.valid()
                    && !index.partial()
                    && !index.expressions()
                    && index.columns().size() == wanted.size()
                    && new HashSet<>(index.columns()).equals(wanted)) {
                arbiters.add(index);
            }
        }
        return arbiters;
    }
}
