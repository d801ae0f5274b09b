package dev.flushless.jdbc.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.differential.Schema.Column;
import dev.flushless.jdbc.differential.Schema.Generated;
import dev.flushless.jdbc.differential.Schema.Table;
import dev.flushless.jdbc.differential.Schema.Type;
import dev.flushless.jdbc.differential.Step.Op;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The tester's own checks: the oracle explains exactly the documented deviations (and rejects a forged Flushless
 * run whose error left its transaction, or that accepted a child whose parent never came), the comparison sees a
 * changed count, and the shrinker finds the steps a failure needs.
 */
class DifferentialTesterSelfTest {

    private static DifferentialTester tester;

    @BeforeAll
    static void start() throws Exception {
        tester = new DifferentialTester(false);
    }

    @AfterAll
    static void stop() throws Exception {
        tester.close();
    }

    /** t0 (id int primary key, v int) and t1 (id int primary key, parent_id int references t0). */
    private static Schema schema() {
        Column id = new Column("id", Type.INT, true, null, Generated.NONE);
        Table parent = new Table("t0", List.of(id, new Column("v", Type.INT, false, null, Generated.NONE)), List.of("id"),
                null, null, null, null, false);
        Table child = new Table("t1", List.of(id, new Column("parent_id", Type.INT, false, null, Generated.NONE)),
                List.of("id"), null, new Schema.ForeignKey("parent_id", "t0", "id", false), null, null, false);
        return new Schema(List.of(parent, child));
    }

    private static Step insert(String table, String values) {
        String columns = table.equals("t0") ? "(id, v)" : "(id, parent_id)";
        return new Step.Exec(Op.INSERT, table, "INSERT INTO " + table + " " + columns + " VALUES " + values, null,
                Step.Call.EXECUTE_UPDATE, false);
    }

    private static Step.Text text(String table, String values) {
        return new Step.Text(Op.INSERT, table, ((Step.Exec) insert(table, values)).sql());
    }

    private static Program program(Step... steps) {
        return new Program(0, schema(), List.of(steps), Program.Recovery.ROLLBACK);
    }

    @Test
    void anErrorOfABufferedInsertMayMoveLaterWithinItsTransactionButNotOutOfIt() throws Exception {
        Program program = program(new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null), insert("t0", "(1, 1)"),
                insert("t0", "(1, 2)"), insert("t0", "(2, 2)"), new Step.Tx(Step.TxOp.COMMIT, null),
                new Step.Query(Op.SELECT, "t0", "SELECT * FROM t0 ORDER BY id", null));
        Runner.Run bare = tester.runDirect(program, null);
        Runner.Run flushless = tester.runDirect(program, "transaction");
        assertEquals("23505", bare.steps().get(2).sqlState(), "bare pgjdbc raises the duplicate at its INSERT");
        assertTrue(flushless.steps().get(2).ok(), "mode=transaction acknowledges it");
        assertEquals("23505", flushless.steps().get(4).sqlState(), "and raises it at commit()");
        Runner.Run oracle = tester.runOracle(program, "transaction", flushless);
        assertEquals(null, DifferentialTester.difference(oracle, flushless, program));
        assertTrue(oracle.notes().contains("error of a buffered write raised later (deviation 1)"), oracle.notes()::toString);
        assertTrue(tester.check(program).ok());

        // Forged: commit() succeeds and the error turns up after the transaction, at the query.
        List<StepResult> forged = new ArrayList<>(flushless.steps());
        forged.set(4, StepResult.ok("committed").withSequences(forged.get(4).sequences()));
        forged.set(5, flushless.steps().get(4).withRecovery(null));
        Runner.Run moved = new Runner.Run(forged, flushless.finalRows(), flushless.finalSequences(), List.of());
        Runner.Run strict = tester.runOracle(program, "transaction", moved);
        String difference = DifferentialTester.difference(strict, moved, program);
        assertNotNull(difference);
        assertTrue(difference.startsWith("step 4"), difference);
    }

    @Test
    void aBatchMayAcceptAChildBeforeItsParentButNotAChildWithoutOne() throws Exception {
        Program program = program(new Step.TextBatch(List.of(text("t1", "(10, 5)"), text("t0", "(5, 0)"))),
                new Step.Query(Op.SELECT, "t1", "SELECT * FROM t1 ORDER BY id", null));
        Runner.Run bare = tester.runDirect(program, null);
        Runner.Run flushless = tester.runDirect(program, "batch");
        assertEquals("23503", bare.steps().get(0).sqlState());
        assertEquals("counts=[1, 1]", flushless.steps().get(0).value(), "one coalesced statement checks at its end");
        assertEquals(null, DifferentialTester.difference(tester.runOracle(program, "batch", flushless), flushless, program));

        Program orphan = program(new Step.TextBatch(List.of(text("t1", "(10, 7)"), text("t0", "(5, 0)"))));
        Runner.Run real = tester.runDirect(orphan, "batch");
        assertFalse(real.steps().get(0).ok(), "the parent never comes: Flushless fails too");
        List<StepResult> forged = new ArrayList<>(real.steps());
        forged.set(0, StepResult.ok("counts=[1, 1]"));
        Runner.Run accepted = new Runner.Run(forged, real.finalRows(), real.finalSequences(), List.of());
        assertNotNull(DifferentialTester.difference(tester.runOracle(orphan, "batch", accepted), accepted, orphan));
    }

    @Test
    void aChangedCountIsADifference() throws Exception {
        Program program = program(insert("t0", "(1, 1)"),
                new Step.Exec(Op.UPDATE, "t0", "UPDATE t0 SET v = 3 WHERE id = 1", null, Step.Call.EXECUTE_UPDATE, false));
        Runner.Run bare = tester.runDirect(program, null);
        List<StepResult> forged = new ArrayList<>(bare.steps());
        forged.set(1, StepResult.ok("count=0"));
        String difference = DifferentialTester.difference(bare,
                new Runner.Run(forged, bare.finalRows(), bare.finalSequences(), List.of()), program);
        assertNotNull(difference);
        assertTrue(difference.startsWith("step 1"), difference);
    }

    @Test
    void theShrinkerKeepsOnlyTheStepsAFailureNeeds() throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            steps.add(insert("t0", "(" + i + ", 0)"));
        }
        Step a = steps.get(7);
        Step b = steps.get(23);
        Shrinker shrinker = new Shrinker(p -> p.steps().contains(a) && p.steps().contains(b),
                System.currentTimeMillis() + 10_000);
        Program small = shrinker.shrink(program(steps.toArray(new Step[0])));
        assertEquals(List.of(a, b), small.steps());
    }
}
