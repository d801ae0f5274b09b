package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.PGJDBC;
import static dev.flushless.jdbc.batch.PlannerFixture.drawingFromSequences;
import static dev.flushless.jdbc.batch.PlannerFixture.numbered;
import static dev.flushless.jdbc.batch.PlannerFixture.row;
import static dev.flushless.jdbc.batch.PlannerFixture.rows;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static dev.flushless.jdbc.batch.PlannerFixture.table;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The dispatcher without a server: what every form needs, which planner a statement goes to, and its settings. */
class BatchPlannerTest {

    private static final String INSERT = "INSERT INTO t (id, name) VALUES (?, ?)";
    private static final TableInfo T = table(ID, NAME);

    private static String reason(String sql, List<Bind[]> rows, TableInfo table, BatchPlanner.Settings settings) {
        return BatchPlanner.plan(sql(sql), rows, table, null, settings).fallbackReason();
    }

    @Test
    void dispatchesByStatementKind() {
        assertEquals(
                "insert-unnest",
                BatchPlanner.plan(sql(INSERT), numbered(2), T, null, settings()).rewriteKind());
        assertEquals(
                "upsert-do-nothing-unnest",
                BatchPlanner.plan(sql(INSERT + " ON CONFLICT (id) DO NOTHING"), numbered(2), T, null, settings())
                        .rewriteKind());
        assertEquals(
                "update-join-unnest",
                BatchPlanner.plan(sql("UPDATE t SET name = ? WHERE id = ?"), rows(row("a", 1)), T, null, settings())
                        .rewriteKind());
        assertEquals(
                "delete-using-unnest",
                BatchPlanner.plan(sql("DELETE FROM t WHERE id = ?"), rows(row(1)), T, null, settings())
                        .rewriteKind());
    }

    @Test
    void fallsBackForWhatNoFormCanDo() {
        assertEquals("INSERT ... SELECT", reason("INSERT INTO t (id) SELECT ? FROM u", rows(row(1)), T, settings()));
        assertEquals(
                "standard_conforming_strings is off",
                reason(INSERT, numbered(1), T, settings(new SessionFacts(true, true, true, true, false, true))));
        assertEquals("a batch row lacks a parameter value", reason(INSERT, rows(row(1)), T, settings()));
        assertEquals(
                "generated keys requested for UPDATE or DELETE",
                BatchPlanner.plan(sql("DELETE FROM t WHERE id = ?"), rows(row(1)), T, "\nRETURNING *", settings())
                        .fallbackReason());
        TableInfo triggers = new TableInfo(
                1, null, "table has user triggers", false, T.columns(), new long[] {1}, false, T.uniqueKeys(), null);
        assertEquals("table has user triggers", reason(INSERT, numbered(1), triggers, settings()));
        assertNull(reason(INSERT, numbered(1), triggers, settings("flushless.trustTriggers", "true")));
    }

    @Test
    void exactSequencesIsReadFromTheConfiguration() {
        TableInfo sequenced = drawingFromSequences(T);
        assertNull(reason(INSERT, numbered(2), sequenced, settings()), "off by default");
        assertEquals(
                dev.flushless.jdbc.FallbackReason.EXACT_SEQUENCES.template(),
                reason(INSERT, numbered(2), sequenced, settings("flushless.exactSequences", "true")));
        assertNull(
                reason(
                        "UPDATE t SET name = ? WHERE id = ?",
                        rows(row("a", 1)),
                        sequenced,
                        settings("flushless.exactSequences", "true")),
                "UPDATE and DELETE draw no ids");
    }

    @Test
    void settingsAreTheConfigurationsAndChangeOneThingByName() {
        BatchPlanner.Settings configured = settings(
                "flushless.maxRowsPerStatement",
                "7",
                "flushless.trustTriggers",
                "true",
                "flushless.exactSequences",
                "true");
        assertEquals(7, configured.maxRowsPerStatement());
        assertTrue(configured.trustTriggers());
        assertTrue(configured.exactSequences());
        assertSame(PGJDBC, configured.session());
        assertFalse(configured.antiJoin(), "native ON CONFLICT unless asked for");
        BatchPlanner.Settings wider = configured.withMaxRowsPerStatement(100);
        assertEquals(100, wider.maxRowsPerStatement());
        assertTrue(wider.trustTriggers() && wider.exactSequences());
        ConflictFacts facts = new ConflictFacts("r", false, false, java.util.Map.of(), List.of());
        BatchPlanner.Settings antiJoin = configured.withAntiJoin(facts);
        assertTrue(antiJoin.antiJoin());
        assertSame(facts, antiJoin.conflictFacts());
        assertEquals(7, antiJoin.maxRowsPerStatement());
        assertFalse(configured.antiJoin(), "unchanged");
    }
}
