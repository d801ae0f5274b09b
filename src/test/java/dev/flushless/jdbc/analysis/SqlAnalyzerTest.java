package dev.flushless.jdbc.analysis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.rewrite.Rewriter;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Pure unit tests of the analysis and the rewriters: SQL in, SQL out. */
class SqlAnalyzerTest {

    private static StatementDescription describe(String sql) {
        return SqlAnalyzer.analyse(sql);
    }

    @Test
    void insertValuesIsRepeatedFromTheApplicationsOwnText() {
        StatementDescription d = describe("insert into \"My\".t (a, \"B\") values (?, ?::jsonb) -- note ?\n;");
        assertNull(d.fallbackReason());
        assertEquals(List.of("a", "B"), d.insertColumns());
        assertEquals(
                "insert into \"My\".t (a, \"B\") values (?, ?::jsonb), (?, ?::jsonb), (?, ?::jsonb)",
                Rewriter.insertValues(d, 3, null));
        assertEquals(
                "insert into \"My\".t (a, \"B\") values (?, ?::jsonb)\nRETURNING *",
                Rewriter.insertValues(d, 1, "\nRETURNING *"));
    }

    @Test
    void questionMarksInLiteralsCommentsAndQuotedNamesAreNotParameters() {
        StatementDescription d = describe("INSERT INTO t (\"a?\", b) VALUES (?, '?') /* ? */");
        assertNull(d.fallbackReason());
        assertEquals(1, d.parameterCount());
        assertEquals(
                "INSERT INTO t (\"a?\", b) VALUES (?, '?'), (?, '?') /* ? */".replace(" /* ? */", ""),
                Rewriter.insertValues(d, 2, null));
    }

    @Test
    void updateBecomesAJoinWithAVaulesListAndReturnsOrdinals() {
        StatementDescription d =
                describe("UPDATE item SET name = ?, version = version + 1 WHERE id = ? AND version = ?");
        assertNull(d.fallbackReason());
        assertEquals(2, d.keys().size());
        assertEquals(
                "UPDATE item SET name = flushless_v.flushless_p1, version = version + 1  FROM (VALUES"
                        + " (1, CAST(? AS text), CAST(? AS integer), ?), (2, CAST(? AS text), CAST(? AS integer), ?))"
                        + " AS flushless_v(flushless_ord, flushless_p1, flushless_p2, flushless_p3) WHERE id ="
                        + " flushless_v.flushless_p2 AND version = flushless_v.flushless_p3 RETURNING flushless_v.flushless_ord",
                Rewriter.keyedDml(d, 2, new String[] {"text", "integer", null}));
    }

    @Test
    void arrayFormsKeepOneTextForAnyRowCount() {
        StatementDescription insert = describe("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO NOTHING");
        assertEquals(List.of("a", "b"), insert.parameterColumns());
        assertEquals(
                "INSERT INTO t (a, b) SELECT flushless_v.flushless_p1, flushless_v.flushless_p2 FROM"
                        + " unnest(CAST(? AS text[])::integer[], CAST(? AS text[])) WITH ORDINALITY AS"
                        + " flushless_v(flushless_p1, flushless_p2, flushless_ord) ORDER BY flushless_v.flushless_ord"
                        + " ON CONFLICT (a) DO NOTHING\nRETURNING \"a\"",
                Rewriter.insertUnnest(insert, new String[] {"integer", "text"}, "\nRETURNING \"a\""));
        StatementDescription update = describe("UPDATE t SET v = ? WHERE id = ?");
        assertEquals(
                "WITH flushless_dml AS (UPDATE t SET v = flushless_v.flushless_p1  FROM"
                        + " unnest(CAST(? AS text[])::numeric[], CAST(? AS bigint[])) WITH ORDINALITY AS"
                        + " flushless_v(flushless_p1, flushless_p2, flushless_ord) WHERE id = flushless_v.flushless_p2"
                        + " RETURNING flushless_v.flushless_ord)\nSELECT array_agg(flushless_ord) FROM flushless_dml",
                Rewriter.keyedDmlUnnest(update, new String[] {"numeric", "bigint"}, new boolean[] {false, true}));
        assertEquals(null, describe("INSERT INTO t (a, b) VALUES (?, now())").parameterColumns());
    }

