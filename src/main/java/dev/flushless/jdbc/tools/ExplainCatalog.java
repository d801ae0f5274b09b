package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.engine.Engine;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The tables {@code explain} plans against: the {@code --url} database's, read by the driver's own catalog queries,
 * or offline synthetic plain tables (no triggers, rules or row-level security) with the columns the statements name,
 * typed text.
 */
final class ExplainCatalog {

    /** The database of --url, or {@code null} offline. */
    private final ExplainDatabase database;

    /** Offline table identities of the batch sections: one OID per name as written (unquoted names folded). */
    private final Map<String, Long> oids = new HashMap<>();
    /** Offline table identities of the transaction section: one OID per name, compared case-insensitively. */
    private final Map<String, Long> transactionOids = new HashMap<>();

    ExplainCatalog(ExplainDatabase database) {
        this.database = database;
    }

    /** The --url database, or {@code null} offline. */
    ExplainDatabase database() {
        return database;
    }

    boolean offline() {
        return database == null;
    }

    /** The batch sections' catalog: the database's, or offline synthetic tables with {@code columns}. */
    Engine.Catalog forBatch(List<String> columns) {
        return new Engine.Catalog() {
            @Override
            public TableInfo lookup(String table) throws SQLException {
                return database != null ? database.lookup(table) : table(table, columns);
            }

            @Override
            public ConflictFacts conflictFacts(TableInfo table) throws SQLException {
                if (database == null) {
                    throw new SQLException("no conflict facts offline");
                }
                return database.catalog().conflictFacts(database.connection(), table);
            }
        };
    }

    /** A synthetic plain table with {@code columns} typed text; one OID per table name. */
    private TableInfo table(String name, List<String> columns) {
        String key = name == null ? "" : name.contains("\"") ? name : name.toLowerCase(Locale.ROOT);
        long oid = oids.computeIfAbsent(key, k -> 100_000L + oids.size());
        return new TableInfo(oid, null, null, false, textColumns(columns));
    }

    /** The transaction section's table {@code name}: the database's, or offline a synthetic one with {@code columns}. */
    TableInfo transactionTable(String name, List<String> columns) throws SQLException {
        if (database != null) {
            return database.lookup(name);
        }
        long oid = transactionOids.computeIfAbsent(
                tableKey(name == null ? "" : name), k -> 200_000L + transactionOids.size());
        // Offline assumption: the table has the columns the statements name and no identity column or default
        // that draws from a sequence (ids supplied by the application, as Hibernate's pooled ids are).
        return new TableInfo(oid, null, null, false, textColumns(columns), new long[] {oid}, false);
    }

    /**
     * A table name as the transaction section compares it, offline: quotes dropped, lower case, schema left
     * out (so {@code public.Orders} and {@code orders} are taken to be one table: when in doubt, flush).
     */
    static String tableKey(String name) {
        String key = name.replace("\"", "").toLowerCase(Locale.ROOT).strip();
        int dot = key.lastIndexOf('.');
        return dot < 0 ? key : key.substring(dot + 1);
    }

    private static Map<String, ColumnInfo> textColumns(List<String> columns) {
        Map<String, ColumnInfo> info = new LinkedHashMap<>();
        for (String column : columns) {
            info.put(column, new ColumnInfo(column, 25, "text", true));
        }
        return info;
    }
}
