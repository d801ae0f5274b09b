package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.CODE;
import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.PRICE;
import static dev.flushless.jdbc.batch.PlannerFixture.arraysOf;
import static dev.flushless.jdbc.batch.PlannerFixture.numbered;
import static dev.flushless.jdbc.batch.PlannerFixture.row;
import static dev.flushless.jdbc.batch.PlannerFixture.rows;
import static dev.flushless.jdbc.batch.PlannerFixture.rowsOf;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static dev.flushless.jdbc.batch.PlannerFixture.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.ConflictFacts.ColumnFacts;
import dev.flushless.jdbc.session.ConflictFacts.UniqueIndex;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.session.TableCatalog.UniqueKey;
import java.math.BigDecimal;
import java.sql.Types;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ON CONFLICT in the anti-join form planned without a server: statements, waves, chunks and every main fallback. */
class AntiJoinPlannerTest {

    private static final String INSERT = "INSERT INTO t (id, name) VALUES (?, ?)";
    private static final String DO_NOTHING = INSERT + " ON CONFLICT (id) DO NOTHING";
    private static final String DO_UPDATE = INSERT + " ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name";
    private static final TableInfo T = table(ID, NAME);
    private static final ColumnFacts ID_FACTS = new ColumnFacts("id", -1, "integer", true, false, false, false, false);
    private static final ColumnFacts NAME_FACTS =
            new ColumnFacts("name", -1, "text", false, false, false, false, false);
    private static final UniqueIndex PKEY = index("t_pkey", true, false, true);

    private static UniqueIndex index(
            String name, boolean immediate, boolean nullsNotDistinct, boolean defaultOpclasses) {
        return new UniqueIndex(
                name, List.of("id"), immediate, true, false, false, nullsNotDistinct, true, defaultOpclasses);
    }

    private static ConflictFacts facts(
            String relkind, boolean checks, List<UniqueIndex> indexes, ColumnFacts... columns) {
        Map<String, ColumnFacts> byName = new LinkedHashMap<>();
        for (ColumnFacts column : columns) {
            byName.put(column.name(), column);
        }
        return new ConflictFacts(relkind, false, checks, byName, indexes);
    }

    private static final ConflictFacts FACTS = facts("r", false, List.of(PKEY), ID_FACTS, NAME_FACTS);

    private static BatchPlan plan(
            String sql, List<Bind[]> rows, TableInfo table, ConflictFacts facts, String... config) {
        return AntiJoinPlanner.plan(
                sql(sql), rows, table, null, settings(config).withAntiJoin(facts));
    }

    private static String reason(String sql, List<Bind[]> rows, ConflictFacts facts) {
        return plan(sql, rows, T, facts).fallbackReason();
    }

    @Test
    void doNothingIsOneStatementPerChunkThatReadsTheExistingKeysFirst() {
        BatchPlan plan = plan(DO_NOTHING, rows(row(1, "a"), row(2, "b"), row(1, "c")), T, FACTS);
        assertEquals("upsert-do-nothing-antijoin", plan.rewriteKind());
        assertEquals(List.of(List.of(0, 1, 2)), rowsOf(plan), "a repeated key is de-duplicated in SQL");
        Step step = plan.statements().get(0);
        assertEquals(Decoding.ORDINAL_ARRAY, step.decoding());
        assertEquals(List.of(List.of(1, 2, 1), List.of("a", "b", "c")), arraysOf(step));
        String sql = step.sql();
        assertTrue(
                sql.startsWith(
                        "WITH flushless_v AS (SELECT * FROM unnest(CAST(? AS integer[]), CAST(? AS text[])"
                                + "::varchar[]) WITH ORDINALITY AS flushless_v(flushless_p1, flushless_p2, flushless_ord)),\n"
                                + "flushless_c AS (SELECT flushless_v.*, CAST(flushless_v.flushless_p1 AS integer) AS flushless_c1,"
                                + " CAST(flushless_v.flushless_p2 AS text) AS flushless_c2 FROM flushless_v),\n"
                                + "flushless_e AS (SELECT \"id\" FROM t WHERE \"id\" IN (SELECT flushless_c1 FROM flushless_c)),\n"
                                + "flushless_n AS (SELECT flushless_c.*, row_number() OVER (PARTITION BY flushless_c1 ORDER BY flushless_ord)"),
                sql);
        assertTrue(
                sql.contains("flushless_ins AS (INSERT INTO t (id, name) SELECT flushless_p1, flushless_p2 FROM"
                        + " flushless_new ORDER BY flushless_ord\nRETURNING 1)"),
                sql);
        assertEquals(
                List.of(List.of(0, 1), List.of(2, 3), List.of(4)),
                rowsOf(plan(DO_NOTHING, numbered(5), T, FACTS, "flushless.maxRowsPerStatement", "2")));
    }