    @Test
    void anInsertWithoutAColumnListIsPositionalOnlyWhenItsTupleIsAllParameters() {
        assertTrue(describe("INSERT INTO stock VALUES (?, ?, ?)").positionalTuple());
        assertTrue(describe("insert into stock values ( ? , /* two */ ?\n, ?)").positionalTuple());
        assertFalse(describe("INSERT INTO stock VALUES (?, 1, ?)").positionalTuple());
        assertFalse(describe("INSERT INTO stock VALUES (?, now())").positionalTuple());
        assertFalse(describe("INSERT INTO stock (a, b) VALUES (?, ?)").positionalTuple());
        assertFalse(describe("UPDATE stock SET a = ? WHERE b = ?").positionalTuple());
    }

    @Test
    void keyedRowsCoveringAUniqueKeyReturnOrdinalsOnlyWhenNotAPrefix() {
        StatementDescription update = describe("UPDATE t SET v = ? WHERE id = ?");
        assertEquals(
                "WITH flushless_dml AS (UPDATE t SET v = flushless_v.flushless_p1  FROM"
                        + " unnest(CAST(? AS integer[]), CAST(? AS bigint[])) WITH ORDINALITY AS"
                        + " flushless_v(flushless_p1, flushless_p2, flushless_ord) WHERE id = flushless_v.flushless_p2"
                        + " RETURNING flushless_v.flushless_ord)\nSELECT count(*), max(flushless_ord), CASE WHEN count(*) ="
                        + " max(flushless_ord) THEN NULL ELSE array_agg(flushless_ord) END FROM flushless_dml",
                Rewriter.keyedDmlUnnestCounted(update, new String[] {"integer", "bigint"}, new boolean[] {true, true}));
    }

    @Test
    void updateOfAUniqueColumnChecksTheBatchOrderInTheStatement() {
        StatementDescription update = describe("UPDATE t AS x SET code = ?, n = ? WHERE x.id = ?");
        String sql = Rewriter.keyedUpdateInOrderUnnest(
                update,
                new String[] {"text", "integer", "bigint"},
                new boolean[] {false, true, true},
                List.of(
                        new Rewriter.UniqueCheck(List.of("code"), false),
                        new Rewriter.UniqueCheck(List.of("n", "code"), true)));
        assertEquals(
                "WITH flushless_v AS (SELECT * FROM unnest(CAST(? AS text[]), CAST(? AS integer[]), CAST(? AS bigint[]))"
                        + " WITH ORDINALITY AS flushless_v(flushless_p1, flushless_p2, flushless_p3, flushless_ord)),\n"
                        + "flushless_old AS (SELECT flushless_v.flushless_ord, \"code\" AS flushless_u1, \"n\" AS flushless_u2"
                        + " FROM t AS x, flushless_v WHERE x.id = flushless_v.flushless_p3),\n"
                        + "flushless_dml AS (UPDATE t AS x SET code = flushless_v.flushless_p1, n = flushless_v.flushless_p2"
                        + "  FROM flushless_v WHERE x.id = flushless_v.flushless_p3 RETURNING flushless_v.flushless_ord,"
                        + " \"code\" AS flushless_u1, \"n\" AS flushless_u2)\n"
                        + "SELECT CASE WHEN flushless_c.n = 0 THEN flushless_a.o ELSE ARRAY[CAST('"
                        + Rewriter.UNIQUE_ORDER_MARKER
                        + ", keys: ' || flushless_c.n AS bigint)] END\n"
                        + "FROM (SELECT CAST(array_agg(flushless_ord) AS bigint[]) AS o FROM flushless_dml) AS flushless_a,\n"
                        + " (SELECT (SELECT count(*) FROM (SELECT min(flushless_ord) FILTER (WHERE flushless_side = 1) AS"
                        + " flushless_m, max(flushless_ord) FILTER (WHERE flushless_side = 2) AS flushless_x FROM (SELECT"
                        + " flushless_ord, flushless_u1, 1 AS flushless_side FROM flushless_dml UNION ALL SELECT"
                        + " flushless_ord, flushless_u1, 2 FROM flushless_old) AS flushless_b WHERE flushless_u1 IS NOT NULL"
                        + " GROUP BY flushless_u1) AS flushless_g WHERE flushless_g.flushless_x > flushless_g.flushless_m)"
                        + " + (SELECT count(*) FROM (SELECT min(flushless_ord) FILTER (WHERE flushless_side = 1) AS"
                        + " flushless_m, max(flushless_ord) FILTER (WHERE flushless_side = 2) AS flushless_x FROM (SELECT"
                        + " flushless_ord, flushless_u2, flushless_u1, 1 AS flushless_side FROM flushless_dml UNION ALL"
                        + " SELECT flushless_ord, flushless_u2, flushless_u1, 2 FROM flushless_old) AS flushless_b GROUP BY"
                        + " flushless_u2, flushless_u1) AS flushless_g WHERE flushless_g.flushless_x >"
                        + " flushless_g.flushless_m) AS n) AS flushless_c",
                sql);
    }

