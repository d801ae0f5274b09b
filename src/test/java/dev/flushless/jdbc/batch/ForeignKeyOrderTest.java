package dev.flushless.jdbc.batch;

import static dev.flushless.jdbc.batch.PlannerFixture.ID;
import static dev.flushless.jdbc.batch.PlannerFixture.NAME;
import static dev.flushless.jdbc.batch.PlannerFixture.row;
import static dev.flushless.jdbc.batch.PlannerFixture.rows;
import static dev.flushless.jdbc.batch.PlannerFixture.settings;
import static dev.flushless.jdbc.batch.PlannerFixture.sql;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.ForeignKey;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.session.TableCatalog.UniqueKey;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link ForeignKeyOrder} without a server: which batches keep the application's foreign-key order. */
class ForeignKeyOrderTest {

    private static final ColumnInfo PARENT_ID = new ColumnInfo("parent_id", 23, "integer", true);

    /** node(id, parent_id REFERENCES node(id), name): oid 1. */
    private static final TableInfo NODE = new TableInfo(
            1,
            null,
            null,
            false,
            Map.of("id", ID, "parent_id", PARENT_ID, "name", NAME),
            new long[] {1},
            false,
            List.of(new UniqueKey(List.of("id"), false, true)),
            null,
            new long[] {1},
            List.of(new ForeignKey(1, List.of("parent_id"), List.of("id"))),
            List.of(new ForeignKey(1, List.of("id"), List.of("parent_id"))));

    /** parent(id, name): oid 2, referenced by child.parent_id. */
    private static final TableInfo PARENT = new TableInfo(
            2,
            null,
            null,
            false,
            Map.of("id", ID, "name", NAME),
            new long[] {2},
            false,
            List.of(new UniqueKey(List.of("id"), false, true)),
            null,
            new long[] {2},
            List.of(),
            List.of(new ForeignKey(3, List.of("id"), List.of("parent_id"))));

    /** child(id, parent_id REFERENCES parent(id), name): oid 3. */
    private static final TableInfo CHILD = new TableInfo(
            3,
            null,
            null,
            false,
            Map.of("id", ID, "parent_id", PARENT_ID, "name", NAME),
            new long[] {3},
            false,
            List.of(new UniqueKey(List.of("id"), false, true)),
            null,
            new long[] {3},
            List.of(new ForeignKey(2, List.of("parent_id"), List.of("id"))),
            List.of());

    private static final StatementDescription INSERT_NODE =
            sql("INSERT INTO node (id, parent_id, name) VALUES (?, ?, ?)");

    @Test
    void aSelfReferencingBatchWhoseRowsReferenceOnlyEarlierRowsIsCoalesced() {
        assertNull(ForeignKeyOrder.insertReason(
                INSERT_NODE,
                rows(row(1, null, "root"), row(2, 1, "a"), row(3, 1, "b"), row(4, 3, "c"), row(5, 5, "self")),
                NODE));
        BatchPlan plan =
                BatchPlanner.plan(INSERT_NODE, rows(row(1, null, "root"), row(2, 1, "a")), NODE, null, settings());
        assertFalse(plan.isFallback(), plan.toString());
    }

    @Test
    void aRowReferencingALaterRowOfTheBatchRunsAsSent() {
        assertEquals(
                "a row may reference a later row of the batch through a self-referencing foreign key",
                ForeignKeyOrder.insertReason(INSERT_NODE, rows(row(2, 1, "child first"), row(1, null, "root")), NODE)
                        .text());
        // 1L and 1 are one key to the server
        assertTrue(BatchPlanner.plan(INSERT_NODE, rows(row(2, 1L, "a"), row(1, null, "b")), NODE, null, settings())
                .isFallback());
    }

    @Test
    void valuesJavaCannotCompareLikeTheServerCountAsPossiblyEqual() {
        // setString on an integer column: "01" is the server's 1
        assertTrue(ForeignKeyOrder.insertReason(INSERT_NODE, rows(row(2, "01", "a"), row(1, null, "b")), NODE) != null);
        // a key the batch does not supply (a serial default) may be any later row's
        StatementDescription defaulted = sql("INSERT INTO node (parent_id, name) VALUES (?, ?)");
        assertTrue(ForeignKeyOrder.insertReason(defaulted, rows(row(7, "a"), row(8, "b")), NODE) != null);
        // unless no row references anything
        assertNull(ForeignKeyOrder.insertReason(defaulted, rows(row(null, "a"), row(null, "b")), NODE));
    }