    @Test
    void doUpdateUpdatesAndInsertsInOneStatementARepeatedKeyInALaterOne() {
        BatchPlan plan = plan(DO_UPDATE, rows(row(1, "a"), row(2, "b"), row(1, "c")), T, FACTS);
        assertEquals("upsert-do-update-antijoin", plan.rewriteKind());
        assertEquals(List.of(List.of(0, 1), List.of(2)), rowsOf(plan));
        String sql = plan.statements().get(0).sql();
        assertEquals(sql, plan.statements().get(1).sql());
        assertTrue(
                sql.contains("flushless_up AS (UPDATE t SET name = flushless_c.flushless_c2 FROM flushless_c"
                        + " WHERE \"id\" = flushless_c.flushless_c1 RETURNING flushless_c.flushless_ord),\n"
                        + "flushless_new AS (SELECT * FROM flushless_c n WHERE NOT EXISTS (SELECT 1 FROM flushless_e e"
                        + " WHERE e.\"id\" = n.flushless_c1)),"),
                sql);
        String where = plan(DO_UPDATE + " WHERE t.name <> EXCLUDED.name", rows(row(1, "a")), T, FACTS)
                .statements()
                .get(0)
                .sql();
        assertTrue(
                where.contains("WHERE \"id\" = flushless_c.flushless_c1 AND (t.name <> flushless_c.flushless_c2)"),
                where);
    }

    @Test
    void fallsBackWhenAskedForWhatItCannotReturnOrKnow() {
        assertEquals(
                "generated keys or RETURNING requested",
                AntiJoinPlanner.plan(
                                sql(DO_NOTHING),
                                rows(row(1, "a")),
                                T,
                                "\nRETURNING *",
                                settings().withAntiJoin(FACTS))
                        .fallbackReason());
        assertEquals(
                "the delegate connection is not pgjdbc: parameter types unknown",
                AntiJoinPlanner.plan(
                                sql(DO_NOTHING),
                                rows(row(1, "a")),
                                T,
                                null,
                                settings(SessionFacts.UNKNOWN).withAntiJoin(FACTS))
                        .fallbackReason());
        assertEquals(
                "the table's unique indexes and constraints could not be read",
                reason(DO_NOTHING, rows(row(1, "a")), null));
        assertEquals(
                "the VALUES tuple is not all parameters of known types",
                reason("INSERT INTO t (id, name) VALUES (?, 'x') ON CONFLICT (id) DO NOTHING", rows(row(1)), FACTS));
        assertEquals(
                "a value that cannot travel in an array",
                reason(DO_NOTHING, rows(row(1, Bind.ofObject("a", Types.VARCHAR))), FACTS));
    }

    @Test
    void fallsBackWhereOnConflictDoesSomethingForRowsItSkips() {
        List<Bind[]> one = rows(row(1, "a"));
        assertEquals(
                "table has CHECK constraints (ON CONFLICT checks every proposed row)",
                reason(DO_NOTHING, one, facts("r", true, List.of(PKEY), ID_FACTS, NAME_FACTS)));
        assertEquals(
                "partitioned table or inheritance parent (ON CONFLICT routes every proposed row)",
                reason(DO_NOTHING, one, facts("p", false, List.of(PKEY), ID_FACTS, NAME_FACTS)));
        assertEquals(
                "column seq draws from a sequence for every proposed row",
                reason(
                        DO_NOTHING,
                        one,
                        facts(
                                "r",
                                false,
                                List.of(PKEY),
                                ID_FACTS,
                                NAME_FACTS,
                                new ColumnFacts("seq", -1, "bigint", true, true, false, true, false))));
        assertEquals(
                "NOT NULL column other is not supplied and has no default",
                reason(
                        DO_NOTHING,
                        one,
                        facts(
                                "r",
                                false,
                                List.of(PKEY),
                                ID_FACTS,
                                NAME_FACTS,
                                new ColumnFacts("other", -1, "text", true, false, false, false, false))));
        assertEquals("NULL bound to NOT NULL column id", reason(DO_NOTHING, rows(row(null, "a")), FACTS));
        ColumnFacts code = new ColumnFacts("code", 7, "character varying(3)", false, false, false, false, false);
        assertEquals(
                "a value longer than column code (character varying(3))",
                plan(
                                "INSERT INTO t (id, code) VALUES (?, ?) ON CONFLICT (id) DO NOTHING",
                                rows(row(1, "abcd")),
                                table(ID, CODE),
                                facts("r", false, List.of(PKEY), ID_FACTS, code))
                        .fallbackReason());
    }