    @Test
    void deleteBecomesUsing() {
        StatementDescription d = describe("DELETE FROM t AS x WHERE x.id = ?");
        assertNull(d.fallbackReason());
        assertEquals(
                "DELETE FROM t AS x  USING (VALUES (1, CAST(? AS bigint))) AS flushless_v(flushless_ord,"
                        + " flushless_p1) WHERE x.id = flushless_v.flushless_p1 RETURNING flushless_v.flushless_ord",
                Rewriter.keyedDml(d, 1, new String[] {"bigint"}));
    }

    @Test
    void shapesThatCannotBeProvenSafeFallBackWithAReason() {
        String[][] cases = {
            {"INSERT INTO t SELECT ?", "INSERT ... SELECT"},
            {"INSERT INTO t VALUES (?), (?)", "several VALUES rows"},
            {"INSERT INTO t VALUES ((SELECT max(id) FROM t) + ?)", "not proven row-independent"},
            {"INSERT INTO t VALUES (my_func(?))", "not proven row-independent"},
            {"INSERT INTO t VALUES (?) ON CONFLICT DO NOTHING", "ON CONFLICT"},
            {"INSERT INTO t VALUES (?) RETURNING (SELECT ?)", "parameter outside"},
            {"UPDATE t SET a = ? WHERE id = ? OR id = ?", "WHERE conjunct"},
            {"UPDATE t SET a = a * ? + ? WHERE id = ?", "SET expression"},
            {"UPDATE t SET id = ? WHERE id = ?", "every column"},
            {"UPDATE t SET a = ? FROM u WHERE t.id = u.id AND u.x = ?", "FROM"},
            {"UPDATE t SET a = ?", "without WHERE"},
            {"UPDATE t SET n = n + 1 WHERE name = 'x'", "no column = ? conjunct"},
            {"DELETE FROM t WHERE id IN (?, ?)", "WHERE conjunct"},
            {"DELETE FROM t WHERE id = ? RETURNING *", "RETURNING"},
            {"INSERT INTO t VALUES (?); DELETE FROM t", "several statements"},
            {"SELECT ?", "not an INSERT"},
            {"INSERT INTO t VALUES (E'x\\'y', ?)", "parser"},
            {"INSERT INTO t VALUES ('unterminated", "not analysable"},
            {"INSERT INTO t VALUES ({fn now()})", "not analysable"},
        };
        for (String[] c : cases) {
            String reason = describe(c[0]).fallbackReason();
            assertTrue(reason != null && reason.contains(c[1]), c[0] + " -> " + reason);
        }
    }

    @Test
    void leadingKindSkipsCommentsAndParentheses() {
        assertEquals(StatementDescription.Kind.DDL, SqlAnalyzer.leadingKind("/* x */ -- y\n  create table t()"));
        assertEquals(StatementDescription.Kind.SELECT, SqlAnalyzer.leadingKind("(select 1)"));
        assertEquals(StatementDescription.Kind.SESSION, SqlAnalyzer.leadingKind("SET search_path = x"));
        assertEquals(StatementDescription.Kind.INSERT, SqlAnalyzer.leadingKind("insert into t values (1)"));
    }

    @Test
    void cacheIsBounded() {
        SqlAnalyzer analyzer = new SqlAnalyzer(16);
        for (int i = 0; i < 1000; i++) {
            analyzer.describe("INSERT INTO t VALUES (?, " + i + ")");
        }
        assertEquals(16, analyzer.cachedCount());
    }

    @Test
    void threadsAskingForTheSameNewTextTogetherAnalyseItOnce() throws Exception {
        SqlAnalyzer analyzer = new SqlAnalyzer(16);
        int threads = 16;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 20; round++) {
                String sql = "SELECT c.name, o.total FROM customer c JOIN orders o ON o.customer_id = c.id"
                        + " WHERE c.id = ? AND o.placed > now() - interval '" + round + " days'";
                List<java.util.concurrent.Future<StatementDescription>> asked = new java.util.ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    asked.add(pool.submit(() -> {
                        start.await();
                        return analyzer.describe(sql);
                    }));
                }
                StatementDescription first = asked.get(0).get();
                for (java.util.concurrent.Future<StatementDescription> answer : asked) {
                    assertTrue(first == answer.get(), "every thread got the one analysis");
                }
                assertEquals(round + 1, analyzer.analysesRun(), "one analysis per text, round " + round);
            }
        } finally {
            pool.shutdownNow();
        }
    }
}
