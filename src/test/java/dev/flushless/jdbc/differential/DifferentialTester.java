package dev.flushless.jdbc.differential;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The differential tester: runs one generated {@link Program} on bare pgjdbc and through Flushless in modes
 * {@code off}, {@code batch} and {@code transaction}, each on a database of its own (the schema created
 * identically in a fresh schema), and compares everything the application saw: every step's update counts,
 * generated keys, rows, the class, SQLState and batch update counts of every error and <em>which step</em>
 * raised it, what the rollback after it observed, the state of every sequence after every step, and finally
 * the rows of every table and the sequences.
 *
 * <h2>The comparison</h2>
 *
 * <p>{@code off} must equal bare pgjdbc exactly. {@code batch} and {@code transaction} must too, unless the
 * difference is one the documentation allows; to decide that precisely, not by loosening the comparison, the
 * tester runs an <em>oracle</em>: the same program on bare pgjdbc (a fifth database, whose copy of the schema
 * declares the foreign key {@code DEFERRABLE INITIALLY IMMEDIATE}, which changes nothing until a transaction
 * defers it), executing the documented semantics of the mode instead of pgjdbc's. The Flushless run must then
 * equal the oracle run, step for step. The oracle is the documentation made executable:
 *
 * <ul>
 *   <li><b>Deviation 2</b> (foreign keys checked at the end of a coalesced statement) applies only to
 *   {@code mode=transaction}, whose buffered writes (and a batch sent with them) may travel as one statement: there
 *   the oracle runs the batch inside {@code SET CONSTRAINTS ALL DEFERRED ... SET CONSTRAINTS ALL IMMEDIATE}, which
 *   checks exactly once, at its end, where the Flushless run succeeded (Flushless may split a batch into several
 *   statements, each checking at its own end: it then accepts less, never more, and whatever it rejects it re-runs as
 *   sent). In batch mode the driver keeps the application's foreign-key order ({@code ForeignKeyOrder}), so the
 *   oracle runs every batch as sent and a batch accepted out of order is a mismatch.</li>
 *   <li><b>Deviation 1</b> ({@code transaction} only; an error of a buffered INSERT surfaces at a later step of the
 *   same transaction, at the latest at commit, which then fails and rolls back): inside an explicit transaction
 *   the oracle acknowledges each step the documentation says is buffered (a plain {@code INSERT ... VALUES}
 *   without generated keys into a table without triggers, through {@code executeUpdate}, {@code execute} or a
 *   batch; the answer is 1 per row) and keeps it pending. It runs the pending steps, as sent and in order, just
 *   before the first step the documentation says sends them: a read of a table they wrote, {@code nextval} when
 *   one of them draws from a sequence, any other write, a savepoint call, {@code commit()},
 *   {@code setAutoCommit(true)}, or {@code close()}; {@code rollback()} discards them. If one fails, that step
 *   raises its SQLState (compared by SQLState only, since Flushless raises its own {@code SQLException} naming
 *   the buffered statement) and the transaction is left aborted, or, at commit, rolled back. Sent pending steps
 *   also get deviation 2 (they may have travelled as one statement). So an error can only move <em>later within
 *   the same transaction</em>; everything the application saw in between must be what bare pgjdbc shows for a
 *   transaction whose INSERT has not run yet (reads of other tables), and after the error the recovery rolls
 *   back, so nothing of the transaction is committed and every later step must match again.</li>
 *   <li>The Flushless run only resolves what the documentation leaves open: whether a batch or a flush was
 *   accepted as a whole (deviation 2), whether a step was in fact buffered (an INSERT Flushless ran at once
 *   answers the same when it succeeds; when it fails, the oracle runs it at once too), and whether an optional
 *   flush happened earlier (only visible when it fails there, and flushing earlier is always allowed). It never
 *   decides a value: counts, keys, rows and SQLStates all come from the oracle's own execution.</li>
 * </ul>
 *
 * <p>The recovery rule of every program ({@link Program.Recovery}) is applied in every run to the errors that
 * run raised, as an application would: the transcripts stay aligned step by step even when an error moved.
 *
 * <h2>Sequence values (documented deviation 4)</h2>
 *
 * <p>Sequences are not transactional: a coalesced statement or flush that fails has drawn values before it is undone
 * and re-run as sent (which draws again). The state of every sequence is compared after every step. Unless
 * {@code -Dflushless.difftest.strictSequences=true}, the oracle models this exactly where the Flushless run reports a
 * re-run as sent (its fallback counters): it works out how many values the failed attempt drew and draws them too,
 * so the rows of the re-run carry the same keys (see {@code Runner#calibrate}); any remaining difference at such a
 * step is tolerated by taking over the Flushless run's sequence state, so that the rest of the program stays
 * comparable. Any other sequence difference is a mismatch. The generator avoids explicit ids in the range the
 * sequences draw unless {@code -Dflushless.difftest.knownBugs=true} (see {@code ProgramGenerator#KNOWN_BUGS}): with
 * them the deviation changes outcomes, not only ids.
 */
final class DifferentialTester implements AutoCloseable {

    static final String[] MODES = {"off", "batch", "transaction"};
    private static final int BARE = 0;
    private static final int ORACLE = 4;

    private final TestDatabase[] databases = new TestDatabase[5];
    private final Connection[] admins = new Connection[5];
    private final boolean strictSequences;
    private final String settings;
    private int schemas;

    // statistics
    long programs;
    /** Programs whose schema has a self-referencing table (see {@link Schema#SELF_REFERENCE}). */
    long selfReferencing;

    long stepsRun;
    long jdbcCalls;
    long runs;
    final Map<String, Long> deviations = new TreeMap<>();
    final Map<String, Long> rewrites = new TreeMap<>();
    final Map<String, Long> fallbacks = new TreeMap<>();
    long errorSteps;
    /**
     * Programs, per mode, with a wasted re-run: a coalesced statement or flush that failed and was re-run as sent, and
     * the re-run raised no error (the step succeeded in the Flushless run): the combined form failed where the writes
     * as sent did not, so the planner could have chosen a form that succeeds. The re-runs' causes (fallback texts) are
     * counted in {@link #wastedCauses}.
     *
     * <p>A re-run that raises the error itself is the error path, not waste: the writes fail as sent too, and the
     * re-run is how the driver raises pgjdbc's own error for the statement (and batch row) that caused it. Such a
     * re-run can happen at a step that bare pgjdbc runs without error, when the Flushless run's rows already differ
     * from bare pgjdbc's by a documented deviation: 1 (bare pgjdbc failed at an earlier step and rolled back there,
     * while the Flushless run raised that error later and so rolled back the writes in between too) or 2 (buffered
     * writes sent together accepted a child row before its parent, which bare pgjdbc rejected); the oracle then raises
     * the same error. Those are counted apart, in {@link #divergedErrorReRuns}.
     */
    final Map<String, Long> wastedPrograms = new TreeMap<>();

    final Map<String, Long> wastedCauses = new TreeMap<>();
    /**
     * Steps, per mode, whose re-run as sent raised the error itself although bare pgjdbc ran the steps the failed
     * attempt carried without error (see {@link #wastedPrograms}: the runs' rows differed by deviation 1 or 2).
     */
    final Map<String, Long> divergedErrorReRuns = new TreeMap<>();

    final Map<String, Long> bareErrors = new TreeMap<>();
    /**
     * Statements the server executed for the direct runs, by run ("bare", "off", "batch", "transaction"): counted by
     * {@code pg_stat_statements}, independently of the driver's own counters; empty when the server lacks it.
     */
    final Map<String, Long> serverStatements = new TreeMap<>();
    /**
     * Of those, the coalesced forms: statements whose text names one of the driver's {@code flushless_} CTEs or
     * relations, savepoints excluded (the server's count of rewrites that reached it).
     */
    final Map<String, Long> serverCoalesced = new TreeMap<>();

    DifferentialTester(boolean strictSequences) throws SQLException {
        this(strictSequences, System.getProperty("flushless.difftest.settings", ""));
    }

    /**
     * @param settings more URL settings for the Flushless connections, joined with {@code &} (e.g.
     *     {@code flushless.exactSequences=true}; empty for none)
     */
    DifferentialTester(boolean strictSequences, String settings) throws SQLException {
        this.strictSequences = strictSequences;
        this.settings = settings;
        String[] names = {"bare", "off", "batch", "transaction", "oracle"};
        for (int i = 0; i < names.length; i++) {
            databases[i] = PostgresExtension.createDatabase("difftest_" + names[i]);
            admins[i] = databases[i].bare();
        }
    }

    /** The outcome of checking one program. */
    record Verdict(boolean ok, String mode, String report) {}

    /** Runs {@code program} everywhere and compares; {@code null} mode means it agreed. */
    Verdict check(Program program) throws SQLException {
        return check(program, null);
    }

    /** As {@link #check(Program)}, but only bare pgjdbc and {@code onlyMode} (for shrinking). */
    Verdict check(Program program, String onlyMode) throws SQLException {
        Runner.Run bare = run(BARE, program, Runner.Semantics.DIRECT, null);
        if (onlyMode == null) {
            programs++;
            if (program.schema().tables().stream().anyMatch(Schema.Table::selfReferencing)) {
                selfReferencing++;
            }
            stepsRun += program.steps().size();
            for (StepResult r : bare.steps()) {
                if (!r.ok()) {
                    errorSteps++;
                    bareErrors.merge(r.sqlState() == null ? r.errorClass() : r.sqlState(), 1L, Long::sum);
                    if (System.getProperty("flushless.difftest.debugStates", "")
                            .contains(String.valueOf(r.sqlState()))) {
                        System.out.println("[difftest debug] " + r.describe());
                    }
                }
            }
        }
        for (int m = 0; m < MODES.length; m++) {
            String mode = MODES[m];
            if (onlyMode != null && !onlyMode.equals(mode)) {
                continue;
            }
            Runner.Run variant = run(m + 1, program, Runner.Semantics.DIRECT, null);
            if (onlyMode == null && !mode.equals("off")) {
                countWasted(mode, program, bare, variant);
            }
            String difference = difference(bare, variant, program);
            if (difference == null) {
                continue;
            }
            if (mode.equals("off")) {
                return new Verdict(false, mode, report(program, mode, "bare pgjdbc", bare, variant, difference, bare));
            }
            Runner.Semantics semantics =
                    mode.equals("batch") ? Runner.Semantics.ORACLE_BATCH : Runner.Semantics.ORACLE_TRANSACTION;
            Runner.Run oracle = run(ORACLE, program, semantics, variant);
            String oracleDifference = difference(oracle, variant, program);
            if (oracleDifference != null) {
                return new Verdict(
                        false,
                        mode,
                        report(
                                program,
                                mode,
                                "the oracle (bare pgjdbc with the documented " + mode + "-mode semantics)",
                                oracle,
                                variant,
                                oracleDifference,
                                bare));
            }
            if (onlyMode == null) {
                java.util.Set<String> notes = new java.util.LinkedHashSet<>(oracle.notes());
                for (String note : notes) {
                    deviations.merge(mode + ": " + note, 1L, Long::sum);
                }
            }
        }
        return new Verdict(true, null, null);
    }

    /** The first difference between a reference run and a Flushless run, or {@code null}. */
    static String difference(Runner.Run reference, Runner.Run variant, Program program) {
        for (int i = 0; i < reference.steps().size(); i++) {
            StepResult ref = reference.steps().get(i);
            StepResult v = variant.steps().get(i);
            if (!ref.allows(v)) {
                return "step " + i + ": expected " + ref.describe() + "\n      but saw  " + v.describe();
            }
            if (!Objects.equals(ref.sequences(), v.sequences())) {
                return "step " + i + ": sequences after it: expected " + ref.sequences() + " but saw " + v.sequences()
                        + "\n      (step result " + v.render() + ")";
            }
        }
        if (!reference.finalRows().equals(variant.finalRows())) {
            return "final rows: expected\n" + reference.finalRows() + "    but saw\n" + variant.finalRows();
        }
        if (!reference.finalSequences().equals(variant.finalSequences())) {
            return "final sequences: expected " + reference.finalSequences() + " but saw " + variant.finalSequences();
        }
        return null;
    }

    private static String report(
            Program program,
            String mode,
            String referenceName,
            Runner.Run reference,
            Runner.Run variant,
            String difference,
            Runner.Run bare) {
        StringBuilder out = new StringBuilder();
        out.append("flushless.mode=")
                .append(mode)
                .append(" differs from ")
                .append(referenceName)
                .append(" at ")
                .append(difference)
                .append('\n');
        int differing = firstDifferingStep(reference, variant);
        out.append("steps (")
                .append(referenceName.startsWith("bare") ? "bare" : "oracle")
                .append(" / flushless")
                .append(bare != reference ? " / bare" : "")
                .append("):\n");
        for (int i = 0; i < program.steps().size(); i++) {
            List<String> lines = program.steps().get(i).java();
            out.append(i == differing ? ">> " : "   ")
                    .append(String.format("%2d ", i))
                    .append(lines.get(0))
                    .append(lines.size() > 1 ? " ..." : "")
                    .append('\n');
            out.append("        ").append(reference.steps().get(i).describe()).append('\n');
            if (!reference.steps().get(i).render().equals(variant.steps().get(i).render())) {
                out.append("        ").append(variant.steps().get(i).describe()).append('\n');
            }
            int reRuns = variant.steps().get(i).reRuns();
            if (reRuns != 0) {
                out.append("        (flushless re-ran as sent:")
                        .append((reRuns & StepResult.BUFFER_RERUN) != 0 ? " buffered writes" : "")
                        .append((reRuns & StepResult.STATEMENT_RERUN) != 0 ? " its coalesced statement" : "")
                        .append(")\n");
            }
            if (bare != reference
                    && !bare.steps()
                            .get(i)
                            .render()
                            .equals(reference.steps().get(i).render())) {
                out.append("        bare: ")
                        .append(bare.steps().get(i).render())
                        .append('\n');
            }
            String sequences = reference.steps().get(i).sequences();
            if (sequences != null) {
                String seen = variant.steps().get(i).sequences();
                out.append("        sequences: ")
                        .append(sequences)
                        .append(Objects.equals(sequences, seen) ? "" : " / flushless: " + seen)
                        .append('\n');
            }
        }
        if (!reference.notes().isEmpty()) {
            out.append("oracle notes: ")
                    .append(new java.util.LinkedHashSet<>(reference.notes()))
                    .append('\n');
        }
        return out.toString();
    }

    private static int firstDifferingStep(Runner.Run reference, Runner.Run variant) {
        for (int i = 0; i < reference.steps().size(); i++) {
            if (!reference.steps().get(i).allows(variant.steps().get(i))
                    || !Objects.equals(
                            reference.steps().get(i).sequences(),
                            variant.steps().get(i).sequences())) {
                return i;
            }
        }
        return -1;
    }

    /** Runs {@code program} on bare pgjdbc ({@code mode} null) or through Flushless in {@code mode}. */
    Runner.Run runDirect(Program program, String mode) throws SQLException {
        return run(
                mode == null ? BARE : java.util.Arrays.asList(MODES).indexOf(mode) + 1,
                program,
                Runner.Semantics.DIRECT,
                null);
    }

    /** Runs the oracle of {@code mode} ("batch" or "transaction") for {@code program}, guided by {@code guide}. */
    Runner.Run runOracle(Program program, String mode, Runner.Run guide) throws SQLException {
        return run(
                ORACLE,
                program,
                mode.equals("batch") ? Runner.Semantics.ORACLE_BATCH : Runner.Semantics.ORACLE_TRANSACTION,
                guide);
    }

    /** Runs {@code program} in a fresh schema of database {@code db}; drops the schema afterwards. */
    Runner.Run run(int db, Program program, Runner.Semantics semantics, Runner.Run guide) throws SQLException {
        String schema = "p" + (++schemas);
        Connection admin = admins[db];
        try (Statement s = admin.createStatement()) {
            s.execute("CREATE SCHEMA " + schema + "; SET search_path TO " + schema + "; "
                    + String.join("; ", program.schema().ddl(db == ORACLE)) + "; SET search_path TO public");
        }
        String url = databases[db].pgjdbcUrl();
        url = url + (url.contains("?") ? "&" : "?") + "currentSchema=" + schema;
        if (db != BARE && db != ORACLE) {
            url = "jdbc:flushless:" + url.substring("jdbc:".length()) + "&flushless.mode=" + MODES[db - 1] + "&"
                    + dev.flushless.jdbc.testing.TestDatabase.REWRITE_EVERYTHING;
            // every other program sends its plain INSERT batches (and a transaction's commit of one INSERT's rows)
            // as COPY wherever COPY stores what the INSERTs would, whatever their size
            url += program.seed() % 2 == 1 ? "&flushless.copy=always" : "";
            url += settings.isBlank() ? "" : "&" + settings; // e.g. flushless.exactSequences=true
        }
        boolean counting = semantics == Runner.Semantics.DIRECT && databases[db].hasStatementStats();
        if (counting) {
            resetStatementCounts(db);
        }
        Connection c = DriverManager.getConnection(url, databases[db].credentials());
        StatsCapture capture = db != BARE && db != ORACLE ? new StatsCapture(c) : null;
        try {
            Runner.Run run = new Runner(
                            capture == null ? c : capture.connection(),
                            admin,
                            schema,
                            program,
                            semantics,
                            guide,
                            strictSequences,
                            settings.contains("flushless.exactSequences=true"))
                    .run();
            runs++;
            jdbcCalls += program.jdbcCalls();
            if (capture != null) {
                capture.record(MODES[db - 1], rewrites, fallbacks);
            }
            if (counting) {
                c.close(); // its last statements are counted when they complete
                String name = db == BARE ? "bare" : MODES[db - 1];
                long[] counted = statementsCounted(db);
                serverStatements.merge(name, counted[0], Long::sum);
                serverCoalesced.merge(name, counted[1], Long::sum);
            }
            return run;
        } finally {
            try (Statement s = admin.createStatement()) {
                s.execute("DROP SCHEMA " + schema + " CASCADE");
            }
        }
    }

    /** A connection to the admin database that reads {@code pg_stat_statements} (opened on first use). */
    private Connection statistics;

    private void resetStatementCounts(int db) throws SQLException {
        if (statistics == null) {
            statistics = databases[db].statisticsConnection();
        }
        try (Statement s = statistics.createStatement()) {
            s.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /** Statements the server executed in database {@code db} since the reset: all, and the coalesced forms. */
    private long[] statementsCounted(int db) throws SQLException {
        try (java.sql.PreparedStatement ps = statistics.prepareStatement("SELECT coalesce(sum(calls), 0),"
                + " coalesce(sum(calls) FILTER (WHERE query ILIKE '%flushless%' AND query NOT ILIKE '%savepoint flushless%'), 0)"
                + " FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ?")) {
            ps.setString(1, databases[db].name());
            try (java.sql.ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    /**
     * Why the server's counts show a run that coalesced nothing, or {@code null}: over a run of programs, the server
     * must have executed coalesced statements for batch and for transaction mode, and none for bare pgjdbc and
     * {@code off} (counted by {@code pg_stat_statements}, not by the driver: {@link #serverCoalesced}).
     */
    static String noRewriteSeen(Map<String, Long> serverCoalesced) {
        if (serverCoalesced.get("bare") == null) {
            return null; // not counted (no pg_stat_statements)
        }
        for (String run : List.of("bare", "off")) {
            if (serverCoalesced.getOrDefault(run, 0L) != 0) {
                return "the server executed " + serverCoalesced.get(run) + " coalesced statements for " + run;
            }
        }
        for (String mode : List.of("batch", "transaction")) {
            if (serverCoalesced.getOrDefault(mode, 0L) <= 0) {
                return "the server executed no coalesced statement for flushless.mode=" + mode
                        + ": nothing was coalesced";
            }
        }
        return null;
    }

    /** Reads a Flushless connection's rewrite and fallback counters just before the run closes it. */
    private static final class StatsCapture {
        private final Connection connection;
        private dev.flushless.jdbc.stats.FlushlessStats stats;

        StatsCapture(Connection c) throws SQLException {
            this.connection = c;
            this.stats = c.unwrap(FlushlessConnection.class).flushlessStats();
        }

        Connection connection() {
            return connection;
        }

        void record(String mode, Map<String, Long> rewrites, Map<String, Long> fallbacks) {
            stats.rewrites().forEach((k, v) -> rewrites.merge(mode + ": " + k, v, Long::sum));
            stats.fallbacks().forEach((k, v) -> fallbacks.merge(mode + ": " + k, v, Long::sum));
        }
    }

    /** What a step's re-run as sent (if any) was, see {@link #wastedPrograms}. */
    enum ReRun {
        /** No coalesced statement or flush failed at the step. */
        NONE,
        /** The re-run raised no error: the combined form failed where the writes as sent did not. */
        WASTED,
        /**
         * The re-run raised the error although bare pgjdbc ran the steps the attempt carried without one: the runs'
         * rows already differed by a documented deviation.
         */
        RAISED_IN_DIVERGED_RUN,
        /** The re-run raised the error, as bare pgjdbc did in the steps the attempt carried. */
        RAISED
    }

    /**
     * Classifies every step's re-run as sent in a Flushless run of {@code mode} (pure). The steps a failed attempt
     * carried are the step itself and, in transaction mode, the steps of its transaction before it (whose buffered
     * writes a flush or a ride carries), counted from the Flushless run's own transaction start.
     */
    static List<ReRun> reRuns(String mode, Program program, Runner.Run bare, Runner.Run variant) {
        List<ReRun> kinds = new java.util.ArrayList<>();
        int transactionStart = 0;
        for (int i = 0; i < program.steps().size(); i++) {
            Step step = program.steps().get(i);
            StepResult seen = variant.steps().get(i);
            int bits = seen.reRuns();
            boolean bareFailed = false;
            int from = (bits & StepResult.BUFFER_RERUN) != 0 || mode.equals("transaction") ? transactionStart : i;
            for (int k = from; k <= i; k++) {
                bareFailed |= !bare.steps().get(k).ok();
            }
            if ((bits & (StepResult.BUFFER_RERUN | StepResult.STATEMENT_RERUN)) == 0) {
                kinds.add(ReRun.NONE);
            } else if (seen.ok()) {
                kinds.add(ReRun.WASTED);
            } else {
                kinds.add(bareFailed ? ReRun.RAISED : ReRun.RAISED_IN_DIVERGED_RUN);
            }
            if (step instanceof Step.Tx tx
                    && tx.op() != Step.TxOp.SAVEPOINT
                    && tx.op() != Step.TxOp.RELEASE
                    && tx.op() != Step.TxOp.ROLLBACK_TO) {
                transactionStart = i + 1;
            } else if (!seen.ok()) {
                transactionStart = i + 1; // the runner rolled the Flushless run back after its error
            }
        }
        return kinds;
    }

    /**
     * Counts the program's re-runs as sent in {@code mode} ({@link #reRuns}). With
     * {@code -Dflushless.difftest.debugReRuns=true} each wasted one, and each that raised an error bare pgjdbc did not,
     * is printed with the results of both runs and the program.
     */
    private void countWasted(String mode, Program program, Runner.Run bare, Runner.Run variant) {
        List<ReRun> kinds = reRuns(mode, program, bare, variant);
        boolean wasted = false;
        boolean printed = false;
        for (int i = 0; i < kinds.size(); i++) {
            ReRun kind = kinds.get(i);
            if (kind == ReRun.WASTED) {
                wasted = true;
                for (String cause : variant.reRunCauses().get(i)) {
                    wastedCauses.merge(mode + ": " + cause, 1L, Long::sum);
                }
            } else if (kind == ReRun.RAISED_IN_DIVERGED_RUN) {
                divergedErrorReRuns.merge(mode, 1L, Long::sum);
            }
            if ((kind == ReRun.WASTED || kind == ReRun.RAISED_IN_DIVERGED_RUN)
                    && Boolean.getBoolean("flushless.difftest.debugReRuns")) {
                System.out.println("[difftest re-run] seed " + program.seed() + ", " + mode + ", step " + i + ": "
                        + (kind == ReRun.WASTED ? "WASTED" : "raised an error bare pgjdbc did not (diverged run)")
                        + " " + variant.reRunCauses().get(i) + "\n[difftest re-run]   bare: "
                        + bare.steps().get(i).describe() + "\n[difftest re-run]   flushless: "
                        + variant.steps().get(i).describe());
                if (!printed) {
                    int first = firstDifferingStep(bare, variant);
                    if (first >= 0 && first < i) {
                        System.out.println("[difftest re-run]   the runs first differ at step " + first + ": bare "
                                + bare.steps().get(first).describe() + "\n[difftest re-run]   flushless: "
                                + variant.steps().get(first).describe());
                    }
                    System.out.println(program.java());
                    printed = true;
                }
            }
        }
        if (wasted) {
            wastedPrograms.merge(mode, 1L, Long::sum);
        }
    }

    /** Percent of the programs with a wasted re-run, per mode ("batch=0.4%"). */
    String reRunRate() {
        StringBuilder out = new StringBuilder();
        for (String mode : MODES) {
            if (mode.equals("off")) {
                continue;
            }
            long n = wastedPrograms.getOrDefault(mode, 0L);
            out.append(out.length() > 0 ? ", " : "")
                    .append(mode)
                    .append('=')
                    .append(n)
                    .append('/')
                    .append(programs)
                    .append(String.format(
                            java.util.Locale.ROOT, " (%.1f%%)", programs == 0 ? 0.0 : 100.0 * n / programs));
        }
        return out.toString();
    }

    String summary() {
        StringBuilder out = new StringBuilder();
        out.append(programs)
                .append(" programs (")
                .append(selfReferencing)
                .append(" with a self-referencing table), ")
                .append(stepsRun)
                .append(" steps (")
                .append(errorSteps)
                .append(" of them raised an error on bare pgjdbc), ")
                .append(runs)
                .append(" runs, ")
                .append(jdbcCalls)
                .append(" JDBC calls\n");
        out.append("SQLStates raised on bare pgjdbc: ").append(bareErrors).append('\n');
        out.append("server statements (pg_stat_statements) by run: ")
                .append(
                        serverStatements.isEmpty()
                                ? "not counted (pg_stat_statements not preloaded)"
                                : serverStatements)
                .append(", of them coalesced forms: ")
                .append(serverCoalesced)
                .append('\n');
        out.append("rows coalesced by rewrite kind: ").append(rewrites).append('\n');
        out.append("rows run as sent by reason: ").append(fallbacks).append('\n');
        out.append("re-run rate (programs with a re-run as sent that raised no error): ")
                .append(reRunRate())
                .append("; causes (steps): ")
                .append(wastedCauses)
                .append("; re-runs that raised the error at a step bare pgjdbc ran without one (runs diverged by"
                        + " deviation 1 or 2, the oracle raised it too; steps): ")
                .append(divergedErrorReRuns)
                .append('\n');
        out.append("programs explained by the oracle, by documented deviation (or tolerated drift):\n");
        deviations.forEach(
                (k, v) -> out.append("  ").append(v).append("  ").append(k).append('\n'));
        return out.toString();
    }

    @Override
    public void close() throws SQLException {
        if (statistics != null) {
            statistics.close();
        }
        for (int i = 0; i < databases.length; i++) {
            if (admins[i] != null) {
                admins[i].close();
            }
            if (databases[i] != null) {
                databases[i].close();
            }
        }
    }
}
