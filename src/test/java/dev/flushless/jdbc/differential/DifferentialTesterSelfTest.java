package dev.flushless.jdbc.differential;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
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
 * changed count, a close() that dropped the buffer shows in the final sequences, and the shrinker finds the steps a
 * failure needs.
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
        Table parent = new Table(
                "t0",
                List.of(id, new Column("v", Type.INT, false, null, Generated.NONE)),
                List.of("id"),
                null,
                null,
                null,
                null,
                false);
        Table child = new Table(
                "t1",
                List.of(id, new Column("parent_id", Type.INT, false, null, Generated.NONE)),
                List.of("id"),
                null,
                new Schema.ForeignKey("parent_id", "t0", "id", false),
                null,
                null,
                false);
        return new Schema(List.of(parent, child));
    }

    /** {@code name} (id serial primary key, v int). */
    private static Table serialTable(String name) {
        return new Table(
                name,
                List.of(
                        new Column("id", Type.INT, true, null, Generated.SERIAL),
                        new Column("v", Type.INT, false, null, Generated.NONE)),
                List.of("id"),
                null,
                null,
                null,
                null,
                false);
    }

    private static Step insert(String table, String values) {
        String columns = table.equals("t0") ? "(id, v)" : "(id, parent_id)";
        return new Step.Exec(
                Op.INSERT,
                table,
                "INSERT INTO " + table + " " + columns + " VALUES " + values,
                null,
                Step.Call.EXECUTE_UPDATE,
                false);
    }

    private static Step.Text text(String table, String values) {
        return new Step.Text(Op.INSERT, table, ((Step.Exec) insert(table, values)).sql());
    }

    private static Program program(Step... steps) {
        return new Program(0, schema(), List.of(steps), Program.Recovery.ROLLBACK);
    }

    @Test
    void anErrorOfABufferedInsertMayMoveLaterWithinItsTransactionButNotOutOfIt() throws Exception {
        Program program = program(
                new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null),
                insert("t0", "(1, 1)"),
                insert("t0", "(1, 2)"),
                insert("t0", "(2, 2)"),
                new Step.Tx(Step.TxOp.COMMIT, null),
                new Step.Query(Op.SELECT, "t0", "SELECT * FROM t0 ORDER BY id", null));
        Runner.Run bare = tester.runDirect(program, null);
        Runner.Run flushless = tester.runDirect(program, "transaction");
        assertEquals("23505", bare.steps().get(2).sqlState(), "bare pgjdbc raises the duplicate at its INSERT");
        assertTrue(flushless.steps().get(2).ok(), "mode=transaction acknowledges it");
        assertEquals("23505", flushless.steps().get(4).sqlState(), "and raises it at commit()");
        Runner.Run oracle = tester.runOracle(program, "transaction", flushless);
        assertEquals(null, DifferentialTester.difference(oracle, flushless, program));
        assertTrue(
                oracle.notes().contains("error of a buffered write raised later (deviation 1)"),
                oracle.notes()::toString);
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

    /**
     * A transaction left open with a buffered INSERT when the program ends: bare pgjdbc ran the INSERT (drawing a
     * sequence value) and the server rolls it back at close; so does mode=transaction, whose close() sends the buffer
     * first. A forged run whose close() dropped the buffer (nothing drawn) is a difference: the final sequences are
     * compared exactly unless the run reports that close()'s send failed.
     */
    @Test
    void aDroppedBufferIsADifference() throws Exception {
        Table serial = serialTable("s0");
        Step insert =
                new Step.Exec(Op.INSERT, "s0", "INSERT INTO s0 (v) VALUES (1)", null, Step.Call.EXECUTE_UPDATE, false);
        Schema schema = new Schema(List.of(serial));
        Program program = new Program(
                0,
                schema,
                List.of(new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null), insert, insert),
                Program.Recovery.ROLLBACK);
        assertTrue(tester.check(program).ok(), "the real run agrees");
        Runner.Run flushless = tester.runDirect(program, "transaction");
        Runner.Run nothingSent = tester.runDirect(
                new Program(0, schema, List.of(new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null)), Program.Recovery.ROLLBACK),
                "transaction");
        assertNotEquals(flushless.finalSequences(), nothingSent.finalSequences(), "close() sent the buffered INSERTs");
        Runner.Run dropped =
                new Runner.Run(flushless.steps(), flushless.finalRows(), nothingSent.finalSequences(), List.of());
        Runner.Run oracle = tester.runOracle(program, "transaction", dropped);
        String difference = DifferentialTester.difference(oracle, dropped, program);
        assertNotNull(difference, "a close() that dropped the buffer passed");
        assertTrue(difference.startsWith("final sequences"), difference);
    }

    /**
     * Batch mode keeps the application's foreign-key order: a Statement batch with a child before its parent fails as
     * under bare pgjdbc, and a forged Flushless run that accepted it (as one coalesced statement checking at its end
     * would) is a difference, not a documented deviation.
     */
    @Test
    void aBatchThatAcceptsAChildBeforeItsParentIsADifference() throws Exception {
        Program program = program(
                new Step.TextBatch(List.of(text("t1", "(10, 5)"), text("t0", "(5, 0)"))),
                new Step.Query(Op.SELECT, "t1", "SELECT * FROM t1 ORDER BY id", null));
        Runner.Run bare = tester.runDirect(program, null);
        Runner.Run flushless = tester.runDirect(program, "batch");
        assertEquals("23503", bare.steps().get(0).sqlState());
        assertEquals("23503", flushless.steps().get(0).sqlState(), "the child's check runs before the parent exists");
        assertEquals(null, DifferentialTester.difference(bare, flushless, program));

        List<StepResult> forged = new ArrayList<>(flushless.steps());
        forged.set(0, StepResult.ok("counts=[1, 1]"));
        Runner.Run accepted = new Runner.Run(forged, flushless.finalRows(), flushless.finalSequences(), List.of());
        assertNotNull(DifferentialTester.difference(tester.runOracle(program, "batch", accepted), accepted, program));
    }

    /** A run in which the server saw no coalesced statement for a mode (or saw one for bare pgjdbc) is caught. */
    @Test
    void aRunWithoutRewritesIsCaught() {
        assertNotNull(DifferentialTester.noRewriteSeen(
                java.util.Map.of("bare", 0L, "off", 0L, "batch", 0L, "transaction", 80L)));
        assertNotNull(DifferentialTester.noRewriteSeen(
                java.util.Map.of("bare", 0L, "off", 3L, "batch", 90L, "transaction", 60L)));
        assertEquals(
                null,
                DifferentialTester.noRewriteSeen(
                        java.util.Map.of("bare", 0L, "off", 0L, "batch", 90L, "transaction", 60L)));
    }

    /**
     * Deviation 4's tolerance is narrow: a failed attempt's extra draws are accepted only upwards, only in the
     * sequences of the tables the attempt wrote, and only by as many values as it had rows; a doubled draw, a draw in
     * another table's sequence, or one from an earlier autocommit step is a mismatch.
     */
    @Test
    void theSequenceToleranceRejectsForgedDraws() {
        Table s0 = serialTable("s0");
        Table s1 = serialTable("s1");
        Step batch = new Step.Batch(
                Op.INSERT,
                "s0",
                "INSERT INTO s0 (v) VALUES (?)",
                List.of(List.of(), List.of(), List.of()),
                false,
                false);
        Step single =
                new Step.Exec(Op.INSERT, "s1", "INSERT INTO s1 (v) VALUES (1)", null, Step.Call.EXECUTE_UPDATE, false);
        Program autocommit =
                new Program(0, new Schema(List.of(s0, s1)), List.of(batch, single), Program.Recovery.ROLLBACK);
        Runner runner = new Runner(null, null, "p", autocommit, Runner.Semantics.ORACLE_BATCH, null, false, false);
        assertTrue(
                runner.withinDrift(0, "s0_id_seq=3 s1_id_seq=1(unused)", "s0_id_seq=6 s1_id_seq=1(unused)", false),
                "three rows failed once: up to three more values");
        assertFalse(
                runner.withinDrift(0, "s0_id_seq=3 s1_id_seq=1(unused)", "s0_id_seq=9 s1_id_seq=1(unused)", false),
                "a doubled draw");
        assertFalse(
                runner.withinDrift(0, "s0_id_seq=6 s1_id_seq=1(unused)", "s0_id_seq=3 s1_id_seq=1(unused)", false),
                "fewer values than bare pgjdbc");
        assertFalse(
                runner.withinDrift(0, "s0_id_seq=3 s1_id_seq=1(unused)", "s0_id_seq=3 s1_id_seq=2", false),
                "a table the step did not write");
        assertFalse(
                runner.withinDrift(1, "s0_id_seq=3 s1_id_seq=1", "s0_id_seq=4 s1_id_seq=1", false),
                "an earlier autocommit step's table");
        Program transaction = new Program(
                0,
                new Schema(List.of(s0, s1)),
                List.of(new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null), batch, single),
                Program.Recovery.ROLLBACK);
        Runner inTransaction =
                new Runner(null, null, "p", transaction, Runner.Semantics.ORACLE_TRANSACTION, null, false, false);
        assertTrue(
                inTransaction.withinDrift(2, "s0_id_seq=3 s1_id_seq=1", "s0_id_seq=5 s1_id_seq=2", false),
                "a flush at step 2 may have sent the transaction's earlier batch too");
    }

    /** Error messages are compared: a changed message is a difference; pgjdbc's rendered parameter types are not. */
    @Test
    void aChangedErrorMessageIsADifference() {
        StepResult bare = StepResult.error(new java.sql.SQLException("ERROR: duplicate key value (id)=(1)", "23505"));
        assertFalse(bare.allows(
                StepResult.error(new java.sql.SQLException("ERROR: duplicate key value (id)=(2)", "23505"))));
        assertTrue(bare.allows(
                StepResult.error(new java.sql.SQLException("ERROR: duplicate key value (id)=(1)", "23505"))));
        StepResult entry = StepResult.error(new java.sql.SQLException(
                "Batch entry 0 INSERT INTO t VALUES (('2024-01-16 +00')) was aborted: ERROR: x", "23503"));
        assertTrue(entry.allows(StepResult.error(new java.sql.SQLException(
                "Batch entry 0 INSERT INTO t VALUES (('2024-01-16 +00'::date)) was aborted: ERROR: x", "23503"))));
        assertFalse(entry.allows(StepResult.error(new java.sql.SQLException(
                "Batch entry 0 INSERT INTO t VALUES (('2024-01-17 +00'::date)) was aborted: ERROR: x", "23503"))));
    }

    @Test
    void aChangedCountIsADifference() throws Exception {
        Program program = program(
                insert("t0", "(1, 1)"),
                new Step.Exec(
                        Op.UPDATE, "t0", "UPDATE t0 SET v = 3 WHERE id = 1", null, Step.Call.EXECUTE_UPDATE, false));
        Runner.Run bare = tester.runDirect(program, null);
        List<StepResult> forged = new ArrayList<>(bare.steps());
        forged.set(1, StepResult.ok("count=0"));
        String difference = DifferentialTester.difference(
                bare, new Runner.Run(forged, bare.finalRows(), bare.finalSequences(), List.of()), program);
        assertNotNull(difference);
        assertTrue(difference.startsWith("step 1"), difference);
    }

    /**
     * A re-run as sent is wasted only when it raised no error. One that raised the error is the error path, also where
     * bare pgjdbc ran the step without one because its run failed, and rolled back, at an earlier step (deviation 1):
     * forged runs of {@code BEGIN; INSERT (buffered); INSERT (buffered); SELECT (flush)} show the three cases.
     */
    @Test
    void onlyAReRunThatRaisedNoErrorIsWasted() {
        Program program = program(
                new Step.Tx(Step.TxOp.AUTOCOMMIT_OFF, null),
                insert("t0", "(1, 1)"),
                insert("t1", "(1, 1)"),
                new Step.Query(Op.SELECT, "t0", "SELECT * FROM t0 ORDER BY id", null));
        java.sql.SQLException duplicate = new java.sql.SQLException("ERROR: duplicate key", "23505");
        List<StepResult> bareOk = List.of(
                StepResult.ok("autocommit=false"),
                StepResult.ok("count=1"),
                StepResult.ok("count=1"),
                StepResult.ok("rows"));
        List<StepResult> bareFailedEarlier = List.of(
                StepResult.ok("autocommit=false"),
                StepResult.error(duplicate),
                StepResult.ok("count=1"),
                StepResult.ok("rows"));
        List<StepResult> reRanFine = List.of(
                StepResult.ok("autocommit=false"),
                StepResult.ok("count=1"),
                StepResult.ok("count=1"),
                StepResult.ok("rows").withReRuns(StepResult.BUFFER_RERUN));
        List<StepResult> reRanAndRaised = List.of(
                StepResult.ok("autocommit=false"),
                StepResult.ok("count=1"),
                StepResult.ok("count=1"),
                StepResult.error(duplicate).withReRuns(StepResult.BUFFER_RERUN));
        DifferentialTester.ReRun none = DifferentialTester.ReRun.NONE;
        assertEquals(
                List.of(none, none, none, DifferentialTester.ReRun.WASTED),
                DifferentialTester.reRuns("transaction", program, run(bareOk), run(reRanFine)));
        assertEquals(
                List.of(none, none, none, DifferentialTester.ReRun.RAISED_IN_DIVERGED_RUN),
                DifferentialTester.reRuns("transaction", program, run(bareOk), run(reRanAndRaised)));
        assertEquals(
                List.of(none, none, none, DifferentialTester.ReRun.RAISED),
                DifferentialTester.reRuns("transaction", program, run(bareFailedEarlier), run(reRanAndRaised)));
    }

    private static Runner.Run run(List<StepResult> steps) {
        return new Runner.Run(steps, "", "", List.of());
    }

    @Test
    void theShrinkerKeepsOnlyTheStepsAFailureNeeds() throws Exception {
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            steps.add(insert("t0", "(" + i + ", 0)"));
        }
        Step a = steps.get(7);
        Step b = steps.get(23);
        Shrinker shrinker =
                new Shrinker(p -> p.steps().contains(a) && p.steps().contains(b), System.currentTimeMillis() + 10_000);
        Program small = shrinker.shrink(program(steps.toArray(new Step[0])));
        assertEquals(List.of(a, b), small.steps());
    }
}
