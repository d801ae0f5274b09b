package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.PGJDBC;
import static dev.flushless.jdbc.batch.PlannerFixture.PRICE;
import static dev.flushless.jdbc.batch.PlannerFixture.readTable;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.sql.Types;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The COPY form without a server: which batches take it, the COPY text and data, the conversions a declared type's
 * assignment makes (PostgreSQL's own results for them are in the conformance table, {@code CopyDifferences}), and the
 * rule that decides when COPY pays.
 */
class CopyFormTest {

    private static final ColumnInfo BIG = new ColumnInfo("big", 20, "bigint", true);
    private static final ColumnInfo NOTE = new ColumnInfo("note", 1043, "character varying", true, 10);

    private static final TableInfo T = readTable(Set.of(), ID, NAME, PRICE, BIG, NOTE);

    private static CopyForm copy(String insert, List<Bind[]> rows, TableInfo table) {
        String[] why = new String[1];
        return CopyForm.of(sql(insert), rows, table, PGJDBC, why);
    }

    private static String data(CopyForm copy) {
        return new String(copy.data(), StandardCharsets.UTF_8);
    }

    @Test
    void aPlainInsertBatchBecomesOneCopyOfEscapedTextWithNullsAndConversions() {
        CopyForm copy = copy(
                "INSERT INTO t (id, name, price) VALUES (?, ?, ?)",
                List.of(
                        new Bind[] {Bind.ofInt(1), Bind.ofString("a\tb\\c\nd\re"), Bind.ofDouble(0.1)},
                        new Bind[] {Bind.ofInt(2), Bind.ofNull(Types.VARCHAR), Bind.ofDouble(1 / 3.0)},
                        new Bind[] {Bind.ofInt(3), Bind.ofString("\\N"), Bind.ofBigDecimal(new BigDecimal("1E+3"))}),
                T);
        assertNotNull(copy);
        assertEquals("COPY t (\"id\", \"name\", \"price\") FROM STDIN", copy.sql());
        assertEquals("1\ta\\tb\\\\c\\nd\\re\t0.1\n" + "2\t\\N\t0.333333333333333\n" + "3\t\\\\N\t1E+3\n", data(copy));
        assertEquals(3, copy.rows());
        assertEquals(List.of("id", "name", "price"), copy.columns());
    }

    @Test
    void anInsertWithoutAColumnListFillsTheTablesFirstColumnsInOrder() {
        List<Bind[]> rows = List.<Bind[]>of(new Bind[] {Bind.ofInt(1), Bind.ofString("x")});
        CopyForm copy = copy("INSERT INTO t VALUES ( ?,? )", rows, T);
        assertNotNull(copy);
        assertEquals("COPY t (\"id\", \"name\") FROM STDIN", copy.sql());
        assertNull(copy("INSERT INTO t VALUES (?, 'x' || ?)", rows, T), "not every value a parameter");
        assertNull(
                copy(
                        "INSERT INTO t VALUES (?, ?, ?, ?, ?, ?)",
                        List.<Bind[]>of(new Bind[] {
                            Bind.ofInt(1), Bind.ofInt(1), Bind.ofInt(1), Bind.ofInt(1), Bind.ofInt(1), Bind.ofInt(1)
                        }),
                        T),
                "more values than columns");
    }

    @Test
    void float8IntoNumericKeepsTheServersFifteenDigits() {
        assertEquals("0.1", CopyForm.converted("0.1", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("100", CopyForm.converted("100.0", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("1E10", CopyForm.converted("1.0E10", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("1.5E-5", CopyForm.converted("1.5E-5", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("-2.5", CopyForm.converted("-2.5", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("0.3", CopyForm.converted("0.30000000000000004", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("123456.789012346", CopyForm.converted("123456.78901234568", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("0", CopyForm.converted("-0.0", SentType.FLOAT8, SentType.NUMERIC));
        assertEquals("NaN", CopyForm.converted("NaN", SentType.FLOAT8, SentType.NUMERIC));
        assertNull(CopyForm.converted("Infinity", SentType.FLOAT8, SentType.NUMERIC), "numeric holds no infinity");
        assertEquals("100000000000000000000", CopyForm.float8Numeric(1e20));
        assertEquals("0.1", CopyForm.converted("0.1", SentType.FLOAT4, SentType.NUMERIC));
        assertEquals("0.333333", CopyForm.converted("0.33333334", SentType.FLOAT4, SentType.NUMERIC));
        assertEquals("0.10000000149011612", CopyForm.converted("0.1", SentType.FLOAT4, SentType.FLOAT8));
        assertEquals("7", CopyForm.converted("7", SentType.INT4, SentType.INT8));
    }

    @Test
    void shortDecimalsAreTheUsualDoublesAndOnlyThose() {
        assertEquals("12.5", CopyForm.shortDecimal("12.5", 15));
        assertEquals("1234567890123.45", CopyForm.shortDecimal("1234567890123.45", 15));
        assertNull(CopyForm.shortDecimal("1234567890123.456", 15), "16 significant digits");
        assertEquals("0.001", CopyForm.shortDecimal("0.001", 15));
        assertEquals("1E-4", CopyForm.shortDecimal("1.0E-4", 15));
        assertNull(CopyForm.shortDecimal("NaN", 15));
        assertNull(CopyForm.shortDecimal("Infinity", 15));
        assertEquals("0", CopyForm.shortDecimal("0.0", 15));
    }

    @Test
    void declaredTypesWhoseAssignmentDiffersFromTheInputFunctionKeepTheInsertForms() {
        String insert = "INSERT INTO t (id, name) VALUES (?, ?)";
        assertNull(
                copy(insert, List.<Bind[]>of(new Bind[] {Bind.ofString("1"), Bind.ofString("x")}), T),
                "a varchar into an integer: no assignment cast, the INSERT fails");
        assertNull(
                copy(insert, List.<Bind[]>of(new Bind[] {Bind.ofObject("1", Types.INTEGER), Bind.ofString("x")}), T),
                "setObject with a target type: pgjdbc converts");
        assertNull(
                copy(insert, List.<Bind[]>of(new Bind[] {Bind.ofInt(1), Bind.ofDouble(1.5)}), T),
                "a double into text: the server's output function writes it");
        assertNull(copy(insert, List.<Bind[]>of(new Bind[] {Bind.ofInt(1), Bind.ofString("a\0b")}), T), "NUL");
        assertNotNull(copy(
                "INSERT INTO t (big, note) VALUES (?, ?)",
                List.<Bind[]>of(new Bind[] {Bind.ofInt(1), Bind.ofString("x")}),
                T));
    }

    @Test
    void tablesAndColumnsCopyWouldTreatOtherwiseKeepTheInsertForms() {
        List<Bind[]> rows = List.<Bind[]>of(new Bind[] {Bind.ofInt(1), Bind.ofString("x")});
        String insert = "INSERT INTO t (id, name) VALUES (?, ?)";
        assertNull(copy(insert, rows, readTable(Set.of("id"), ID, NAME)), "identity GENERATED ALWAYS");
        assertNull(copy(insert, rows, readTable(null, ID, NAME)), "COPY facts not read");
        TableInfo triggers = readTable("table has user triggers", Set.of(), ID, NAME);
        assertNull(copy(insert, rows, triggers));
        assertNull(copy("INSERT INTO t (id, name) OVERRIDING USER VALUE VALUES (?, ?)", rows, T));
        assertNull(copy("INSERT INTO t (id, name) VALUES (?, ?) RETURNING id", rows, T));
        assertNull(copy("INSERT INTO t (id, name) VALUES (?, 'x' || ?)", rows, T));
    }

    @Test
    void thePlannerSendsCopyOnlyWhereTheChoiceSaysItPays() {
        List<Bind[]> rows = PlannerFixture.numbered(3);
        String insert = "INSERT INTO t (id, name) VALUES (?, ?)";
        BatchPlanner.Settings always =
                settings().withCopy(new CopyChoice(FlushlessConfig.Copy.ALWAYS, -1, false, false));
        BatchPlan plan = InsertPlanner.plan(sql(insert), rows, T, null, always);
        assertTrue(plan.isCopy());
        assertEquals(BatchPlan.COPY_KIND, plan.rewriteKind());
        assertEquals(
                List.of(0, 1, 2),
                java.util.Arrays.stream(plan.statements().get(0).rows()).boxed().toList());
        assertFalse(InsertPlanner.plan(sql(insert), rows, T, null, settings()).isCopy(), "default settings: never");
        assertFalse(
                InsertPlanner.plan(sql(insert), rows, T, " RETURNING *", always).isCopy(), "generated keys");
    }

    @Test
    void copyPaysWhereTheRowsSavingOutweighsItsExtraRoundTrips() {
        CopyChoice local = new CopyChoice(FlushlessConfig.Copy.AUTO, 60, false, false); // 2 more round trips
        assertFalse(local.pays(100, 10), "a hundred rows save less than two round trips and the check");
        assertTrue(local.pays(250, 10));
        assertTrue(local.pays(1000, 10));
        CopyChoice far = new CopyChoice(FlushlessConfig.Copy.AUTO, 10_000, true, false); // 3 more round trips
        assertFalse(far.pays(1000, 10));
        assertTrue(far.pays(25_000, 10));
        CopyChoice unmeasured = new CopyChoice(FlushlessConfig.Copy.AUTO, -1, false, false);
        assertEquals(
                unmeasured.pays(500, 10), new CopyChoice(FlushlessConfig.Copy.AUTO, 200, false, false).pays(500, 10));
        assertTrue(unmeasured.pays(500, 10), "an unmeasured server is taken for one in the same data centre");
        assertFalse(new CopyChoice(FlushlessConfig.Copy.AUTO, 1000, false, false).pays(500, 10));
        assertEquals(2, local.extraRoundTrips());
        assertEquals(3, far.extraRoundTrips());
        assertEquals(3, new CopyChoice(FlushlessConfig.Copy.AUTO, 1, false, true).extraRoundTrips());
        assertFalse(CopyChoice.NEVER.pays(1_000_000, 10));
        assertFalse(
                CopyChoice.of(FlushlessConfig.Copy.ALWAYS, true, 0, false, true, 1, false, false)
                        .pays(10, 1),
                "YugabyteDB");
        assertFalse(
                CopyChoice.of(FlushlessConfig.Copy.ALWAYS, false, 5, false, true, 1, false, false)
                        .pays(10, 1),
                "a query timeout");
    }
}
