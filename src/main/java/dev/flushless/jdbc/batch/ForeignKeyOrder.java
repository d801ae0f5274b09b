package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.ForeignKey;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.postgresql.core.Oid;

/**
 * Keeps the foreign-key order the application used. PostgreSQL checks a statement's foreign keys after the
 * statement (the RI triggers are AFTER ROW triggers, queued to its end), so one statement that does the work of
 * several accepts an intermediate state that the sequence of statements rejects: a child row inserted before its
 * parent, a parent deleted before its children. A coalesced statement that fails is undone and re-run as sent, so
 * only the other direction matters: the combined statement must never succeed where bare pgjdbc's statements fail.
 * These rules keep every form whose outcome could depend on the order out of one statement; they cost statements
 * only where the application's order could have failed. Pure: no I/O.
 */
public final class ForeignKeyOrder {

    private ForeignKeyOrder() {}

    /**
     * Why a batch of one INSERT (any form: multi-row, ON CONFLICT, anti-join) into a self-referencing table must run
     * as sent, or {@code null}: a row's foreign key may name a row that comes later in the batch. Proven not to
     * when every row's key value is NULL (no check) or differs from the referenced key of every later row, comparing
     * only values whose equality in Java is the server's (integers, deterministic text, UUIDs). A conflict action
     * that changes a referenced column could also create a key later rows need: as sent.
     */
    public static Fallback insertReason(StatementDescription insert, List<Bind[]> rows, TableInfo table) {
        for (String updated : insert.conflictUpdatedColumns()) {
            if (table.referencedColumn(updated)) {
                return FallbackReason.FOREIGN_KEY_ORDER.because(
                        "ON CONFLICT DO UPDATE sets a column a foreign key references");
            }
        }
        if (!table.selfReferencing() || rows.size() < 2) {
            return null;
        }
        List<String> columns = insert.parameterColumns();
        for (ForeignKey fk : table.references()) {
            if (!table.writesReach(fk.otherTable())) {
                continue;
            }
            boolean sameTable = fk.otherTable() == table.oid() && table.family().length == 1;
            int[] fkParameters = parameters(columns, fk.columns());
            int[] keyParameters = sameTable ? parameters(columns, fk.otherColumns()) : null;
            // the referenced key of each row, and the last row whose key is unknown (then anything may match it)
            Map<List<Object>, Integer> lastRowWithKey = new HashMap<>();
            int lastUnknownKey = -1;
            for (int j = 0; j < rows.size(); j++) {
                List<Object> key =
                        keyParameters == null ? null : tuple(rows.get(j), keyParameters, fk.otherColumns(), table);
                if (key == null) {
                    lastUnknownKey = j;
                } else if (!key.contains(NULL)) {
                    lastRowWithKey.put(key, j);
                }
            }
            for (int i = 0; i < rows.size() - 1; i++) {
                if (fkParameters != null && anyNull(rows.get(i), fkParameters)) {
                    continue; // MATCH SIMPLE: no check; MATCH FULL with some NULLs fails in any order
                }
                List<Object> reference =
                        fkParameters == null ? null : tuple(rows.get(i), fkParameters, fk.columns(), table);
                Integer later = reference == null ? null : lastRowWithKey.get(reference);
                if (reference == null || lastUnknownKey > i || later != null && later > i) {
                    return FallbackReason.FOREIGN_KEY_ORDER.because(
                            "a row may reference a later row of the batch through a self-referencing foreign key");
                }
            }
        }
        return null;
    }

    /**
     * Why a batch of one UPDATE or DELETE must run as sent, or {@code null}. A DELETE from a self-referencing table
     * may remove a parent before its children (or cascade into rows later members then miss); an UPDATE that sets a
     * referenced column may take a key away before another row gives it back.
     */
    public static Fallback keyedReason(StatementDescription statement, TableInfo table) {
        if (statement.kind() == StatementDescription.Kind.DELETE) {
            return table.selfReferencing()
                    ? FallbackReason.FOREIGN_KEY_ORDER.because("DELETE batch on a self-referencing table")
                    : null;
        }
        for (StatementDescription.Assignment assignment : statement.assignments()) {
            if (table.referencedColumn(assignment.column())) {
                return FallbackReason.FOREIGN_KEY_ORDER.because("UPDATE batch sets a column a foreign key references");
            }
        }
        return null;
    }

    /**
     * The foreign-key checks an open group of a {@code Statement} batch's chain has queued: a later member that
     * could change their outcome starts a new group, so every check runs after the statements bare pgjdbc would
     * have run before it, and no earlier.
     */
    public static final class Chain {
        /** Tables whose rows the group's INSERTs and UPDATEs referenced (the parents must exist by then). */
        private final List<Long> parentsNeeded = new ArrayList<>();
        /** Tables whose rows referenced what the group's DELETEs and UPDATEs took away (they must be gone by then). */
        private final List<Long> childrenMustBeGone = new ArrayList<>();

