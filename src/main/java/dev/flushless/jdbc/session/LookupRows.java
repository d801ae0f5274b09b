package dev.flushless.jdbc.session;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.ForeignKey;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.session.TableCatalog.UniqueKey;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows of {@link CatalogSql#LOOKUP}: table facts on every row, one row per column. */
final class LookupRows {
    private final Map<String, ColumnInfo> columns = new LinkedHashMap<>();
    private String kindProblem = "table not found";
    private String userCode;
    private long oid;
    private boolean cascades;
    private long[] family = new long[0];
    private boolean drawsFromSequences = true;
    private String[] uniqueIndexes = new String[0];
    private String uniquenessNotModelled;
    private long[] reach = new long[0];
    private List<ForeignKey> references = List.of();
    private List<ForeignKey> referencedBy = List.of();
    private final java.util.Set<String> notCopyable = new java.util.HashSet<>();
    private boolean familyNotPlain;

    private static List<ForeignKey> foreignKeys(java.sql.Array array) throws SQLException {
        if (array == null) {
            return List.of();
        }
        List<ForeignKey> keys = new ArrayList<>();
        for (Object entry : (Object[]) array.getArray()) {
            if (entry == null) {
                throw Errors.unexpected("Flushless could not read a foreign key's columns from the catalog");
            }
            String[] parts = ((String) entry).split("\u001e", -1);
            keys.add(new ForeignKey(Long.parseLong(parts[0]), names(parts[1]), names(parts[2])));
        }
        return List.copyOf(keys);
    }

    private static List<String> names(String joined) {
        return joined.isEmpty() ? List.of() : List.of(joined.substring(1).split("\u001f", -1));
    }

    void read(ResultSet rs) throws SQLException {
        boolean first = true;
        while (rs.next()) {
            if (first) {
                oid = rs.getLong(1);
                cascades = rs.getBoolean(3);
                String relkind = rs.getString(2);
                kindProblem = "r".equals(relkind) || "p".equals(relkind)
                        ? null
                        : "target is not a plain table (relkind " + relkind + ")";
                userCode = rs.getBoolean(4)
                        ? "table has user triggers"
                        : rs.getBoolean(5)
                                ? "table has rules"
                                : rs.getBoolean(6) ? "table has row-level security" : null;
                java.sql.Array members = rs.getArray(11);
                if (members != null) {
                    Object[] oids = (Object[]) members.getArray();
                    family = new long[oids.length];
                    for (int i = 0; i < oids.length; i++) {
                        family[i] = ((Number) oids[i]).longValue();
                    }
                }
                drawsFromSequences = rs.getBoolean(12);
                java.sql.Array unique = rs.getArray(14);
                if (unique != null) {
                    Object[] entries = (Object[]) unique.getArray();
                    uniqueIndexes = java.util.Arrays.copyOf(entries, entries.length, String[].class);
                }
                uniquenessNotModelled = rs.getBoolean(15)
                        ? "table has a unique index on an expression"
                        : rs.getBoolean(16) ? "table has an exclusion constraint" : null;
                java.sql.Array up = rs.getArray(17);
                if (up != null) {
                    Object[] oids = (Object[]) up.getArray();
                    reach = new long[oids.length];
                    for (int i = 0; i < oids.length; i++) {
                        reach[i] = ((Number) oids[i]).longValue();
                    }
                }
                references = foreignKeys(rs.getArray(18));
                referencedBy = foreignKeys(rs.getArray(19));
                familyNotPlain = rs.getBoolean(21);
                first = false;
            }
            String name = rs.getString(7);
            if (name != null) {
                int typmod = rs.getInt(13);
                int typeOid = rs.getInt(8);
                boolean limited =
                        (typeOid == org.postgresql.core.Oid.VARCHAR || typeOid == org.postgresql.core.Oid.BPCHAR)
                                && typmod > 4;
                if (rs.getBoolean(20)) {
                    notCopyable.add(name);
                }
                columns.put(
                        name,
                        new ColumnInfo(name, typeOid, rs.getString(9), rs.getBoolean(10), limited ? typmod - 4 : -1));
            }
        }
    }

    TableInfo info() {
        List<UniqueKey> uniqueKeys = new ArrayList<>();
        for (String index : uniqueIndexes) {
            String[] parts = index.split("\u001f");
            uniqueKeys.add(new UniqueKey(
                    List.of(parts).subList(1, parts.length), parts[0].charAt(0) == 'N', parts[0].charAt(1) == 'E'));
        }
        return new TableInfo(
                oid,
                kindProblem,
                userCode,
                cascades,
                java.util.Collections.unmodifiableMap(new LinkedHashMap<>(columns)), // in the table's column order
                family,
                drawsFromSequences,
                List.copyOf(uniqueKeys),
                uniquenessNotModelled,
                reach,
                references,
                referencedBy,
                familyNotPlain ? null : java.util.Set.copyOf(notCopyable));
    }
}
