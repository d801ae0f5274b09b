package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.List;
import java.util.function.Supplier;

/** Reasons to run a batch as sent that more than one planner checks. Pure. */
final class PlanChecks {

    private PlanChecks() {}

    /** The first reason one of {@code checks} gives, in order (later checks are not run), or {@code null}. */
    @SafeVarargs
    static <T> T first(Supplier<T>... checks) {
        for (Supplier<T> check : checks) {
            T reason = check.get();
            if (reason != null) {
                return reason;
            }
        }
        return null;
    }

    /** Why the table's columns clash with the names a rewrite gives its own columns, or {@code null}. */
    static Fallback reservedColumn(TableInfo table) {
        for (String column : table.columns().keySet()) {
            if (column.startsWith(Rewriter.COLUMN_PREFIX)) {
                return FallbackReason.COLUMN_NAMED.because(column);
            }
        }
        return null;
    }

    /**
     * Whether changing {@code setColumns} in a coalesced statement keeps PostgreSQL's unique checks as row-by-row
     * execution would make them: {@code null} when it does, with {@code checks} filled with the unique keys the
     * statement must check in batch order ({@link Rewriter#keyedUpdateInOrderUnnest}); otherwise why not.
     *
     * <p>PostgreSQL checks unique indexes (and exclusion constraints) as each row is changed, so the order in which
     * rows change their unique values decides whether a batch fails. Rows split over several statements out of batch
     * order ({@code outOfOrder}: a repeated key in a later wave) cannot be checked in order; nor can an index on
     * expressions or an exclusion constraint, whose columns are not modelled.
     */
    static Fallback uniquenessProblem(
            List<String> setColumns, TableInfo table, boolean outOfOrder, List<Rewriter.UniqueCheck> checks) {
        List<TableCatalog.UniqueKey> touched = table.uniqueKeysTouching(setColumns);
        if (table.uniquenessNotModelled() != null) {
            return FallbackReason.UNIQUENESS_NOT_MODELLED.because(table.uniquenessNotModelled());
        }
        if (touched.isEmpty()) {
            return null;
        }
        if (outOfOrder) {
            return FallbackReason.UNIQUE_KEY_OUT_OF_ORDER.because(
                    String.join(", ", touched.get(0).columns()));
        }
        for (TableCatalog.UniqueKey key : touched) {
            checks.add(new Rewriter.UniqueCheck(key.columns(), key.nullsNotDistinct()));
        }
        return null;
    }
}
