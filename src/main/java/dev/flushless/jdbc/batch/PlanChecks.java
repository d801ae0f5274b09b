package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.session.TableCatalog;

import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.rewrite.Rewriter;
import java.util.List;
import java.util.function.Supplier;

/** Reasons to run a batch as sent that more than one planner checks. Pure. */
final class PlanChecks {

    private PlanChecks() {
    }

    /** The first reason one of {@code checks} gives, in order (later checks are not run), or {@code null}. */
    @SafeVarargs
    static String first(Supplier<String>... checks) {
        for (Supplier<String> check : checks) {
            String reason = check.get();
            if (reason != null) {
                return reason;
            }
        }
        return null;
    }

    /** Why the table's columns clash with the names a rewrite gives its own columns, or {@code null}. */
    static String reservedColumn(TableInfo table) {
        for (String column : table.columns().keySet()) {
            if (column.startsWith(Rewriter.COLUMN_PREFIX)) {
                return "table has a column named " + column;
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
    static String uniquenessProblem(List<String> setColumns, TableInfo table, boolean outOfOrder,
            List<Rewriter.UniqueCheck> checks) {
        List<TableCatalog.UniqueKey> touched = table.uniqueKeysTouching(setColumns);
        if (table.uniquenessNotModelled() != null) {
            return "changes rows of a table whose uniqueness is not modelled (" + table.uniquenessNotModelled()
                    + "): its checks depend on the order rows change";
        }
        if (touched.isEmpty()) {
            return null;
        }
        if (outOfOrder) {
            return "sets a column of a unique key (" + String.join(", ", touched.get(0).columns()) + ") in statements out"
                    + " of batch order (a repeated key): unique checks would run in another order than row by row";
        }
        for (TableCatalog.UniqueKey key : touched) {
            checks.add(new Rewriter.UniqueCheck(key.columns(), key.nullsNotDistinct()));
        }
        return null;
    }
}
