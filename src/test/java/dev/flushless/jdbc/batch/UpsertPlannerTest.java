package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.TS;
import static dev.flushless.jdbc.batch.PlannerFixture.drawingFromSequences;
import static dev.flushless.jdbc.batch.PlannerFixture.numbered;
import static dev.flushless.jdbc.batch.PlannerFixture.row;
import static dev.flushless.jdbc.batch.PlannerFixture.rows;
import static dev.flushless.jdbc.batch.PlannerFixture.rowsOf;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sizesOf;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static dev.flushless.jdbc.batch.PlannerFixture.table;
import static dev.flushless.jdbc.batch.PlannerFixture.tailOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.session.TableCatalog.UniqueKey;
import java.sql.Timestamp;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Native multi-row ON CONFLICT planned without a server: waves, groups, chunks, alignment and fallbacks. */
class UpsertPlannerTest {

    private static final String INSERT = "INSERT INTO t (id, name) VALUES (?, ?)";
    private static final String UNNEST =
            "INSERT INTO t (id, name) SELECT flushless_v.flushless_p1, flushless_v.flushless_p2"
                    + " FROM unnest(CAST(? AS integer[]), CAST(? AS text[])::varchar[]) WITH ORDINALITY"
                    + " AS flushless_v(flushless_p1, flushless_p2, flushless_ord) ORDER BY flushless_v.flushless_ord";
    private static final String DO_UPDATE = " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name";
    private static final TableInfo T = table(ID, NAME);

    private static BatchPlan plan(
            String sql, List<Bind[]> rows, TableInfo table, String returningSuffix, BatchPlanner.Settings settings) {
        return UpsertPlanner.plan(sql(sql), rows, table, returningSuffix, settings);
    }

    private static List<Bind[]> keys(int... ids) {
        return rows(Arrays.stream(ids).mapToObj(id -> row(id, "v" + id)).toArray(Bind[][]::new));
    }

    /** Each step's alignment keys, as lists. */
    private static List<List<Object>> alignment(Step step) {
        return Arrays.stream(step.alignment().keys()).map(Arrays::asList).toList();
    }

    @Test
    void doNothingSendsRepeatedKeysInOneStatementReturningTheConflictColumns() {
        BatchPlan plan = plan(INSERT + " ON CONFLICT (id) DO NOTHING", keys(1, 2, 1), T, null, settings());
        assertEquals("upsert-do-nothing-unnest", plan.rewriteKind());
        assertEquals(List.of(List.of(0, 1, 2)), rowsOf(plan), "the first occurrence wins inside the statement");
        Step step = plan.statements().get(0);
        assertEquals(UNNEST + " ON CONFLICT (id) DO NOTHING\nRETURNING \"id\"", step.sql());
        assertEquals(Decoding.ALIGNED, step.decoding());
        assertEquals(
                List.of(List.of(1L), List.of(2L), List.of(1L)), alignment(step), "keys as the index compares them");
        assertEquals("id", step.alignment().columns()[0].name());
    }

    @Test
    void doUpdateSendsARepeatedKeyInALaterStatement() {
        BatchPlan plan = plan(INSERT + DO_UPDATE, keys(1, 2, 1, 3, 1), T, null, settings());
        assertEquals("upsert-do-update-unnest", plan.rewriteKind());
        assertEquals(List.of(List.of(0, 1, 3), List.of(2), List.of(4)), rowsOf(plan));
        assertEquals(
                UNNEST + DO_UPDATE + "\nRETURNING \"id\"",
                plan.statements().get(1).sql());
        assertEquals(List.of(List.of(1L)), alignment(plan.statements().get(2)));
    }

    @Test
    void aNullKeyNeverConflictsSoItNeverWaits() {
        BatchPlan plan = plan(INSERT + DO_UPDATE, rows(row(null, "a"), row(null, "b")), T, null, settings());
        assertEquals(List.of(List.of(0, 1)), rowsOf(plan));
        assertEquals(
                List.of(Arrays.asList((Object) null), Arrays.asList((Object) null)),
                alignment(plan.statements().get(0)));
    }

    @Test
    void doUpdateParametersGroupRowsByTheirValuesBoundOncePerStatement() {
        String sql = INSERT + " ON CONFLICT (id) DO UPDATE SET name = ?";
        List<Bind[]> rows = rows(row(1, "a", "x"), row(2, "b", "y"), row(3, "c", "x"));
        BatchPlan plan = plan(sql, rows, T, null, settings());
        assertEquals(List.of(List.of(0, 2), List.of(1)), rowsOf(plan));
        assertEquals(List.of("x"), tailOf(plan.statements().get(0)));
        assertEquals(List.of("y"), tailOf(plan.statements().get(1)));
        assertEquals(
                "upsert rows need statements out of batch order and the table draws from a sequence: rows would"
                        + " get other ids than row by row",
                plan(sql, rows, drawingFromSequences(T), null, settings()).fallbackReason());
    }

