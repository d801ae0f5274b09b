package dev.flushless.jdbc.testing;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a migration tool left in a database's {@code public} schema, for comparing a run through Flushless with
 * the same run through bare pgjdbc: columns, constraints, indexes, triggers, functions, views, sequence positions
 * and every table's rows (as row text, sorted). Uses only catalogs present in PostgreSQL 11 to 18.
 */
public final class SchemaSnapshot {

    private SchemaSnapshot() {}

    /**
     * The snapshot of {@code db}; the rows of the tables in {@code skipRowsOf} (a tool's history table, compared
     * separately without its timestamps) are left out.
     */
    public static Map<String, List<List<String>>> of(TestDatabase db, Set<String> skipRowsOf) throws SQLException {
        Map<String, List<List<String>>> snapshot = new LinkedHashMap<>();
        snapshot.put(
                "columns",
                db.rows("SELECT table_name, column_name, ordinal_position::text, data_type,"
                        + " column_default, is_nullable, is_identity FROM information_schema.columns"
                        + " WHERE table_schema = 'public' ORDER BY table_name, ordinal_position"));
        snapshot.put(
                "constraints",
                db.rows("SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid)"
                        + " FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2"));
        snapshot.put(
                "indexes",
                db.rows("SELECT tablename, indexname, indexdef FROM pg_indexes"
                        + " WHERE schemaname = 'public' ORDER BY 1, 2"));
        snapshot.put(
                "triggers",
                db.rows("SELECT tgrelid::regclass::text, tgname, pg_get_triggerdef(oid) FROM pg_trigger"
                        + " WHERE NOT tgisinternal AND tgrelid IN (SELECT oid FROM pg_class"
                        + " WHERE relnamespace = 'public'::regnamespace) ORDER BY 1, 2"));
        snapshot.put(
                "functions",
                db.rows("SELECT proname, pg_get_functiondef(oid) FROM pg_proc"
                        + " WHERE pronamespace = 'public'::regnamespace ORDER BY 1, 2"));
        snapshot.put(
                "views", db.rows("SELECT viewname, definition FROM pg_views WHERE schemaname = 'public' ORDER BY 1"));
        snapshot.put(
                "sequences",
                db.rows("SELECT sequencename, last_value::text FROM pg_sequences"
                        + " WHERE schemaname = 'public' ORDER BY 1"));
        List<List<String>> tables = db.rows("SELECT table_name FROM information_schema.tables"
                + " WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1");
        snapshot.put("tables", tables);
        for (List<String> table : tables) {
            String name = table.get(0);
            if (!skipRowsOf.contains(name)) {
                snapshot.put(
                        "rows of " + name,
                        db.rows("SELECT t::text FROM public.\"" + name.replace("\"", "\"\"") + "\" t ORDER BY 1"));
            }
        }
        return snapshot;
    }
}