    @Test
    void fallsBackWhereTheArbiterCouldCompareKeysOtherwise() {
        List<Bind[]> one = rows(row(1, "a"));
        assertEquals(
                "no unique index matches the ON CONFLICT target",
                reason(DO_NOTHING, one, facts("r", false, List.of(), ID_FACTS, NAME_FACTS)));
        assertEquals(
                "arbiter index t_pkey is deferrable",
                reason(
                        DO_NOTHING,
                        one,
                        facts("r", false, List.of(index("t_pkey", false, false, true)), ID_FACTS, NAME_FACTS)));
        assertEquals(
                "arbiter index t_pkey is NULLS NOT DISTINCT",
                reason(
                        DO_NOTHING,
                        one,
                        facts("r", false, List.of(index("t_pkey", true, true, true)), ID_FACTS, NAME_FACTS)));
        assertEquals(
                "arbiter index t_pkey has a nondeterministic collation or a non-default operator class",
                reason(
                        DO_NOTHING,
                        one,
                        facts("r", false, List.of(index("t_pkey", true, false, false)), ID_FACTS, NAME_FACTS)));
        ColumnFacts price =
                new ColumnFacts("price", (8 << 16 | 2) + 4, "numeric(8,2)", true, false, false, false, false);
        TableInfo priced = table(List.of(new UniqueKey(List.of("price"), false, true)), PRICE, NAME);
        UniqueIndex byPrice = new UniqueIndex("t_price", List.of("price"), true, true, false, false, false, true, true);
        String upsert =
                "INSERT INTO t (price, name) VALUES (?, ?) ON CONFLICT (price) DO UPDATE SET name = EXCLUDED.name";
        assertEquals(
                "ON CONFLICT column price of type numeric bound with BigDecimal: equality not modelled",
                plan(
                                upsert,
                                rows(row(Bind.ofBigDecimal(new BigDecimal("1.125")), "a")),
                                priced,
                                facts("r", false, List.of(byPrice), price, NAME_FACTS))
                        .fallbackReason(),
                "more decimals than numeric(8,2) keeps: the stored key is rounded");
    }

    @Test
    void fallsBackWhereDoUpdateCannotBeRewritten() {
        List<Bind[]> one = rows(row(1, "a"));
        TableInfo uniqueName = table(
                List.of(new UniqueKey(List.of("id"), false, true), new UniqueKey(List.of("name"), false, true)),
                ID,
                NAME);
        assertEquals(
                "DO UPDATE sets a column of a unique key",
                plan(DO_UPDATE, one, uniqueName, FACTS).fallbackReason());
        assertEquals(
                "DO UPDATE reads an EXCLUDED column that no parameter supplies",
                plan(
                                "INSERT INTO t (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name",
                                rows(row(1)),
                                T,
                                FACTS)
                        .fallbackReason());
    }

    @Test
    void theDispatcherFallsBackToNativeWithTheReasonAsTheNote() {
        BatchPlan plan = BatchPlanner.plan(
                sql(DO_NOTHING), rows(row(1, "a")), T, null, settings().withAntiJoin(null));
        assertEquals("upsert-do-nothing-unnest", plan.rewriteKind());
        assertEquals(
                dev.flushless.jdbc.FallbackReason.ANTI_JOIN_NOT_APPLIED.because(
                        "the table's unique indexes and constraints could not be read"),
                plan.note());
        assertEquals(
                "upsert-do-nothing-unnest",
                BatchPlanner.plan(sql(DO_NOTHING), rows(row(1, "a")), T, null, settings())
                        .rewriteKind(),
                "native unless asked for");
    }
}
