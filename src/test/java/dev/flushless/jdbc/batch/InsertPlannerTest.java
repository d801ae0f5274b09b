package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.PGJDBC;
import static dev.flushless.jdbc.batch.PlannerFixture.arraysOf;
import static dev.flushless.jdbc.batch.PlannerFixture.numbered;
import static dev.flushless.jdbc.batch.PlannerFixture.readTable;
import static dev.flushless.jdbc.batch.PlannerFixture.row;
import static dev.flushless.jdbc.batch.PlannerFixture.rows;
import static dev.flushless.jdbc.batch.PlannerFixture.rowsOf;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sizesOf;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static dev.flushless.jdbc.batch.PlannerFixture.table;
import static dev.flushless.jdbc.batch.PlannerFixture.tailOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Plain INSERT batches planned without a server: forms, chunks, decoding; and the transaction buffer's members. */
class InsertPlannerTest {

    private static final String INSERT = "INSERT INTO t (id, name) VALUES (?, ?)";
    private static final String UNNEST =
            "INSERT INTO t (id, name) SELECT flushless_v.flushless_p1, flushless_v.flushless_p2"
                    + " FROM unnest(CAST(? AS integer[]), CAST(? AS text[])::varchar[]) WITH ORDINALITY"
                    + " AS flushless_v(flushless_p1, flushless_p2, flushless_ord) ORDER BY flushless_v.flushless_ord";
    private static final TableInfo T = table(ID, NAME);

    private static BatchPlan plan(
            String sql, List<Bind[]> rows, String returningSuffix, BatchPlanner.Settings settings) {
        return InsertPlanner.plan(sql(sql), rows, T, returningSuffix, settings);
    }

    @Test
    void typedParametersTravelAsArraysInOneTextPerChunkOfMaxRows() {
        BatchPlan plan = plan(INSERT, numbered(5), null, settings("flushless.maxRowsPerStatement", "2"));
        assertEquals("insert-unnest", plan.rewriteKind());
        assertEquals(List.of(List.of(0, 1), List.of(2, 3), List.of(4)), rowsOf(plan));
        for (Step step : plan.statements()) {
            assertEquals(plan.statements().get(0).sql(), step.sql(), "one SQL text for every chunk");
            assertEquals(Decoding.ONE_PER_ROW, step.decoding());
        }
        assertEquals(
                "WITH flushless_ins AS (" + UNNEST + "\nRETURNING 1)\nSELECT CASE WHEN count(*) = CAST(? AS bigint)"
                        + " THEN count(*) ELSE CAST('flushless: rows inserted by a coalesced INSERT: ' || count(*) AS bigint) END"
                        + " FROM flushless_ins",
                plan.statements().get(0).sql());
        Step first = plan.statements().get(0);
        assertEquals(List.of(List.of(1, 2), List.of("n0", "n1")), arraysOf(first), "id as integers, name as text");
        assertEquals(Integer[].class, first.arrays()[0].getClass());
        assertEquals(List.of(2L), tailOf(first), "the expected count travels as a parameter");
        assertEquals(List.of(1L), tailOf(plan.statements().get(2)));
    }

    @Test
    void integerArraysTakeEachRowsBoxOfTheCastsClassAndNarrowOnlyNarrowerSetters() {
        // id int: setInt travels as integer[]; setShort/setByte (sent as int2) as smallint[]; setLong (int8) as
        // bigint[]
        TableInfo wide = table(ID, new ColumnInfo("n", 20, "bigint", true));
        String insert = "INSERT INTO t (id, n) VALUES (?, ?)";
        Integer big = 1_000_000;
        List<Bind[]> ints = List.of(
                new Bind[] {Bind.ofInt(big), Bind.ofLong(5_000_000_000L)},
                new Bind[] {Bind.ofNull(Types.INTEGER), Bind.ofObject(7L)});
        Step step = InsertPlanner.plan(sql(insert), ints, wide, null, settings())
                .statements()
                .get(0);
        assertEquals(Integer[].class, step.arrays()[0].getClass());
        assertEquals(Long[].class, step.arrays()[1].getClass());
        assertEquals(List.of(Arrays.asList(big, null), List.of(5_000_000_000L, 7L)), arraysOf(step));
        assertTrue(step.arrays()[0][0] == ints.get(0)[0].value, "the recorded box itself, not a copy");
        List<Bind[]> shorts = List.of(
                new Bind[] {Bind.ofShort((short) 300), Bind.ofLong(1)},
                new Bind[] {Bind.ofByte((byte) -3), Bind.ofLong(2)});
        Step small = InsertPlanner.plan(sql(insert), shorts, wide, null, settings())
                .statements()
                .get(0);
        assertTrue(small.sql().contains("CAST(? AS smallint[])"), small.sql());
        assertEquals(Short[].class, small.arrays()[0].getClass());
        assertEquals(List.of((short) 300, (short) -3), Arrays.asList(small.arrays()[0]));
    }

