package dev.flushless.jdbc.session;

/**
 * The SQL texts {@link TableCatalog} reads the catalog with: {@link #LOOKUP} for a table's facts ({@link LookupRows}
 * reads its rows), {@link #CONFLICT_COLUMNS} and {@link #CONFLICT_INDEXES} for {@link ConflictFacts}. Each runs
 * through {@link CatalogQuery} (see there for the locks they do not take or hold).
 */
final class CatalogSql {

    private CatalogSql() {}

    /**
     * Whether the default expression of the {@code pg_attrdef} row {@code ad} draws from a sequence: it calls a function
     * (explicitly, or in SQL syntax such as {@code EXTRACT}) other than a few clock and UUID built-ins, or uses a
     * function or operator from outside {@code pg_catalog} anywhere (even as a cast). Read from the stored expression
     * tree ({@code adbin}) as text, never through {@code pg_get_expr}: deparsing opens, and so locks, the relation the
     * expression belongs to, and a lookup that scans the defaults of other tables would then wait for any session
     * holding an exclusive lock on one of them (a migration's open {@code ALTER TABLE}), where bare pgjdbc's INSERT
     * waits for nothing (lock neutrality, docs/semantics.md). The patterns use no backslash (the text must mean the
     * same with {@code standard_conforming_strings} off) and no question mark (pgjdbc would take it for a parameter).
     * {@code funcformat} 0 is an explicit call and 3 SQL syntax (PostgreSQL 14+); 1 and 2 are casts.
     */
    private static final String DRAWS_FROM_SEQUENCE = "(EXISTS (SELECT 1 FROM pg_catalog.regexp_matches(ad.adbin::text,"
            + " '[{]FUNCEXPR :funcid ([0-9]+) [^{}]*:funcformat ([0-9]+)', 'g') f(m)"
            + " JOIN pg_catalog.pg_proc p ON p.oid = f.m[1]::oid"
            + " WHERE p.proname NOT IN ('now', 'clock_timestamp', 'statement_timestamp', 'transaction_timestamp',"
            + " 'timeofday', 'gen_random_uuid', 'uuid_generate_v4')"
            + " AND (f.m[2] IN ('0', '3') OR p.pronamespace <> 'pg_catalog'::regnamespace))"
            + " OR EXISTS (SELECT 1 FROM pg_catalog.regexp_matches(ad.adbin::text,"
            + " '[{](OPEXPR|DISTINCTEXPR|NULLIFEXPR|SCALARARRAYOPEXPR) :opno ([0-9]+)', 'g') o(m)"
            + " JOIN pg_catalog.pg_operator op ON op.oid = o.m[2]::oid"
            + " WHERE op.oprnamespace <> 'pg_catalog'::regnamespace))";

    /** A foreign key's columns as names, {@code side} 'con' (referencing) or 'conf' (referenced), U+001F before each. */
    private static String keyNames(String side) {
        return "(SELECT string_agg(chr(31) || ka.attname, '' ORDER BY k.n) FROM unnest(fk." + side + "key::int2[])"
                + " WITH ORDINALITY k(attnum, n) JOIN pg_catalog.pg_attribute ka ON ka.attrelid = fk." + side + "relid"
                + " AND ka.attnum = k.attnum)";
    }