    @Test
    void chunksStayWithinTheBindParameterLimitCountingTheDoUpdateParameters() {
        BatchPlan plan = plan(
                INSERT + " ON CONFLICT (id) DO UPDATE SET name = ?",
                numbered(40_000, "x"),
                T,
                null,
                settings(SessionFacts.UNKNOWN, "flushless.maxRowsPerStatement", "65535"));
        assertEquals("upsert-do-update", plan.rewriteKind(), "no parameter types: the tuple is repeated");
        assertEquals(List.of(32767, 7233), sizesOf(plan), "(65535 - 1) / 2 rows of 2 parameters, and the 1 shared");
        Step first = plan.statements().get(0);
        assertEquals(2, first.rowParameters());
        assertEquals(List.of("x"), tailOf(first));
        assertEquals(BatchPlanner.MAX_BIND_PARAMETERS, first.parameterCount(3));
        assertEquals(
                List.of(2, 2, 1),
                sizesOf(plan(
                        INSERT + DO_UPDATE, numbered(5), T, null, settings("flushless.maxRowsPerStatement", "2"))));
    }

    @Test
    void generatedKeysMustNameTheConflictColumnsAndKeepBatchOrder() {
        BatchPlan star = plan(INSERT + DO_UPDATE, keys(1, 2), T, "\nRETURNING *", settings());
        assertEquals(Decoding.ALIGNED_RETURNED, star.statements().get(0).decoding());
        assertEquals(
                UNNEST + DO_UPDATE + "\nRETURNING *", star.statements().get(0).sql());
        assertEquals(
                "generated keys of ON CONFLICT that do not include the conflict columns",
                plan(INSERT + DO_UPDATE, keys(1, 2), T, "\nRETURNING \"name\"", settings())
                        .fallbackReason());
        assertNull(plan(INSERT + DO_UPDATE, keys(1, 2), T, "\nRETURNING \"id\"", settings())
                .fallbackReason());
        assertEquals(
                "generated keys of an upsert whose rows need statements out of batch order",
                plan(INSERT + DO_UPDATE, keys(1, 1, 2), T, "\nRETURNING *", settings())
                        .fallbackReason());
        assertEquals(
                List.of(List.of(0), List.of(1)),
                rowsOf(plan(INSERT + DO_UPDATE, keys(1, 1), T, "\nRETURNING *", settings())),
                "a repeat in a later statement that still keeps batch order");
    }

    @Test
    void theStatementsOwnReturningIsDiscarded() {
        BatchPlan plan = plan(INSERT + DO_UPDATE + " RETURNING id", keys(1), T, null, settings());
        assertEquals(Decoding.RETURNED_ROWS_DISCARDED, plan.statements().get(0).decoding());
        assertEquals(
                UNNEST + DO_UPDATE + " RETURNING id", plan.statements().get(0).sql());
    }

    @Test
    void fallsBackWhereKeysOrUniqueChecksAreNotModelled() {
        TableInfo stamped = table(List.of(new UniqueKey(List.of("ts"), false, true)), ID, NAME, TS);
        assertEquals(
                "ON CONFLICT column ts of type timestamp without time zone bound with Timestamp: equality not"
                        + " modelled",
                plan(
                                "INSERT INTO t (ts, name) VALUES (?, ?) ON CONFLICT (ts) DO NOTHING",
                                rows(row(Bind.ofTimestamp(new Timestamp(0), null), "a")),
                                stamped,
                                null,
                                settings())
                        .fallbackReason());
        assertEquals(
                "ON CONFLICT column not found: id",
                plan(INSERT + DO_UPDATE, keys(1), table(NAME), null, settings()).fallbackReason());
        TableInfo uniqueName = table(
                List.of(new UniqueKey(List.of("id"), false, true), new UniqueKey(List.of("name"), false, true)),
                ID,
                NAME);
        assertEquals(
                "upsert sets a column of a unique key (name) in statements out of batch order (a repeated key):"
                        + " unique checks would run in another order than row by row",
                plan(INSERT + DO_UPDATE, keys(1, 1, 2), uniqueName, null, settings())
                        .fallbackReason());
        assertEquals(
                "upsert-do-update-unnest",
                plan(INSERT + DO_UPDATE, keys(1, 2), uniqueName, null, settings())
                        .rewriteKind(),
                "in batch order PostgreSQL checks the unique name row by row itself");
    }

    /**
     * Generated keys identify the rows only through the conflict columns, named exactly: {@code uuid} is not {@code id}
     * (pgjdbc's {@code quoteReturningIdentifiers=false} writes the names as the application gave them). A substring
     * match let such a batch through, and reading the keys then failed after the statement had committed.
     */
    @Test
    void generatedKeysMustNameTheConflictColumnsExactly() {
        List<StatementDescription.KeyColumn> id =
                sql(INSERT + " ON CONFLICT (id) DO NOTHING").conflictKeys();
        assertTrue(UpsertPlanner.namesAll("\nRETURNING \"id\"", id));
        assertTrue(UpsertPlanner.namesAll("\nRETURNING \"name\", \"id\"", id));
        assertTrue(
                UpsertPlanner.namesAll("\nRETURNING ID, name", id),
                "an unquoted name is folded as the server folds it");
        assertFalse(UpsertPlanner.namesAll("\nRETURNING uuid", id));
        assertFalse(UpsertPlanner.namesAll("\nRETURNING \"uuid\"", id));
        assertFalse(UpsertPlanner.namesAll("\nRETURNING \"Id\"", id), "a quoted name keeps its case");
        assertFalse(UpsertPlanner.namesAll("\nRETURNING id + 0", id));
        assertEquals(
                "generated keys of ON CONFLICT that do not include the conflict columns",
                plan(INSERT + " ON CONFLICT (id) DO NOTHING", keys(1, 2), T, "\nRETURNING uuid", settings())
                        .fallbackReason());
    }
}
