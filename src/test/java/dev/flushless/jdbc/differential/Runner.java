package dev.flushless.jdbc.differential;

import dev.flushless.jdbc.differential.Schema.Table;
import dev.flushless.jdbc.differential.Step.Op;
import java.sql.BatchUpdateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Runs a {@link Program} on one connection and records what the application observes ({@link StepResult} per
 * step), the state of every sequence after each step, and finally the rows of every table and the sequences.
 *
 * <p>{@link Semantics#DIRECT} simply runs the steps (bare pgjdbc, or Flushless in any mode). The two oracle
 * semantics run the steps on <em>bare pgjdbc</em> against a copy of the schema whose foreign key is
 * {@code DEFERRABLE INITIALLY IMMEDIATE}, and execute exactly the documented semantics of a Flushless mode,
 * resolving the choices the documentation leaves open from the Flushless run being checked (the "guide"); see
 * {@link DifferentialTester} for the model and why it is precise.
 */
final class Runner {

    enum Semantics {
        DIRECT,
        ORACLE_BATCH,
        ORACLE_TRANSACTION
    }

    /** A finished run. {@code notes} lists the documented deviations (and tolerated drifts) the oracle applied. */
    record Run(
            List<StepResult> steps,
            String finalRows,
            String finalSequences,
            List<String> notes,
            List<List<String>> reRunCauses) {

        /** A run without re-run causes (the self-tests' forged runs). */
        Run(List<StepResult> steps, String finalRows, String finalSequences, List<String> notes) {
            this(
                    steps,
                    finalRows,
                    finalSequences,
                    notes,
                    java.util.Collections.nCopies(steps.size(), List.<String>of()));
        }
    }

    private final Connection c;
    private final Connection admin;
    private final String schemaName;
    private final Program program;
    private final Semantics semantics;
    private final Run guide;
    private final boolean strictSequences;
    /** The Flushless runs have {@code flushless.exactSequences=true}: INSERTs into tables with sequences are not buffered. */
    private final boolean exactSequences;

    private final Map<String, Savepoint> savepoints = new HashMap<>();
    /** Names of the savepoints set and not yet released or rolled back past, in order. */
    private final List<String> open = new ArrayList<>();
    /** Oracle of mode=transaction: the buffered (acknowledged, not yet run) steps. */
    private final List<Integer> pending = new ArrayList<>();

    private final List<String> notes = new ArrayList<>();
    private List<String> sequenceNames = List.of();
    /** Set while a step discarded buffered INSERTs that draw from a sequence (oracle of mode=transaction). */
    private boolean discardedDrawing;
    /** Set when the program ended with buffered steps, which close() sends (oracle of mode=transaction). */
    private boolean closedWithBuffer;

    /** Noted by a Flushless run whose close() sent buffered writes that failed together and were re-run as sent. */
    static final String CLOSE_RE_RAN = "close() re-ran buffered writes as sent";

    private static final String DRAW_BEFORE_ROLLBACK_FAILED =
            dev.flushless.jdbc.FallbackReason.DRAW_BEFORE_ROLLBACK_FAILED.code();
    private static final String BUFFER_FAILED = dev.flushless.jdbc.FallbackReason.BUFFER_FAILED.code();
    private static final String COALESCED_FAILED = dev.flushless.jdbc.FallbackReason.COALESCED_FAILED.code();

    /**
     * Rows a Flushless connection re-ran as sent for fallback reasons starting with {@code reason} (0 for pgjdbc):
     * "buffered writes failed when sent together", "coalesced statement failed (SQLState ...)".
     */
    /** The texts of the re-runs a step caused ("code: text", from the DEBUG log), from {@code from} on. */
    private static List<String> reRunCauses(List<String> texts, int from) {
        List<String> causes = new ArrayList<>();
        for (String text : texts.subList(Math.min(from, texts.size()), texts.size())) {
            if (text.startsWith(BUFFER_FAILED)
                    || text.startsWith(COALESCED_FAILED)
                    || text.startsWith(DRAW_BEFORE_ROLLBACK_FAILED)) {
                causes.add(text.substring(text.indexOf(": ") + 2));
            }
        }
        return causes;
    }

    private static long reRuns(dev.flushless.jdbc.stats.FlushlessStats stats, String reason) {
        if (stats == null) {
            return 0;
        }
        long rows = 0;
        for (Map.Entry<String, Long> e : stats.fallbacks().entrySet()) {
            if (e.getKey().startsWith(reason)) {
                rows += e.getValue();
            }
        }
        return rows;
    }

    /**
     * @param c the connection the program runs on (closed by the run)
     * @param admin a bare connection to the same database, for sequence states and final rows
     * @param guide the Flushless run an oracle run follows (null for {@link Semantics#DIRECT})
     */
    Runner(
            Connection c,
            Connection admin,
            String schemaName,
            Program program,
            Semantics semantics,
            Run guide,
            boolean strictSequences,
            boolean exactSequences) {
        this.c = c;
        this.admin = admin;
        this.schemaName = schemaName;
        this.program = program;
        this.semantics = semantics;
        this.guide = guide;
        this.strictSequences = strictSequences;
        this.exactSequences = exactSequences;
    }

    /** The fallback texts the driver logs during the run (the report counts codes only). */
    private dev.flushless.jdbc.testing.FallbackLog fallbackLog;

    Run run() throws SQLException {
        sequenceNames = readSequenceNames();
        dev.flushless.jdbc.stats.FlushlessStats stats = c.isWrapperFor(dev.flushless.jdbc.FlushlessConnection.class)
                ? c.unwrap(dev.flushless.jdbc.FlushlessConnection.class).flushlessStats()
                : null;
        List<StepResult> results = new ArrayList<>();
        List<List<String>> causes = new ArrayList<>();
        fallbackLog = new dev.flushless.jdbc.testing.FallbackLog();
        try {
            for (int i = 0; i < program.steps().size(); i++) {
                discardedDrawing = false;
                int logBefore = fallbackLog.texts().size();
                long bufferReRunsBefore = reRuns(stats, BUFFER_FAILED);
                long statementReRunsBefore = reRuns(stats, COALESCED_FAILED);
                long rollbackDrawsBefore = reRuns(stats, DRAW_BEFORE_ROLLBACK_FAILED);
                StepResult result;
                modelledEnd = null;
                try {
                    result = execute(i, program.steps().get(i));
                } catch (Exception | AssertionError e) {
                    result = StepResult.error(e);
                }
                if (!result.ok()) {
                    result = result.withRecovery(recover());
                }
                int bits = (reRuns(stats, BUFFER_FAILED) > bufferReRunsBefore ? StepResult.BUFFER_RERUN : 0)
                        | (reRuns(stats, COALESCED_FAILED) > statementReRunsBefore ? StepResult.STATEMENT_RERUN : 0)
                        | (reRuns(stats, DRAW_BEFORE_ROLLBACK_FAILED) > rollbackDrawsBefore
                                ? StepResult.ROLLBACK_DRAW_FAILED
                                : 0);
                if (bits != 0) {
                    result = result.withReRuns(bits);
                }
                if (!sequenceNames.isEmpty()) {
                    String state = sequenceState();
                    if (semantics != Semantics.DIRECT) {
                        state = reconcile(i, state, guide.steps().get(i), result);
                    }
                    result = result.withSequences(state);
                }
                results.add(result);
                causes.add(stats == null ? List.of() : reRunCauses(fallbackLog.texts(), logBefore));
            }
            if (semantics == Semantics.ORACLE_TRANSACTION && !pending.isEmpty()) {
                // close() sends the buffer (its errors are not reported); the server then rolls back
                closedWithBuffer = true;
                flushQuietly();
            }
        } finally {
            fallbackLog.close();
            long closeReRunsBefore = reRuns(stats, BUFFER_FAILED);
            try {
                c.close();
            } catch (SQLException ignored) {
                // a run may leave its connection broken; the final state is read on the admin connection
            }
            if (reRuns(stats, BUFFER_FAILED) > closeReRunsBefore) {
                notes.add(CLOSE_RE_RAN);
            }
        }
        String sequences = sequenceNames.isEmpty() ? "" : sequenceState();
        if (semantics != Semantics.DIRECT
                && !sequenceNames.isEmpty()
                && !sequences.equals(guide.finalSequences())
                && !strictSequences
                && closedWithBuffer
                && guide.notes().contains(CLOSE_RE_RAN)
                && withinDrift(program.steps().size() - 1, sequences, guide.finalSequences(), true)) {
            // close() sends the buffer and does not report its errors: when that send failed, it drew values before
            // its re-run as sent, as many as its statements reached (the known drift; nothing else of it is
            // observable, and the oracle cannot tell how Flushless grouped the statements, so either direction);
            // tolerated only when the Flushless run's close() did re-run its buffer, in the sequences of the tables
            // the transaction wrote, by at most its rows
            resync(guide.finalSequences());
            notes.add("sequence drift tolerated (deviation 4): the buffer sent by close() failed and was re-run");
            sequences = sequenceState();
        }
        return new Run(List.copyOf(results), finalRows(), sequences, List.copyOf(notes), List.copyOf(causes));
    }

    // ---- one step ----

    private StepResult execute(int i, Step step) throws Exception {
        switch (semantics) {
            case DIRECT:
                return StepResult.ok(perform(step));
            case ORACLE_BATCH:
                if (models(guide.steps().get(i)) && isBatch(step)) {
                    calibrate(List.of(), step, guide.steps().get(i));
                }
                // batch mode keeps the application's foreign-key order (ForeignKeyOrder): no deferred checks
                return StepResult.ok(perform(step));
            case ORACLE_TRANSACTION:
                return transactionStep(i, step);
            default:
                throw new IllegalStateException();
        }
    }

    private static boolean isBatch(Step step) {
        return step instanceof Step.Batch || step instanceof Step.TextBatch;
    }

    /**
     * Runs {@code step} with the foreign-key checks deferred to its end (a coalesced batch is one statement, or
     * several: checking once at the end accepts everything any split accepts; the Flushless run succeeded, so the
     * split it used accepted it).
     */
    private String deferredForeignKeys(Step step, int i) throws Exception {
        boolean auto = c.getAutoCommit();
        if (auto) {
            c.setAutoCommit(false);
        }
        try {
            sql("SET CONSTRAINTS ALL DEFERRED");
            String value = perform(step);
            sql("SET CONSTRAINTS ALL IMMEDIATE");
            if (auto) {
                c.commit();
            }
            return value;
        } catch (Exception e) {
            if (auto) {
                c.rollback();
            }
            throw e;
        } finally {
            if (auto) {
                c.setAutoCommit(true);
            }
        }
    }

    // ---- the oracle of mode=transaction ----

    private StepResult transactionStep(int i, Step step) throws Exception {
        StepResult seen = guide.steps().get(i);
        boolean inTransaction = !c.getAutoCommit();
        if (inTransaction && open.isEmpty() && bufferable(step)) { // inside an open savepoint writes run at once
            String ack = acknowledgement(step);
            if (seen.ok() && ack.equals(seen.value())) {
                pending.add(i);
                return StepResult.ok(ack);
            }
            // Flushless ran it at once (or it was never buffered): a write like any other
        }
        if (step instanceof Step.Tx tx && tx.op() == Step.TxOp.ROLLBACK) {
            discardPending();
            return StepResult.ok(perform(step));
        }
        if (step instanceof Step.Tx tx
                && tx.savepoint() != null
                && tx.op() != Step.TxOp.SAVEPOINT
                && !savepoints.containsKey(tx.savepoint())) {
            return StepResult.ok(perform(step)); // the runner skips it: no JDBC call
        }
        boolean calibrated = false;
        if (models(seen) && (seen.reRuns() & StepResult.BUFFER_RERUN) != 0 && !pending.isEmpty()) {
            // the buffered writes (with the step, when it rode along) failed together and were re-run as sent
            List<Integer> writes = new ArrayList<>(pending);
            pending.clear();
            calibrate(writes, step.getClass() == Step.Tx.class || step instanceof Step.Query ? null : step, seen);
            calibrated = true;
            SQLException error = runPending(writes, false);
            if (error != null) {
                notes.add("error of a buffered write raised later (deviation 1)");
                return failedFlush(step, StepResult.deferredError(error));
            }
            notes.add("buffered writes sent later (deviation 1)");
        }
        if (!pending.isEmpty() && (flushesBefore(step) || !seen.ok())) {
            StepResult failed = flush(seen);
            if (failed != null) {
                return failedFlush(step, failed);
            }
        }
        if (models(seen) && isBatch(step) && !calibrated) {
            calibrate(List.of(), step, seen); // its own coalesced statement failed (after the buffer was sent)
        }
        if (isBatch(step) && seen.ok()) {
            return StepResult.ok(deferredForeignKeys(step, i));
        }
        return StepResult.ok(perform(step));
    }

    /** The step's answer when the buffered steps it sends fail: commit() has then rolled back. */
    private StepResult failedFlush(Step step, StepResult failed) throws SQLException {
        if (step instanceof Step.Tx tx && (tx.op() == Step.TxOp.COMMIT || tx.op() == Step.TxOp.AUTOCOMMIT_ON)) {
            c.rollback(); // commit() that fails has rolled the transaction back (the application does not know)
        }
        return failed;
    }

    /** True when the oracle models deviation 4 (sequence values) at this step (see {@link #calibrate}). */
    private boolean models(StepResult seen) {
        return seen.attempted() && !strictSequences && seen.sequences() != null;
    }

    /**
     * Deviation 4 (sequence values drawn by a failed attempt), modelled exactly (unless {@code strictSequences}) where the Flushless run reports it
     * ({@link StepResult#reRuns()}): its coalesced statement or flush failed and was undone, but the values it drew
     * from sequences stay drawn, and the re-run as sent draws new ones, which the rows then carry (and which can
     * even collide with explicit keys). How many values the failed attempt drew depends on where PostgreSQL stopped
     * inside Flushless's statement; the oracle derives it instead: it runs what follows the attempt (the buffered
     * writes as sent, then the step as it will run it) in a savepoint, notes the values that draws, rolls it back and
     * sets each sequence to the Flushless run's value after the step minus that number, before running it for real.
     * From there the oracle draws exactly the values the Flushless re-run drew.
     */
    /** What {@link #calibrate} modelled for the end of the current step, when its trial of the step failed. */
    private String modelledEnd;

    private void calibrate(List<Integer> writes, Step step, StepResult seen) throws Exception {
        Map<String, Long> before = positions(sequenceState());
        boolean trialFailed = false;
        boolean auto = c.getAutoCommit();
        if (auto) {
            c.setAutoCommit(false);
        } else {
            sql("SAVEPOINT flushless_trial");
        }
        try {
            for (int p : writes) {
                perform(program.steps().get(p));
            }
            if (step != null) {
                if (isBatch(step) && seen.ok() && semantics == Semantics.ORACLE_TRANSACTION) {
                    deferredForeignKeys(step, -1);
                } else {
                    perform(step);
                }
            }
        } catch (Exception expected) {
            // where it fails, it fails for real next
            trialFailed = true;
        }
        if (auto) {
            c.rollback();
            c.setAutoCommit(true);
        } else {
            sql("ROLLBACK TO SAVEPOINT flushless_trial");
            sql("RELEASE SAVEPOINT flushless_trial");
            sql("SET CONSTRAINTS ALL IMMEDIATE");
        }
        Map<String, Long> after = positions(sequenceState());
        Map<String, Long> target = positions(seen.sequences());
        StringBuilder state = new StringBuilder();
        StringBuilder end = new StringBuilder();
        boolean moved = false;
        for (String name : sequenceNames) {
            long drawnByReRun = after.get(name) - before.get(name);
            long start = target.get(name) - drawnByReRun;
            if (start < before.get(name)) {
                start = before.get(name); // Flushless drew fewer than the re-run alone would: not this bug
            }
            moved |= start != before.get(name);
            state.append(state.length() > 0 ? " " : "")
                    .append(name)
                    .append('=')
                    .append(start < 1 ? "1(unused)" : start);
            long last = start + drawnByReRun;
            end.append(end.length() > 0 ? " " : "").append(name).append('=').append(last < 1 ? "1(unused)" : last);
        }
        resync(state.toString());
        modelledEnd = trialFailed ? end.toString() : null;
        if (moved) {
            notes.add(
                    "sequence values modelled (deviation 4): a failed coalesced statement or flush drew values before its re-run");
        }
    }

    /** Documented: a plain INSERT ... VALUES without generated keys into a table without triggers. */
    private boolean bufferable(Step step) {
        if (step instanceof Step.Exec e) {
            return e.op() == Op.INSERT
                    && !e.keys()
                    && plain(e.table())
                    && (e.params() != null || !e.sql().contains("?"));
        }
        if (step instanceof Step.Batch b) {
            return b.op() == Op.INSERT && !b.keys() && plain(b.table());
        }
        if (step instanceof Step.TextBatch t) {
            for (Step.Text m : t.members()) {
                if (m.op() != Op.INSERT || !plain(m.table()) || m.sql().contains("?")) {
                    return false;
                }
            }
            return true;
        }
        return false;
    }

    private boolean plain(String table) {
        return program.schema().table(table).trigger() == null
                && !(exactSequences && program.schema().table(table).drawsFromSequence());
    }

    /** What a buffered step answers at once: one per row. */
    private static String acknowledgement(Step step) {
        if (step instanceof Step.Exec e) {
            return e.call() == Step.Call.EXECUTE ? executeValue(false, 1, -1) : "count=1";
        }
        long[] ones = new long[step.rows()];
        Arrays.fill(ones, 1);
        return "counts=" + Arrays.toString(ones);
    }

    /** Documented flush points: reads of a buffered table, sequence calls when a buffered INSERT draws, writes, savepoints, commit. */
    private boolean flushesBefore(Step step) {
        if (step instanceof Step.Query q) {
            if (q.op() == Op.NEXTVAL) {
                for (String table : pendingTables()) {
                    if (program.schema().table(table).drawsFromSequence()) {
                        return true;
                    }
                }
                return false;
            }
            return pendingTables().contains(q.table());
        }
        if (step instanceof Step.Tx tx) {
            return tx.op() != Step.TxOp.AUTOCOMMIT_OFF && tx.op() != Step.TxOp.ROLLBACK;
        }
        return true; // any other write
    }

    private Set<String> pendingTables() {
        Set<String> tables = new LinkedHashSet<>();
        for (int p : pending) {
            Step step = program.steps().get(p);
            if (step instanceof Step.Exec e) {
                tables.add(e.table());
            } else if (step instanceof Step.Batch b) {
                tables.add(b.table());
            } else if (step instanceof Step.TextBatch t) {
                for (Step.Text m : t.members()) {
                    tables.add(m.table());
                }
            }
        }
        return tables;
    }

    /**
     * Sends the buffered steps: {@code null} when they succeeded, else the error the step that sent them raises.
     * When the Flushless run succeeded, they run with the foreign-key checks deferred to their end (they may have
     * travelled as one statement); otherwise as sent, one after the other, and the first error is the answer. When
     * that error is not the one Flushless raised, the other documented possibility is tried: the buffered writes
     * were accepted together and the step itself failed.
     */
    /** The simple class names of the errors Flushless raises for a failed buffered write. */
    private static final java.util.Set<String> PINNED_ERRORS = java.util.Set.of(
            "SQLException",
            dev.flushless.jdbc.buffer.BufferedWriteFailure.ServerError.class.getSimpleName(),
            dev.flushless.jdbc.buffer.BufferedWriteFailure.BatchError.class.getSimpleName());

    private StepResult flush(StepResult seen) throws SQLException {
        List<Integer> writes = new ArrayList<>(pending);
        pending.clear();
        String before = sequenceNames.isEmpty() ? null : sequenceState();
        // Flushless raises a failed buffered write as its own error (BufferedWriteFailure's classes, or a plain
        // SQLException without server details); pgjdbc's own exception (or success) means the buffered writes went
        // through and the step itself answered.
        boolean acceptedFirst = seen.ok() || !PINNED_ERRORS.contains(seen.errorClass());
        if (acceptedFirst) {
            if (runPending(writes, true) == null) {
                notes.add(
                        seen.ok()
                                ? "buffered writes sent later (deviation 1)"
                                : "buffered writes accepted together, the step itself failed (deviations 1 and 2)");
                return null;
            }
            restore(before); // the oracle's own trial: it must not draw values
        }
        SQLException error = runPending(writes, false);
        if (error == null) {
            notes.add("buffered writes sent later (deviation 1)");
            return null;
        }
        if (!acceptedFirst && !Objects.equals(error.getSQLState(), seen.sqlState())) {
            sql("ROLLBACK TO SAVEPOINT flushless_oracle");
            restore(before);
            if (runPending(writes, true) == null) {
                notes.add("buffered writes accepted together, the step itself failed (deviations 1 and 2)");
                return null;
            }
            restore(before);
            error = runPending(writes, false);
            if (error == null) {
                return null;
            }
        }
        notes.add("error of a buffered write raised later (deviation 1)");
        return StepResult.deferredError(error);
    }

    /** Puts the sequences back where they were before one of the oracle's own trials. */
    private void restore(String state) throws SQLException {
        if (state != null) {
            resync(state);
        }
    }

    /**
     * Runs the buffered steps inside the savepoint {@code flushless_oracle} (left open and aborted on failure, as a
     * failed flush leaves the transaction), foreign-key checks deferred to their end when {@code together}.
     * Returns the server's error, or {@code null}.
     */
    private SQLException runPending(List<Integer> writes, boolean together) throws SQLException {
        sql("SAVEPOINT flushless_oracle");
        try {
            if (together) {
                sql("SET CONSTRAINTS ALL DEFERRED");
            }
            for (int p : writes) {
                perform(program.steps().get(p));
            }
            if (together) {
                sql("SET CONSTRAINTS ALL IMMEDIATE");
            }
            sql("RELEASE SAVEPOINT flushless_oracle");
            return null;
        } catch (Exception e) {
            SQLException server = e instanceof BatchUpdateException b && b.getNextException() != null
                    ? b.getNextException()
                    : e instanceof SQLException s ? s : new SQLException(e.toString(), "XXXXX", e);
            if (together) {
                sql("ROLLBACK TO SAVEPOINT flushless_oracle");
                sql("SET CONSTRAINTS ALL IMMEDIATE");
            }
            return server;
        }
    }

    /**
     * {@code rollback()} discards the buffer, after sending it together (one statement, foreign keys checked at its
     * end) when a buffered table draws from a sequence, so that the values bare pgjdbc's INSERTs drew at their steps
     * are drawn. The oracle does the same (and rolls it back); when that fails, the Flushless run reports it
     * ({@link StepResult#ROLLBACK_DRAW_FAILED}) and a sequence difference at the step is tolerated (deviation 4).
     */
    private void discardPending() throws SQLException {
        if (pending.isEmpty()) {
            return;
        }
        List<Integer> writes = new ArrayList<>(pending);
        pending.clear();
        for (int p : writes) {
            if (program.schema().table(tableOf(program.steps().get(p))).drawsFromSequence()) {
                discardedDrawing = true;
            }
        }
        if (discardedDrawing) {
            runPending(writes, true); // sent together, as Flushless's rollback() sends them
        }
    }

    /** close(): the buffer is sent, errors are not reported. True when it succeeded. */
    private boolean flushQuietly() throws SQLException {
        List<Integer> writes = new ArrayList<>(pending);
        pending.clear();
        return runPending(writes, true) == null || runPending(writes, false) == null;
    }

    private static String tableOf(Step step) {
        if (step instanceof Step.Exec e) {
            return e.table();
        }
        if (step instanceof Step.Batch b) {
            return b.table();
        }
        return ((Step.TextBatch) step).members().get(0).table();
    }

    // ---- recovery ----

    /** After an error with autocommit off: what real applications do, roll back (to the newest savepoint, or all). */
    private String recover() {
        try {
            if (c.getAutoCommit()) {
                return null;
            }
        } catch (SQLException e) {
            return "getAutoCommit threw [" + e.getSQLState() + "]";
        }
        StringBuilder out = new StringBuilder();
        if (program.recovery() == Program.Recovery.ROLLBACK_TO_SAVEPOINT && !open.isEmpty()) {
            String name = open.get(open.size() - 1);
            try {
                if (semantics == Semantics.ORACLE_TRANSACTION) {
                    discardPending();
                }
                c.rollback(savepoints.get(name));
                return "rollback(" + name + ") ok";
            } catch (SQLException e) {
                out.append("rollback(")
                        .append(name)
                        .append(") threw [")
                        .append(e.getSQLState())
                        .append("]; ");
            }
        }
        try {
            if (semantics == Semantics.ORACLE_TRANSACTION) {
                discardPending();
            }
            c.rollback();
            open.clear();
            return out.append("rollback ok").toString();
        } catch (SQLException e) {
            return out.append("rollback threw [")
                    .append(e.getSQLState())
                    .append("]")
                    .toString();
        }
    }

    // ---- sequences ----

    private List<String> readSequenceNames() throws SQLException {
        List<String> names = new ArrayList<>();
        try (PreparedStatement ps =
                admin.prepareStatement("SELECT sequencename FROM pg_sequences WHERE schemaname = ? ORDER BY 1")) {
            ps.setString(1, schemaName);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    names.add(rs.getString(1));
                }
            }
        }
        return names;
    }

    private String sequenceState() throws SQLException {
        StringBuilder query = new StringBuilder();
        for (String name : sequenceNames) {
            query.append(query.length() > 0 ? " UNION ALL " : "")
                    .append("SELECT '")
                    .append(name)
                    .append("', last_value, is_called FROM ")
                    .append(schemaName)
                    .append('.')
                    .append(name);
        }
        StringBuilder out = new StringBuilder();
        try (Statement s = admin.createStatement();
                ResultSet rs = s.executeQuery(query.toString())) {
            while (rs.next()) {
                out.append(out.length() > 0 ? " " : "")
                        .append(rs.getString(1))
                        .append('=')
                        .append(rs.getLong(2))
                        .append(rs.getBoolean(3) ? "" : "(unused)");
            }
        }
        return out.toString();
    }

    /** Values drawn so far per sequence, from a {@link #sequenceState()} text. */
    private static Map<String, Long> positions(String state) {
        Map<String, Long> out = new HashMap<>();
        for (String part : state.split(" ")) {
            int eq = part.indexOf('=');
            boolean unused = part.endsWith("(unused)");
            long value = Long.parseLong(
                    part.substring(eq + 1, unused ? part.length() - "(unused)".length() : part.length()));
            out.put(part.substring(0, eq), unused ? value - 1 : value);
        }
        return out;
    }

    /**
     * The oracle's sequences after step {@code i} against the Flushless run's. Two drifts are known and reported
     * (see {@link DifferentialTester}): a coalesced statement or flush that failed drew values before it was undone
     * and re-run as sent (at a step where the Flushless run says it re-ran something as sent; the oracle does not
     * model how many values the failed attempt drew, so either direction). (Buffered INSERTs discarded by a
     * rollback used to be the second: rollback() now sends them when they draw from a sequence.) Unless strict, the oracle then takes the
     * Flushless run's sequence state so that the rest of the program stays comparable; any other difference stays
     * and is reported as a mismatch at this step.
     */
    private String reconcile(int i, String mine, StepResult seen, StepResult result) throws SQLException {
        String theirs = seen.sequences();
        if (theirs == null || theirs.equals(mine) || strictSequences) {
            return mine;
        }
        String why = null;
        boolean eitherWay = false;
        if (theirs.equals(modelledEnd) && seen.attempted() && !result.ok()) {
            // The model's trial of a failing step drew one count, the oracle's real run another: how many values the
            // failing row draws depends on the plan the server chose (a custom plan folds a parameter's failing
            // coercion at planning, before the row's nextval(); a generic plan, used once a named statement ran
            // five times, evaluates it after), and the trial and the real run are different executions of it
            resync(theirs);
            notes.add(
                    "sequence values modelled (deviation 4): the oracle's trial and its real run of a failing step drew"
                            + " a different number of values (the server's plan for the failing row)");
            return sequenceState();
        }
        if ((seen.reRuns() & StepResult.ROLLBACK_DRAW_FAILED) != 0) {
            why = "sequence drift tolerated (deviation 4): the writes rollback() sent to draw their ids failed, after"
                    + " drawing a different number of them than bare pgjdbc's statements";
            eitherWay = true;
        } else if (seen.attempted()) {
            why = "sequence drift tolerated (deviation 4): a failed coalesced statement or flush drew values before its"
                    + " re-run as sent";
        }
        if (why == null || !withinDrift(i, mine, theirs, eitherWay, !result.ok())) {
            return mine; // reported as a mismatch at this step
        }
        resync(theirs);
        notes.add(why);
        return sequenceState();
    }

    /**
     * True when every sequence difference between {@code mine} and {@code theirs} is one deviation 4 explains: only
     * in the sequences of the tables the failed attempt wrote (the step's, and the writes of its transaction that a
     * flush may have sent with it), only upwards (a failed attempt draws values that the re-run draws again;
     * {@code eitherWay} for rollback()'s sends, which bare pgjdbc's discarded statements never drew), and by no more
     * than the rows the attempt could have processed.
     */
    boolean withinDrift(int i, String mine, String theirs, boolean eitherWay) {
        return withinDrift(i, mine, theirs, eitherWay, false);
    }

    /**
     * {@link #withinDrift(int, String, String, boolean)}, and with {@code failed} (the step itself failed) one value
     * fewer per sequence too: whether the failing row drew its own value depends on the server's plan for it (a custom
     * plan folds a failing parameter coercion at planning, before the row's {@code nextval()}; a generic plan, chosen
     * after five executions of a named statement, evaluates it after), and the re-run as sent has another history of
     * executions than the oracle's statement (seed 1234051: a 14-row batch failing at row 13 with 22001).
     */
    boolean withinDrift(int i, String mine, String theirs, boolean eitherWay, boolean failed) {
        Map<String, Long> oracle = positions(mine);
        Map<String, Long> flushless = positions(theirs);
        java.util.Set<String> tables = new java.util.HashSet<>();
        long rows = 0;
        for (int k = transactionStart(i); k <= i; k++) {
            rows += writtenRows(program.steps().get(k), tables);
        }
        for (Map.Entry<String, Long> e : flushless.entrySet()) {
            long difference = e.getValue() - oracle.getOrDefault(e.getKey(), e.getValue());
            if (difference == 0) {
                continue;
            }
            boolean written = program.schema().tables().stream()
                    .anyMatch(
                            table -> tables.contains(table.name()) && e.getKey().equals(table.sequence()));
            if (!written
                    || (difference < 0 && !eitherWay && !(failed && difference == -1))
                    || Math.abs(difference) > rows) {
                return false;
            }
        }
        return true;
    }

    /**
     * The first step whose writes a failed attempt at step {@code i} may have sent: {@code i} itself in autocommit,
     * else the first step of the open transaction (after the last commit, rollback or switch to manual commit).
     */
    private int transactionStart(int i) {
        boolean autoCommit = true;
        int start = 0;
        for (int k = 0; k < i; k++) {
            if (program.steps().get(k) instanceof Step.Tx tx) {
                switch (tx.op()) {
                    case AUTOCOMMIT_OFF, COMMIT, ROLLBACK -> start = k + 1;
                    default -> {}
                }
                if (tx.op() == Step.TxOp.AUTOCOMMIT_OFF) {
                    autoCommit = false;
                } else if (tx.op() == Step.TxOp.AUTOCOMMIT_ON) {
                    autoCommit = true;
                }
            }
        }
        return autoCommit ? i : start;
    }

    /** The rows {@code step} writes (a bound for the values it draws), noting the tables it writes into {@code tables}. */
    private static long writtenRows(Step step, java.util.Set<String> tables) {
        if (step instanceof Step.Exec e && e.op().isWrite() && e.table() != null) {
            tables.add(e.table());
            return valuesRows(e.sql());
        }
        if (step instanceof Step.Batch b) {
            tables.add(b.table());
            return b.rowParams().size();
        }
        if (step instanceof Step.TextBatch t) {
            long rows = 0;
            for (Step.Text m : t.members()) {
                tables.add(m.table());
                rows += valuesRows(m.sql());
            }
            return rows;
        }
        return 0;
    }

    /** The rows of a literal statement's (multi-row) VALUES list; 1 for any other statement. */
    private static long valuesRows(String sql) {
        return Math.max(1, sql.split("\\),\\s*\\(", -1).length);
    }

    private void resync(String state) throws SQLException {
        try (Statement s = admin.createStatement()) {
            for (String part : state.split(" ")) {
                int eq = part.indexOf('=');
                boolean unused = part.endsWith("(unused)");
                String value = part.substring(eq + 1, unused ? part.length() - "(unused)".length() : part.length());
                s.execute("SELECT setval('" + schemaName + "." + part.substring(0, eq) + "', " + value + ", " + !unused
                        + ")");
            }
        }
    }

    // ---- the JDBC calls ----

    private void sql(String text) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute(text);
        }
    }

    /** Runs one step as the application would and returns what it observed. */
    private String perform(Step step) throws Exception {
        if (step instanceof Step.Exec e) {
            return exec(e);
        }
        if (step instanceof Step.Batch b) {
            return batch(b);
        }
        if (step instanceof Step.TextBatch t) {
            try (Statement s = c.createStatement()) {
                for (Step.Text m : t.members()) {
                    s.addBatch(m.sql());
                }
                return "counts=" + Arrays.toString(s.executeBatch());
            }
        }
        if (step instanceof Step.Query q) {
            if (q.params() == null) {
                try (Statement s = c.createStatement()) {
                    return rows(s.executeQuery(q.sql()));
                }
            }
            try (PreparedStatement ps = c.prepareStatement(q.sql())) {
                bind(ps, q.params());
                return rows(ps.executeQuery());
            }
        }
        return tx((Step.Tx) step);
    }

    private String exec(Step.Exec e) throws SQLException {
        int keys = e.keys() ? Statement.RETURN_GENERATED_KEYS : Statement.NO_GENERATED_KEYS;
        String[] names = e.keyNames() == null ? null : e.keyNames().toArray(new String[0]);
        if (e.params() == null) {
            try (Statement s = c.createStatement()) {
                String value;
                if (e.keys() && names != null) {
                    value = switch (e.call()) {
                        case EXECUTE_UPDATE -> "count=" + s.executeUpdate(e.sql(), names);
                        case EXECUTE_LARGE_UPDATE -> "count=" + s.executeLargeUpdate(e.sql(), names);
                        case EXECUTE -> afterExecute(s, s.execute(e.sql(), names), true);
                    };
                } else {
                    value = switch (e.call()) {
                        case EXECUTE_UPDATE ->
                            "count=" + (e.keys() ? s.executeUpdate(e.sql(), keys) : s.executeUpdate(e.sql()));
                        case EXECUTE_LARGE_UPDATE ->
                            "count=" + (e.keys() ? s.executeLargeUpdate(e.sql(), keys) : s.executeLargeUpdate(e.sql()));
                        case EXECUTE ->
                            afterExecute(s, e.keys() ? s.execute(e.sql(), keys) : s.execute(e.sql()), e.keys());
                    };
                }
                return e.keys() && e.call() != Step.Call.EXECUTE
                        ? value + " keys=" + rows(s.getGeneratedKeys())
                        : value;
            }
        }
        try (PreparedStatement ps = !e.keys()
                ? c.prepareStatement(e.sql())
                : names != null ? c.prepareStatement(e.sql(), names) : c.prepareStatement(e.sql(), keys)) {
            bind(ps, e.params());
            String value = switch (e.call()) {
                case EXECUTE_UPDATE -> "count=" + ps.executeUpdate();
                case EXECUTE_LARGE_UPDATE -> "count=" + ps.executeLargeUpdate();
                case EXECUTE -> afterExecute(ps, ps.execute(), e.keys());
            };
            return e.keys() && e.call() != Step.Call.EXECUTE ? value + " keys=" + rows(ps.getGeneratedKeys()) : value;
        }
    }

    /** After {@code execute()}: the result, the generated keys (read before moving on), then getMoreResults(). */
    private static String afterExecute(Statement s, boolean isResultSet, boolean keys) throws SQLException {
        if (isResultSet) {
            return "execute=true " + rows(s.getResultSet()) + (keys ? " keys=" + rows(s.getGeneratedKeys()) : "");
        }
        int count = s.getUpdateCount();
        String generated = keys ? " keys=" + rows(s.getGeneratedKeys()) : "";
        boolean more = s.getMoreResults();
        return executeValue(more, count, s.getUpdateCount()) + generated;
    }

    private static String executeValue(boolean more, int count, int after) {
        return "execute=false count=" + count + " more=" + more + " then=" + after;
    }

    private String batch(Step.Batch b) throws SQLException {
        try (PreparedStatement ps = !b.keys()
                ? c.prepareStatement(b.sql())
                : b.keyNames() != null
                        ? c.prepareStatement(b.sql(), b.keyNames().toArray(new String[0]))
                        : c.prepareStatement(b.sql(), Statement.RETURN_GENERATED_KEYS)) {
            for (List<Param> row : b.rowParams()) {
                bind(ps, row);
                ps.addBatch();
            }
            String counts = b.large() ? Arrays.toString(ps.executeLargeBatch()) : Arrays.toString(ps.executeBatch());
            return "counts=" + counts + (b.keys() ? " keys=" + rows(ps.getGeneratedKeys()) : "");
        }
    }

    private void bind(PreparedStatement ps, List<Param> params) throws SQLException {
        for (int i = 0; i < params.size(); i++) {
            params.get(i).applyTo(ps, i + 1, c);
        }
    }

    private String tx(Step.Tx tx) throws SQLException {
        switch (tx.op()) {
            case AUTOCOMMIT_ON -> {
                c.setAutoCommit(true);
                open.clear();
                return "autocommit=" + c.getAutoCommit();
            }
            case AUTOCOMMIT_OFF -> {
                c.setAutoCommit(false);
                return "autocommit=" + c.getAutoCommit();
            }
            case COMMIT -> {
                c.commit();
                open.clear();
                return "committed";
            }
            case ROLLBACK -> {
                c.rollback();
                open.clear();
                return "rolled back";
            }
            case SAVEPOINT -> {
                Savepoint sp = c.setSavepoint(tx.savepoint());
                savepoints.put(tx.savepoint(), sp);
                open.add(tx.savepoint());
                return "savepoint " + sp.getSavepointName();
            }
            case ROLLBACK_TO -> {
                Savepoint sp = savepoints.get(tx.savepoint());
                if (sp == null) {
                    return "no savepoint " + tx.savepoint() + " (skipped)";
                }
                c.rollback(sp);
                int at = open.indexOf(tx.savepoint());
                while (at >= 0 && open.size() > at + 1) {
                    open.remove(open.size() - 1);
                }
                return "rolled back to " + tx.savepoint();
            }
            case RELEASE -> {
                Savepoint sp = savepoints.get(tx.savepoint());
                if (sp == null) {
                    return "no savepoint " + tx.savepoint() + " (skipped)";
                }
                c.releaseSavepoint(sp);
                int at = open.indexOf(tx.savepoint());
                while (at >= 0 && open.size() > at) {
                    open.remove(open.size() - 1);
                }
                return "released " + tx.savepoint();
            }
            default -> throw new IllegalStateException(tx.op().name());
        }
    }

    static String rows(ResultSet rs) throws SQLException {
        try (rs) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder out = new StringBuilder("(");
            for (int i = 1; i <= md.getColumnCount(); i++) {
                out.append(i > 1 ? ", " : "")
                        .append(md.getColumnLabel(i))
                        .append(':')
                        .append(md.getColumnTypeName(i));
            }
            out.append(")");
            while (rs.next()) {
                out.append(" [");
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    out.append(i > 1 ? ", " : "").append(describe(rs.getObject(i)));
                }
                out.append(']');
            }
            return out.toString();
        }
    }

    static String describe(Object value) throws SQLException {
        if (value == null) {
            return "null";
        }
        if (value instanceof byte[] bytes) {
            return "bytes" + Arrays.toString(bytes);
        }
        if (value instanceof java.sql.Array array) {
            return "array" + Arrays.deepToString((Object[]) array.getArray());
        }
        return value.getClass().getSimpleName() + ":" + value;
    }

    // ---- final state ----

    private String finalRows() throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Statement s = admin.createStatement()) {
            for (Table t : program.schema().tables()) {
                out.append(t.name()).append(":\n");
                try (ResultSet rs =
                        s.executeQuery("SELECT t::text FROM " + schemaName + "." + t.name() + " t ORDER BY 1")) {
                    while (rs.next()) {
                        out.append("  ").append(rs.getString(1)).append('\n');
                    }
                }
            }
        }
        return out.toString();
    }
}