    static final String LOOKUP = "WITH RECURSIVE target AS (SELECT to_regclass(?) AS oid),"
            + " tree(relid) AS (SELECT oid FROM target WHERE oid IS NOT NULL"
            + "   UNION SELECT i.inhrelid FROM pg_catalog.pg_inherits i JOIN tree ON i.inhparent = tree.relid),"
            + " up(relid) AS (SELECT relid FROM tree"
            + "   UNION SELECT i.inhparent FROM pg_catalog.pg_inherits i JOIN up ON i.inhrelid = up.relid),"
            // the family as one array, so that each catalog below is read through its index on the table's oid
            + " fam AS (SELECT array_agg(relid::oid) AS f FROM tree)"
            + " SELECT c.oid::bigint, c.relkind::text,"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_constraint fk WHERE fk.contype = 'f' AND fk.confrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND (fk.confdeltype NOT IN ('a', 'r') OR fk.confupdtype NOT IN ('a', 'r'))),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_trigger tg WHERE tg.tgrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND NOT tg.tgisinternal),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_class pc WHERE pc.oid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND pc.relhasrules),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_class pc WHERE pc.oid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND pc.relrowsecurity),"
            + "  a.attname, a.atttypid::int, pg_catalog.format_type(a.atttypid, NULL),"
            // collisdeterministic is PostgreSQL 12+ (YugabyteDB releases based on PostgreSQL 11 lack it: all
            // deterministic)
            + "  a.attcollation IN (0, 100) OR coalesce((SELECT (to_jsonb(co) ->> 'collisdeterministic')::boolean"
            + "            FROM pg_catalog.pg_collation co WHERE co.oid = a.attcollation), true),"
            + "  (SELECT array_agg(relid::bigint) FROM tree),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_attribute ia WHERE ia.attrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND ia.attnum > 0 AND NOT ia.attisdropped AND ia.attidentity <> '')"
            + "  OR EXISTS (SELECT 1 FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND " + DRAWS_FROM_SEQUENCE + "),"
            + "  a.atttypmod,"
            // unique indexes on plain columns of the table and its descendants: 'N' (NULLS NOT DISTINCT) or 'D', 'E'
            // (enforced on the table itself: valid, not partial, immediate) or '-', then the key columns' names,
            // each after a U+001F
            + "  ARRAY(SELECT DISTINCT CASE WHEN coalesce((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false)"
            + "        THEN 'N' ELSE 'D' END || CASE WHEN i.indisvalid AND i.indimmediate AND i.indpred IS NULL"
            + "        AND i.indrelid = (SELECT oid FROM target) THEN 'E' ELSE '-' END || (SELECT string_agg(chr(31) || ia.attname, '' ORDER BY k.n)"
            + "          FROM unnest((i.indkey::int2[])[0:i.indnkeyatts - 1]) WITH ORDINALITY k(attnum, n)"
            + "          JOIN pg_catalog.pg_attribute ia ON ia.attrelid = i.indrelid AND ia.attnum = k.attnum)"
            + "        FROM pg_catalog.pg_index i WHERE i.indrelid = ANY((SELECT f FROM fam)::oid[]) AND i.indisunique"
            + "        AND i.indexprs IS NULL),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_index i WHERE i.indrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND i.indisunique AND i.indexprs IS NOT NULL),"
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_constraint x WHERE x.conrelid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND x.contype = 'x'),"
            // the tables whose rows a write to this one can change (its family and their ancestors), then its foreign
            // keys each way: the other table's oid, U+001E, this side's columns, U+001E, the other side's
            + "  (SELECT array_agg(relid::bigint) FROM up),"
            + "  ARRAY(SELECT fk.confrelid::bigint || chr(30) || " + keyNames("con") + " || chr(30) || "
            + keyNames("conf")
            + "        FROM pg_catalog.pg_constraint fk WHERE fk.contype = 'f' AND fk.conrelid = ANY((SELECT f FROM fam)::oid[])),"
            + "  ARRAY(SELECT fk.conrelid::bigint || chr(30) || " + keyNames("conf") + " || chr(30) || "
            + keyNames("con")
            + "        FROM pg_catalog.pg_constraint fk WHERE fk.contype = 'f' AND fk.confrelid = ANY((SELECT f FROM fam)::oid[])),"
            // COPY stores a value given for an identity column GENERATED ALWAYS (an INSERT fails with 428C9) and
            // rejects one for a generated column with another error than the INSERT's: such columns keep the INSERT
            // forms (attgenerated is PostgreSQL 12+, read through to_jsonb)
            + "  a.attidentity = 'a' OR coalesce(to_jsonb(a) ->> 'attgenerated', '') <> '',"
            // a member of the family that is not a plain table or partitioned table (a foreign partition)
            + "  EXISTS (SELECT 1 FROM pg_catalog.pg_class pc WHERE pc.oid = ANY((SELECT f FROM fam)::oid[])"
            + "          AND pc.relkind NOT IN ('r', 'p'))"
            + " FROM target JOIN pg_catalog.pg_class c ON c.oid = target.oid"
            + " LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped"
            + " ORDER BY a.attnum";

    /** Columns and table facts for {@link ConflictFacts} (catalog columns of later releases read through to_jsonb). */
    static final String CONFLICT_COLUMNS = "SELECT c.relkind::text,"
            + " EXISTS (SELECT 1 FROM pg_catalog.pg_inherits i WHERE i.inhparent = c.oid),"
            + " EXISTS (SELECT 1 FROM pg_catalog.pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'c'),"
            + " a.attname, a.atttypmod, pg_catalog.format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef,"
            + " coalesce(to_jsonb(a) ->> 'attgenerated', '') <> '',"
            + " a.attidentity <> '' OR EXISTS (SELECT 1 FROM pg_catalog.pg_attrdef ad WHERE ad.adrelid = c.oid"
            + "   AND ad.adnum = a.attnum AND " + DRAWS_FROM_SEQUENCE + "),"
            + " EXISTS (SELECT 1 FROM pg_catalog.pg_type t WHERE t.oid = a.atttypid AND t.typtype = 'd' AND t.typtypmod >= 0)"
            + " FROM pg_catalog.pg_class c JOIN pg_catalog.pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0"
            + " AND NOT a.attisdropped WHERE c.oid = CAST(? AS bigint)::oid ORDER BY a.attnum";

    /** The table's unique indexes for {@link ConflictFacts}. */
    static final String CONFLICT_INDEXES = "SELECT ic.relname, i.indimmediate, i.indisvalid,"
            + " i.indpred IS NOT NULL, i.indexprs IS NOT NULL,"
            + " coalesce((to_jsonb(i) ->> 'indnullsnotdistinct')::boolean, false),"
            + " ARRAY(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(attnum, n)"
            + "   LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum"
            + "   WHERE k.n <= i.indnkeyatts ORDER BY k.n),"
            + " NOT EXISTS (SELECT 1 FROM unnest(i.indcollation::oid[]) u(coll) JOIN pg_catalog.pg_collation co"
            + "   ON co.oid = u.coll WHERE NOT coalesce((to_jsonb(co) ->> 'collisdeterministic')::boolean, true)),"
            + " NOT EXISTS (SELECT 1 FROM unnest(i.indclass::oid[]) u(cls) JOIN pg_catalog.pg_opclass oc"
            + "   ON oc.oid = u.cls WHERE NOT oc.opcdefault)"
            + " FROM pg_catalog.pg_index i JOIN pg_catalog.pg_class ic ON ic.oid = i.indexrelid"
            + " WHERE i.indrelid = CAST(? AS bigint)::oid AND i.indisunique ORDER BY ic.relname";
}