    @Test
    void insideTheGuardTheInsertIsPlainAndItsUpdateCountIsChecked() {
        BatchPlan plan = plan(INSERT, numbered(5), null, settings().withGuard());
        Step step = plan.statements().get(0);
        assertEquals(UNNEST, step.sql(), "no CTE, no RETURNING, no expected count");
        assertEquals(Decoding.COUNTED, step.decoding());
        assertEquals(List.of(), tailOf(step));
        BatchPlan values =
                plan(INSERT, numbered(2), null, settings(SessionFacts.UNKNOWN).withGuard());
        assertEquals(
                "INSERT INTO t (id, name) VALUES (?, ?), (?, ?)",
                values.statements().get(0).sql());
        assertEquals(Decoding.COUNTED, values.statements().get(0).decoding());
        BatchPlan keys = plan(INSERT, numbered(2), "\nRETURNING *", settings().withGuard());
        assertEquals(Decoding.RETURNED_ROWS, keys.statements().get(0).decoding(), "generated keys: one row per row");
        assertTrue(OpenGuards.leavesOpen(plan));
        assertTrue(!OpenGuards.leavesOpen(keys));
    }

    @Test
    void unknownParameterTypesRepeatTheTupleWithTheCountInTheText() {
        BatchPlan plan =
                plan(INSERT, numbered(3), null, settings(SessionFacts.UNKNOWN, "flushless.maxRowsPerStatement", "2"));
        assertEquals("insert-values", plan.rewriteKind());
        assertEquals(List.of(2, 1), sizesOf(plan));
        assertEquals(
                "WITH flushless_ins AS (INSERT INTO t (id, name) VALUES (?, ?), (?, ?)\nRETURNING 1)\n"
                        + "SELECT CASE WHEN count(*) = 2 THEN count(*) ELSE CAST('flushless: rows inserted by a coalesced INSERT: '"
                        + " || count(*) AS bigint) END FROM flushless_ins",
                plan.statements().get(0).sql());
        Step last = plan.statements().get(1);
        assertTrue(
                last.sql().startsWith("WITH flushless_ins AS (INSERT INTO t (id, name) VALUES (?, ?)\nRETURNING 1)"),
                last.sql());
        assertEquals(-1, last.rowParameters(), "binds every parameter of each row");
        assertEquals(0, last.tail().length);
    }

    @Test
    void anInsertWithoutAColumnListTravelsAsArraysWhenTheCatalogGaveTheColumnOrder() {
        // BenchBase's loaders: INSERT INTO t VALUES (?, ?, ...) fills the table's first columns in attnum order
        TableInfo read = readTable(Set.of(), ID, NAME);
        BatchPlan plan = InsertPlanner.plan(sql("INSERT INTO t VALUES (?, ?)"), numbered(3), read, null, settings());
        assertEquals("insert-unnest", plan.rewriteKind());
        assertTrue(
                plan.statements()
                        .get(0)
                        .sql()
                        .startsWith("WITH flushless_ins AS (INSERT INTO t SELECT flushless_v.flushless_p1,"
                                + " flushless_v.flushless_p2 FROM unnest(CAST(? AS integer[]),"
                                + " CAST(? AS text[])::varchar[])"),
                plan.statements().get(0).sql());
        assertEquals(
                List.of(List.of(1, 2, 3), List.of("n0", "n1", "n2")),
                arraysOf(plan.statements().get(0)));
        BatchPlan fewer =
                InsertPlanner.plan(sql("INSERT INTO t VALUES (?)"), rows(row(1), row(2)), read, null, settings());
        assertEquals("insert-unnest", fewer.rewriteKind(), "the first column only; the others take their defaults");
        assertEquals(
                "insert-values",
                InsertPlanner.plan(sql("INSERT INTO t VALUES (?, ?)"), numbered(3), T, null, settings())
                        .rewriteKind(),
                "column order not known (not read from the catalog)");
        assertEquals(
                "insert-values",
                InsertPlanner.plan(sql("INSERT INTO t VALUES (?, upper(?))"), numbered(3), read, null, settings())
                        .rewriteKind(),
                "not every value a bare parameter");
    }