    @Test
    void deletesFromASelfReferencingTableAndUpdatesOfReferencedColumnsRunAsSent() {
        assertEquals(
                "DELETE batch on a self-referencing table",
                ForeignKeyOrder.keyedReason(sql("DELETE FROM node WHERE id = ?"), NODE)
                        .text());
        assertEquals(
                "UPDATE batch sets a column a foreign key references",
                ForeignKeyOrder.keyedReason(sql("UPDATE parent SET id = ? WHERE name = ?"), PARENT)
                        .text());
        assertNull(
                ForeignKeyOrder.keyedReason(sql("UPDATE node SET parent_id = ? WHERE id = ?"), NODE),
                "no key changes, so every check sees the same parents in any order");
        assertNull(
                ForeignKeyOrder.keyedReason(sql("DELETE FROM parent WHERE id = ?"), PARENT),
                "one table's DELETE cannot give back what it takes");
    }

    @Test
    void aStatementChainStartsANewStatementWhereALaterMemberCouldSatisfyAnEarlierCheck() throws SQLException {
        Map<String, TableInfo> catalog = Map.of("parent", PARENT, "child", CHILD, "node", NODE);
        // child before parent: two statements, so the child's check runs before the parent exists
        assertEquals(
                List.of(List.of(0), List.of(1, 2)),
                groups(
                        catalog,
                        "INSERT INTO child VALUES (1, 2, 'c')",
                        "INSERT INTO parent VALUES (1, 'p')",
                        "INSERT INTO parent VALUES (2, 'q')"));
        // parent before child: one statement (the end-of-statement check sees the parent, as the second statement
        // would)
        assertEquals(
                List.of(List.of(0, 1)),
                groups(catalog, "INSERT INTO parent VALUES (1, 'p')", "INSERT INTO child VALUES (1, 1, 'c')"));
        // a parent deleted before its children: nothing left to chain, so all as sent
        assertEquals(
                List.of(), groups(catalog, "DELETE FROM parent WHERE id = 1", "DELETE FROM child WHERE parent_id = 1"));
        assertEquals(
                List.of(List.of(0, 1)),
                groups(catalog, "DELETE FROM child WHERE parent_id = 1", "DELETE FROM parent WHERE id = 1"));
        // an UPDATE of the child that does not touch its foreign key queues no check
        assertEquals(
                List.of(List.of(0, 1)),
                groups(catalog, "UPDATE child SET name = 'x' WHERE id = 1", "INSERT INTO parent VALUES (1, 'p')"));
        // ... nor does an UPDATE of the parent that leaves its keys alone
        assertEquals(
                List.of(List.of(0, 1)),
                groups(catalog, "INSERT INTO child VALUES (1, 10, 'c')", "UPDATE parent SET name = 'n' WHERE id = 10"));
        assertEquals(
                List.of(List.of(0), List.of(1, 2)),
                groups(
                        catalog,
                        "INSERT INTO child VALUES (1, 10, 'c')",
                        "UPDATE parent SET id = 10 WHERE id = 9",
                        "INSERT INTO node VALUES (3, NULL, 'r')"));
        // INSERTs into one self-referencing table: each its own statement
        assertEquals(
                List.of(),
                groups(catalog, "INSERT INTO node VALUES (2, 1, 'b')", "INSERT INTO node VALUES (1, NULL, 'a')"));
    }

    /** The members of each statement of the chain's plan; empty when the batch runs as sent. */
    private static List<List<Integer>> groups(Map<String, TableInfo> catalog, String... texts) throws SQLException {
        List<StatementDescription> members =
                java.util.Arrays.stream(texts).map(PlannerFixture::sql).toList();
        BatchPlan plan = StatementBatchPlanner.plan(members, catalog::get, settings());
        return plan.isFallback() ? List.of() : PlannerFixture.rowsOf(plan);
    }
}
