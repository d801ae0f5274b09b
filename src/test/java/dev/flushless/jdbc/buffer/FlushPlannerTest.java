package dev.flushless.jdbc.buffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Pure unit tests of how a transaction's buffered INSERTs become statements: SQL in, SQL out. */
class FlushPlannerTest {

    private static final SqlAnalyzer ANALYZER = new SqlAnalyzer(64);

    private static TableInfo table(long oid, long... children) {
        long[] family = new long[children.length + 1];
        family[0] = oid;
        System.arraycopy(children, 0, family, 1, children.length);
        return new TableInfo(
                oid,
                null,
                null,
                false,
                Map.of("id", new ColumnInfo("id", 23, "integer", true), "v", new ColumnInfo("v", 25, "text", true)),
                family);
    }

    private static BufferedWrite write(String sql, TableInfo table, int rows) {
        StatementDescription d = ANALYZER.describe(sql);
        List<Bind[]> bound = new ArrayList<>();
        for (int r = 0; r < rows; r++) {
            Bind[] row = new Bind[d.parameterCount()];
            for (int p = 0; p < row.length; p++) {
                row[p] = p == 0 ? Bind.ofInt(r) : Bind.ofString("v" + r);
            }
            bound.add(row);
        }
        return new BufferedWrite(d, table, bound, false, rows > 1);
    }

    private static List<Step> plan(BufferedWrite... writes) {
        return FlushPlanner.plan(Arrays.asList(writes), SessionFacts.UNKNOWN, 4096);
    }

    @Test
    void insertsIntoThreeTablesBecomeOneChainedStatementCheckingEachCount() {
        List<Step> steps = plan(
                write("INSERT INTO a (id, v) VALUES (?, ?)", table(1), 1),
                write("INSERT INTO b (id, v) VALUES (?, ?)", table(2), 1),
                write("INSERT INTO c (id) VALUES (?);", table(3), 1));
        assertEquals(1, steps.size());
        assertEquals(
                "WITH flushless_s1 AS (INSERT INTO a (id, v) VALUES (?, ?)\nRETURNING 1),\n"
                        + "flushless_s2 AS (INSERT INTO b (id, v) VALUES (?, ?)\nRETURNING 1),\n"
                        + "flushless_s3 AS (INSERT INTO c (id) VALUES (?)\nRETURNING 1)\n"
                        + "SELECT CASE WHEN (SELECT count(*) FROM flushless_s1) = CAST(? AS bigint)"
                        + " AND (SELECT count(*) FROM flushless_s2) = CAST(? AS bigint)"
                        + " AND (SELECT count(*) FROM flushless_s3) = CAST(? AS bigint) THEN 0"
                        + " ELSE CAST('flushless: rows inserted by buffered INSERTs: ' || concat_ws(', ',"
                        + " (SELECT count(*) FROM flushless_s1), (SELECT count(*) FROM flushless_s2),"
                        + " (SELECT count(*) FROM flushless_s3)) AS bigint) END",
                steps.get(0).sql());
        // 2 + 2 + 1 values, then the three expected counts
        assertEquals(8, steps.get(0).tail().length);
        assertEquals(
                List.of(1L, 1L, 1L),
                Arrays.stream(steps.get(0).tail()).skip(5).map(Bind::value).toList());
    }

    @Test
    void consecutiveExecutionsOfOneTextBecomeOneMultiRowMember() {
        BufferedWrite one = write("INSERT INTO a (id, v) VALUES (?, ?)", table(1), 1);
        List<Step> steps = plan(one, one, one, write("INSERT INTO b (id) VALUES (?)", table(2), 2));
        assertEquals(1, steps.size());
        String sql = steps.get(0).sql();
        assertEquals(2, sql.split("RETURNING 1").length - 1, sql);
        assertEquals(
                "INSERT INTO a (id, v) VALUES (?, ?), (?, ?), (?, ?)",
                sql.substring("WITH flushless_s1 AS (".length(), sql.indexOf("\nRETURNING 1")),
                "without session facts the tuple is repeated");
        assertEquals(
                List.of(3L, 2L),
                Arrays.stream(steps.get(0).tail()).skip(8).map(Bind::value).toList());
    }

    @Test
    void aTableWrittenTwiceStartsANewStatementSoItsRowsKeepTheirOrder() {
        List<Step> steps = plan(
                write("INSERT INTO a (id) VALUES (?)", table(1), 1),
                write("INSERT INTO b (id) VALUES (?)", table(2), 1),
                write("INSERT INTO a (id, v) VALUES (?, ?)", table(1), 1),
                write("INSERT INTO child (id) VALUES (?)", table(4), 1),
                write("INSERT INTO parent (id) VALUES (?)", table(3, 4), 1));
        assertEquals(3, steps.size(), "a, b | a, child | parent (whose family includes child)");
        assertEquals(2, steps.get(0).sql().split("RETURNING 1").length - 1);
        assertEquals(2, steps.get(1).sql().split("RETURNING 1").length - 1);
        assertEquals(1, steps.get(2).sql().split("RETURNING 1").length - 1);
    }

    @Test
    void aStatementStaysWithinTheBindParameterLimit() {
        // 40,000 rows of 2 parameters as VALUES members of at most 32,767 rows: never two members over 65,535
        List<Step> steps = FlushPlanner.plan(
                List.of(
                        write("INSERT INTO a (id, v) VALUES (?, ?)", table(1), 40_000),
                        write("INSERT INTO b (id, v) VALUES (?, ?)", table(2), 1)),
                SessionFacts.UNKNOWN,
                65_535);
        for (Step step : steps) {
            assertEquals(true, step.tail().length <= 65_535, "parameters: " + step.tail().length);
        }
        assertEquals(2, steps.size(), "32,767 rows and their count | 7,233 rows, then b's row");
    }

    @Test
    void readsKnowTheirTablesOnlyWhenTheyProvablyReadNothingElse() {
        assertEquals(
                List.of(), ANALYZER.describe("select nextval('purchase_seq')").tablesRead());
        assertEquals(
                List.of("orders"),
                ANALYZER.describe("SELECT count(*) FROM orders WHERE id = ?").tablesRead());
        assertEquals(
                java.util.Set.of("public.a", "b"),
                java.util.Set.copyOf(
                        ANALYZER.describe("select x.id from public.a x join b on b.id = x.id where x.v = lower(?)")
                                .tablesRead()));
        assertNull(
                ANALYZER.describe("SELECT my_function(id) FROM orders").tablesRead(),
                "a user function could read anything");
        assertNull(ANALYZER.describe("SELECT * FROM orders FOR UPDATE").tablesRead());
        assertNull(ANALYZER.describe("WITH d AS (DELETE FROM a RETURNING *) SELECT * FROM d")
                .tablesRead());
        assertNull(ANALYZER.describe("SELECT * INTO copy FROM orders").tablesRead());
        assertNull(ANALYZER.describe("SELECT 1; SELECT 2").tablesRead());
        assertNull(ANALYZER.describe("INSERT INTO a (id) VALUES (1)").tablesRead());
    }
}