    @Test
    void aValueThatCannotTravelInAnArrayFallsBackToTheValuesForm() {
        List<Bind[]> rows = rows(row(1, Bind.ofObject("a", Types.VARCHAR)), row(2, Bind.ofObject("b", Types.VARCHAR)));
        assertEquals("insert-values", plan(INSERT, rows, null, settings()).rewriteKind());
    }

    @Test
    void theValuesFormStaysWithinTheBindParameterLimit() {
        StringBuilder sql = new StringBuilder("INSERT INTO w (c0");
        List<ColumnInfo> columns = new ArrayList<>(List.of(new ColumnInfo("c0", 25, "text", true)));
        for (int c = 1; c < 7; c++) {
            sql.append(", c").append(c);
            columns.add(new ColumnInfo("c" + c, 25, "text", true));
        }
        sql.append(") VALUES (?, ?, ?, ?, ?, ?, ?)");
        List<Bind[]> rows = new ArrayList<>();
        for (int r = 0; r < 20_000; r++) {
            rows.add(row("a", "b", "c", "d", "e", "f", "g"));
        }
        TableInfo wide = table(List.of(), columns.toArray(ColumnInfo[]::new));
        StatementDescription insert = sql(sql.toString());
        BatchPlan values = InsertPlanner.plan(
                insert, rows, wide, null, settings(SessionFacts.UNKNOWN, "flushless.maxRowsPerStatement", "65535"));
        assertEquals(List.of(9362, 9362, 1276), sizesOf(values), "65535 / 7 rows of 7 parameters each");
        for (Step step : values.statements()) {
            assertTrue(step.parameterCount(7) <= BatchPlanner.MAX_BIND_PARAMETERS);
        }
        BatchPlan unnest =
                InsertPlanner.plan(insert, rows, wide, null, settings("flushless.maxRowsPerStatement", "65535"));
        assertEquals(List.of(20_000), sizesOf(unnest), "7 arrays and a count: the limit is maxRowsPerStatement alone");
    }

    @Test
    void generatedKeysKeepTheReturnedRowsWithoutACountCheck() {
        BatchPlan plan = plan(INSERT, numbered(2), "\nRETURNING *", settings());
        Step step = plan.statements().get(0);
        assertEquals(Decoding.RETURNED_ROWS, step.decoding());
        assertEquals(UNNEST + "\nRETURNING *", step.sql());
        assertEquals(0, step.tail().length);
    }

    @Test
    void theStatementsOwnReturningIsCountCheckedAndItsRowsDiscarded() {
        BatchPlan plan = plan(INSERT + " RETURNING id", numbered(2), null, settings());
        Step step = plan.statements().get(0);
        assertEquals(Decoding.RETURNED_ROWS_DISCARDED, step.decoding());
        assertTrue(
                step.sql().startsWith("WITH flushless_ins AS (" + UNNEST + " RETURNING id)\nSELECT CASE"), step.sql());
    }

    @Test
    void bufferedMembersAreTheOwnTextForOneRowArraysForMoreAndTuplesWithoutTypes() {
        StatementDescription insert = sql(INSERT + ";");
        List<BatchPlanner.InsertMember> one = BatchPlanner.insertMembers(insert, numbered(1), T, PGJDBC, 4096);
        assertEquals(1, one.size());
        assertEquals(INSERT, one.get(0).sql(), "the application's text, without its semicolon");
        assertEquals(
                List.of(1, "n0"),
                one.get(0).parameters().stream().map(Bind::value).toList());
        List<BatchPlanner.InsertMember> arrays = BatchPlanner.insertMembers(insert, numbered(5), T, PGJDBC, 2);
        assertEquals(
                List.of(2, 2, 1),
                arrays.stream().map(BatchPlanner.InsertMember::rows).toList());
        assertEquals(UNNEST, arrays.get(0).sql());
        assertEquals(List.of(3, 4), List.of((Object[])
                arrays.get(1).parameters().get(0).value()));
        List<BatchPlanner.InsertMember> tuples =
                BatchPlanner.insertMembers(insert, numbered(3), T, SessionFacts.UNKNOWN, 2);
        assertEquals(
                List.of("INSERT INTO t (id, name) VALUES (?, ?), (?, ?)", "INSERT INTO t (id, name) VALUES (?, ?)"),
                tuples.stream().map(BatchPlanner.InsertMember::sql).toList());
        assertEquals(
                List.of(1, "n0", 2, "n1"),
                tuples.get(0).parameters().stream().map(Bind::value).toList());
    }
}