        /** True when {@code member}, writing {@code table}, must not join the group. */
        public boolean breaksOrder(StatementDescription member, TableInfo table) {
            StatementDescription.Kind kind = member.kind();
            List<String> set = setColumns(member);
            // an INSERT, or an UPDATE of a referenced column, may give a parent its key
            if (kind == StatementDescription.Kind.INSERT
                    || kind == StatementDescription.Kind.UPDATE
                            && (set == null || set.stream().anyMatch(table::referencedColumn))) {
                for (long parent : parentsNeeded) {
                    if (table.writesReach(parent)) {
                        return true;
                    }
                }
            }
            // a DELETE, or an UPDATE of a foreign-key column, may take children away
            if (kind == StatementDescription.Kind.DELETE
                    || kind == StatementDescription.Kind.UPDATE
                            && table.references().stream().anyMatch(fk -> sets(set, fk.columns()))) {
                for (long child : childrenMustBeGone) {
                    if (table.writesReach(child)) {
                        return true;
                    }
                }
            }
            return false;
        }

        /** True when an UPDATE setting {@code set} ({@code null}: any column) sets one of {@code columns}. */
        private static boolean sets(List<String> set, List<String> columns) {
            return set == null || columns.stream().anyMatch(set::contains);
        }

        /** The columns an UPDATE sets; {@code null} when not known (any column), empty for other statements. */
        private static List<String> setColumns(StatementDescription member) {
            if (member.kind() != StatementDescription.Kind.UPDATE) {
                return List.of();
            }
            List<String> set = new ArrayList<>();
            for (StatementDescription.Assignment assignment : member.assignments()) {
                set.add(assignment.column());
            }
            return set.isEmpty() ? null : set;
        }

        /** Notes the checks of {@code member}, writing {@code table}, which joined the group. */
        public void add(StatementDescription member, TableInfo table) {
            StatementDescription.Kind kind = member.kind();
            List<String> set = setColumns(member);
            if (kind != StatementDescription.Kind.DELETE) {
                for (ForeignKey fk : table.references()) {
                    if (kind == StatementDescription.Kind.INSERT || sets(set, fk.columns())) {
                        parentsNeeded.add(fk.otherTable());
                    }
                }
            }
            if (kind != StatementDescription.Kind.INSERT) {
                for (ForeignKey fk : table.referencedBy()) {
                    if (kind == StatementDescription.Kind.DELETE || sets(set, fk.columns())) {
                        childrenMustBeGone.add(fk.otherTable());
                    }
                }
            }
        }

        public void clear() {
            parentsNeeded.clear();
            childrenMustBeGone.clear();
        }
    }

    private static final Object NULL = new Object();

    /** The parameter index filling each of {@code wanted}, or {@code null} when one is not filled by a parameter. */
    private static int[] parameters(List<String> parameterColumns, List<String> wanted) {
        if (parameterColumns == null) {
            return null;
        }
        int[] indexes = new int[wanted.size()];
        for (int k = 0; k < wanted.size(); k++) {
            indexes[k] = parameterColumns.indexOf(wanted.get(k));
            if (indexes[k] < 0) {
                return null; // a default fills it: not known here
            }
        }
        return indexes;
    }

    private static boolean anyNull(Bind[] row, int[] parameters) {
        for (int p : parameters) {
            if (row[p].isNull()) {
                return true;
            }
        }
        return false;
    }

    /** The values as compared by the server, or {@code null} when one cannot be compared in Java. */
    private static List<Object> tuple(Bind[] row, int[] parameters, List<String> columns, TableInfo table) {
        List<Object> values = new ArrayList<>(parameters.length);
        for (int k = 0; k < parameters.length; k++) {
            Bind bind = row[parameters[k]];
            if (bind.isNull()) {
                values.add(NULL);
                continue;
            }
            Object normalized = normalized(bind.value(), table.column(columns.get(k)));
            if (normalized == null) {
                return null;
            }
            values.add(normalized);
        }
        return values;
    }

    /**
     * A value whose Java equality is PostgreSQL's equality in {@code column}, or {@code null}: integral values in
     * integer and numeric columns (1, 1L and 1.0 are one key), strings in text columns of a deterministic collation other
     * than {@code char(n)} (which ignores trailing spaces), UUIDs in uuid columns.
     */
    private static Object normalized(Object value, ColumnInfo column) {
        if (column == null) {
            return null;
        }
        switch (column.typeOid()) {
            case Oid.INT2, Oid.INT4, Oid.INT8, Oid.NUMERIC -> {
                BigDecimal number = value instanceof Integer
                                || value instanceof Long
                                || value instanceof Short
                                || value instanceof Byte
                        ? BigDecimal.valueOf(((Number) value).longValue())
                        : value instanceof BigInteger big
                                ? new BigDecimal(big)
                                : value instanceof BigDecimal decimal ? decimal : null;
                // a fraction is rounded to the column's scale (and to an integer in integer columns): not compared
                return number == null || number.stripTrailingZeros().scale() > 0
                        ? null
                        : List.of("n", number.stripTrailingZeros().toBigIntegerExact());
            }
            case Oid.TEXT, Oid.VARCHAR -> {
                return value instanceof String text && column.deterministic() ? List.of("s", text) : null;
            }
            case Oid.UUID -> {
                return value instanceof java.util.UUID uuid ? List.of("u", uuid) : null;
            }
            default -> {
                return null;
            }
        }
    }
}
