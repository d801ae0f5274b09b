package dev.flushless.jdbc.tools;

import static dev.flushless.jdbc.tools.ExplainPrinter.inTrips;
import static dev.flushless.jdbc.tools.ExplainPrinter.numbers;
import static dev.flushless.jdbc.tools.ExplainPrinter.plural;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.buffer.BufferRules;
import dev.flushless.jdbc.buffer.BufferedWrite;
import dev.flushless.jdbc.buffer.FlushPlanner;
import dev.flushless.jdbc.buffer.TransactionBuffer;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.tools.ExplainScript.Item;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The transaction walk: the script as {@code flushless.mode=transaction} runs it, {@code setAutoCommit(false)}, each
 * statement executed once (with parameters: a {@code PreparedStatement}, every parameter set; without: a
 * {@code Statement}), then {@code commit()}. Each statement is decided as the driver's {@code Engine.route} decides it,
 * by {@link BufferRules}; flushes are planned by {@link FlushPlanner} and their round trips counted by
 * {@link BatchExecutor}. Counts go to {@link ExplainSummary.Transactions}.
 */
final class TransactionWalk {

    private static final Pattern BEGIN = Pattern.compile("(?is)(begin|start\\s+transaction)\\b.*");
    private static final Pattern COMMIT = Pattern.compile("(?is)(commit|end)\\b(?!\\s+prepared\\b).*");
    private static final Pattern ROLLBACK = Pattern.compile("(?is)(rollback|abort)\\b(?!\\s+(to|prepared)\\b).*");

    /** How the transaction section takes a statement of the script: a boundary, or a statement executed once. */
    enum Boundary {
        /** BEGIN / START TRANSACTION: {@code setAutoCommit(false)}. */
        BEGIN,
        /** COMMIT / END: {@code commit()}. */
        COMMIT,
        /** ROLLBACK / ABORT: {@code rollback()}. */
        ROLLBACK,
        /** Any other statement: executed once. */
        NONE
    }

    private final ExplainPrinter out;
    private final ExplainSettings settings;
    private final ExplainCatalog catalog;
    private final ExplainSummary.Transactions tally = new ExplainSummary.Transactions();

    /** Tables whose catalog facts the driver has read in the transaction section (as written in the SQL). */
    private final Set<String> tablesRead = new HashSet<>();
    /** Tables the transaction section wrote once as sent under the first-write rule. */
    private final Set<String> writtenOnce = new HashSet<>();

    TransactionWalk(ExplainPrinter out, ExplainSettings settings, ExplainCatalog catalog) {
        this.out = out;
        this.settings = settings;
        this.catalog = catalog;
    }

    /** One transaction of the script as flushless.mode=transaction runs it. */
    private static final class Txn {
        final TransactionBuffer buffer = new TransactionBuffer();
        final List<Integer> bufferedNumbers = new ArrayList<>();
        /** Something of the transaction reached the server (pgjdbc left autocommit): no fused commit. */
        boolean sent;
        /** Statements of the transaction (bare pgjdbc then ends it with a COMMIT or ROLLBACK round trip). */
        int statements;
    }

    /** What {@code sql} (a statement of the script) is to the transaction section. */
    static Boundary boundary(String sql) {
        String text = sql.substring(ExplainScript.firstSignificant(sql, 0, sql.length()));
        return BEGIN.matcher(text).matches()
                ? Boundary.BEGIN
                : COMMIT.matcher(text).matches()
                        ? Boundary.COMMIT
                        : ROLLBACK.matcher(text).matches() ? Boundary.ROLLBACK : Boundary.NONE;
    }

    /**
     * The parameters the transaction section binds for statement {@code number} (setString, "s3p1" for its first):
     * {@code null} for a statement without parameters, executed through a plain {@code Statement}.
     */
    static Bind[] transactionRow(int number, StatementDescription statement) {
        if (statement.parameterCount() == 0) {
            return null;
        }
        Bind[] row = new Bind[statement.parameterCount()];
        for (int p = 0; p < row.length; p++) {
            row[p] = Bind.ofString("s" + number + "p" + (p + 1));
        }
        return row;
    }

    /**
     * Explains the script as {@code flushless.mode=transaction} runs it. BEGIN/START TRANSACTION lines are taken as
     * {@code setAutoCommit(false)}, COMMIT/END and ROLLBACK/ABORT lines as {@code commit()} and {@code rollback()}
     * (statements after them form the next transaction). Prints the walk and its summary; returns its tallies.
     */
    Explain.Tallies.Transaction walk(List<Item> items) {
        printHeading();
        Txn txn = new Txn();
        for (Item item : items) {
            out.println();
            out.statementHeading(item.number(), item.line(), item.description().sql());
            switch (boundary(item.description().sql())) {
                case BEGIN:
                    out.println("  transaction start: taken as setAutoCommit(false); nothing is sent");
                    continue;
                case COMMIT:
                    endTransaction(txn, true);
                    txn = new Txn();
                    continue;
                case ROLLBACK:
                    endTransaction(txn, false);
                    txn = new Txn();
                    continue;
                default:
                    break;
            }
            tally.issued++;
            txn.statements++;
            statement(item, txn);
        }
        if (txn.statements > 0 || !txn.buffer.isEmpty()) {
            out.println();
            out.println("end of script:");
            endTransaction(txn, true);
        }
        return ExplainSummary.printTransactions(out, tally, settings.flushModel());
    }

    private void printHeading() {
        out.println();
        out.println("== flushless.mode=transaction: the script as one explicit transaction ==");
        out.println(
                "setAutoCommit(false), then each statement executed once (with parameters: a PreparedStatement with");
        out.println(
                "every parameter set; without: a Statement), then commit(). BEGIN and COMMIT/END lines are taken as");
        if (catalog.offline()) {
            out.println(
                    "those calls, ROLLBACK as rollback(). Tables are compared by name (case-insensitively, schema left");
            out.println(
                    "out) and assumed to be plain tables without identity columns or sequence defaults; a view, a table");
            out.println(
                    "with triggers or a serial id left to its default would make it flush (or not buffer) more often.");
        } else {
            out.println(
                    "those calls, ROLLBACK as rollback(). Tables are read from the catalog, as the driver reads them:");
            out.println(
                    "triggers, rules and row-level security (the INSERT runs as sent), views, inheritance and partitions,");
            out.println("identity columns and sequence defaults (sequence calls and rollback() send the buffer).");
        }
    }

    /** The transaction section's table {@code name}, noted as read (the first-write rule counts it known). */
    private TableInfo table(String name, List<String> columns) throws SQLException {
        tablesRead.add(name);
        return catalog.transactionTable(name, columns);
    }

    /**
     * One statement inside the transaction, decided as the driver's {@code Engine.route} does: buffered (an INSERT
     * {@link BufferRules#whyNotBufferable} accepts, into a table without a barrier), else riding along with the buffer
     * (a write {@link BufferRules#whyNotRideable} accepts), else run as sent, after a flush when
     * {@link BufferRules#beforeStatement} asks for one.
     */
    private void statement(Item item, Txn txn) {
        StatementDescription d = item.description();
        StatementDescription.Kind lead = SqlAnalyzer.leadingKind(d.sql());
        Bind[] row = transactionRow(item.number(), d);
        if (lead == StatementDescription.Kind.INSERT && bufferedInsert(item, row, txn)) {
            return;
        }
        BufferRules.Tables tables = name -> table(name, List.of());
        String notRideable = null;
        if (!txn.buffer.isEmpty() && lead.isWrite()) {
            notRideable = BufferRules.whyNotRideable(
                    d, row, settings.config().exactSequences(), () -> BufferRules.mayDrawFromSequences(d, tables));
            if (notRideable == null) {
                flush(
                        txn,
                        "flush with it",
                        "write riding along",
                        "its update count is needed at once, so it" + " rides along with the buffer",
                        d);
                return;
            }
        }
        if (txn.buffer.isEmpty()) {
            out.say(
                    lead.isWrite()
                            ? "runs as sent: nothing is buffered to send with it; 1 round trip"
                            : "runs as sent: nothing is buffered; 1 round trip");
            sentAsIssued(txn);
            return;
        }
        BufferRules.Flush flush = BufferRules.beforeStatement(
                lead, lead == StatementDescription.Kind.SELECT ? d : null, txn.buffer, tables);
        if (flush != BufferRules.Flush.NONE
                && lead == StatementDescription.Kind.SELECT
                && BufferRules.queryCarriesBuffer(d, row == null)) {
            carried(txn, flush, d);
            return;
        }
        // An UPDATE of a row a locking read returned is buffered by the driver (BufferRules.whyNotBufferableUpdate);
        // explain runs no query, so it knows of no locked row and shows every UPDATE as the driver runs an unlocked
        // one.
        beforeStatement(flush, d, txn, notRideable);
    }

    /**
     * A query that must follow the buffered writes carries them in its own round trip (the driver's
     * {@code Engine.queryRidingAlong}): the writes, guarded by a savepoint, then the query, in one execution.
     */
    private void carried(Txn txn, BufferRules.Flush flush, StatementDescription d) {
        int writes = txn.bufferedNumbers.size();
        List<BatchPlan.Step> steps = FlushPlanner.plan(txn.buffer.take(), settings.session(), settings.maxRows());
        String cause = switch (flush) {
            case READ_OF_WRITTEN_TABLE -> "read of a written table";
            case SEQUENCE_CALL -> "sequence call";
            default -> "unanalysable read";
        };
        out.say("flush with it (" + cause + "): the query must follow the buffered writes, so it carries "
                + plural(writes, "buffered write") + " (" + numbers(txn.bufferedNumbers) + ") as "
                + plural(steps.size(), "statement") + ", then runs, " + inTrips(1));
        out.flushSteps(steps);
        txn.bufferedNumbers.clear();
        txn.sent = true;
        tally.flush(cause, steps.size());
        tally.guardStatements += 2; // SAVEPOINT and RELEASE around the writes
        tally.transactionTrips += 1;
    }

    /**
     * An INSERT: buffered (returns true) when {@link BufferRules} and its table's barrier allow, else says why not
     * (returns false: it then goes on as any other statement).
     */
    private boolean bufferedInsert(Item item, Bind[] row, Txn txn) {
        StatementDescription d = item.description();
        boolean plain = row == null;
        String notBuffered = BufferRules.whyNotBufferable(d, List.<Bind[]>of(plain ? new Bind[0] : row), plain);
        TableInfo table = null;
        if (notBuffered == null
                && BufferRules.firstWriteAsSent(
                        settings.config(),
                        settings.yugabyte(),
                        d.targetTable(),
                        1,
                        t -> !tablesRead.contains(t) && writtenOnce.add(t))) {
            notBuffered = FallbackReason.FIRST_WRITE.get().text() + ": its catalog facts are read at its second write";
        }
        if (notBuffered == null) {
            try {
                table = table(d.targetTable(), d.insertColumns());
                Fallback barrier = table.insertBarrier(
                        settings.config().trustTriggers(), settings.config().exactSequences());
                notBuffered = barrier == null ? null : barrier.text();
            } catch (SQLException e) {
                notBuffered = "its table's catalog facts could not be read (SQLState " + e.getSQLState() + ")";
            }
        }
        if (notBuffered == null) {
            buffer(item, table, row, txn);
            return true;
        }
        out.say("not buffered: " + notBuffered);
        return false;
    }

    /** A statement with writes buffered that cannot ride along: run without flushing, or after a flush. */
    private void beforeStatement(BufferRules.Flush flush, StatementDescription d, Txn txn, String notRideable) {
        switch (flush) {
            case NONE:
                runsWithoutFlushing(d, txn);
                return;
            case UNANALYSABLE_READ:
                flushFirst(
                        txn,
                        "unanalysable read",
                        "a read the analysis cannot bound (a view or user function,"
                                + " a locking clause, text it does not parse, ...): it may read what the buffer wrote");
                return;
            case READ_OF_WRITTEN_TABLE:
                flushFirst(
                        txn,
                        "read of a written table",
                        "reads " + String.join(", ", writtenTables(d, txn)) + ", which the buffered INSERTs write");
                return;
            case SEQUENCE_CALL:
                flushFirst(
                        txn,
                        "sequence call",
                        "a buffered INSERT may draw from a sequence, so nextval,"
                                + " currval, lastval and setval wait for it");
                return;
            case WRITE:
                flushFirst(txn, "write that cannot ride along", notRideable);
                return;
            default:
                flushFirst(txn, "DDL or other statement", "neither a SELECT nor a write (" + d.kind() + ")");
        }
    }

    private void runsWithoutFlushing(StatementDescription d, Txn txn) {
        List<String> read = d.tablesRead();
        tally.readsWithoutFlush++;
        out.say("runs without flushing: "
                + (read.isEmpty()
                        ? "reads no table"
                        : "reads only " + String.join(", ", read) + ", none written by the buffer")
                + "; "
                + (txn.buffer.rows() == 1
                        ? "the buffered INSERT stays"
                        : "the " + txn.buffer.rows() + " buffered INSERTs stay")
                + " buffered; 1 round trip");
        if (catalog.offline() && d.callsSequenceFunctions()) {
            out.say("(a sequence call: it flushes first when a buffered INSERT's table has an identity column or a"
                    + " default drawing from a sequence, e.g. a serial id the INSERT leaves out; assumed not"
                    + " offline)");
        }
        sentAsIssued(txn);
    }

    /** The tables {@code d} reads that the buffer wrote (for the explanation; the decision is BufferRules'). */
    private List<String> writtenTables(StatementDescription d, Txn txn) {
        List<String> written = new ArrayList<>();
        for (String name : d.tablesRead()) {
            try {
                if (txn.buffer.wrote(table(name, List.of()))) {
                    written.add(name);
                }
            } catch (SQLException e) {
                // not named
            }
        }
        return written;
    }

    /** Buffers an INSERT, sending the buffer before or after it as the size bounds ({@link BufferRules}) say. */
    private void buffer(Item item, TableInfo table, Bind[] row, Txn txn) {
        StatementDescription d = item.description();
        BufferedWrite write =
                new BufferedWrite(d, table, List.<Bind[]>of(row == null ? new Bind[0] : row), row == null, false);
        long maxRows = settings.config().maxBufferedRows();
        long maxBytes = settings.config().maxBufferedBytes();
        String bounds = "flushless.maxBufferedRows (" + maxRows + ") or flushless.maxBufferedBytes (" + maxBytes + ")";
        if (BufferRules.sendBeforeAdding(txn.buffer, 1, write.estimatedBytes(), maxRows, maxBytes)) {
            flush(txn, "flush first", "size bound", "this INSERT would take the buffer past " + bounds, null);
        }
        txn.buffer.add(write);
        txn.bufferedNumbers.add(item.number());
        tally.buffered++;
        out.say("buffered: a plain INSERT ... VALUES (one tuple, no RETURNING or ON CONFLICT): update count 1"
                + " acknowledged at once, nothing sent");
        if (BufferRules.sendAfterAdding(txn.buffer, maxRows, maxBytes)) {
            flush(txn, "then flush", "size bound", "this INSERT alone takes the buffer past " + bounds, null);
        }
    }

    /** The statement runs on the server when issued (after a flush, or with nothing buffered): one round trip. */
    private void sentAsIssued(Txn txn) {
        tally.transactionTrips++;
        txn.sent = true;
    }

    /** A flush in round trips of its own, then the statement itself. */
    private void flushFirst(Txn txn, String cause, String why) {
        int trips = flush(txn, "flush first", cause, why, null);
        out.say("then the statement itself: " + (trips + 1) + " round trips in all");
        sentAsIssued(txn);
    }

    /**
     * Sends the buffer inside the (then opened) server transaction, guarded by a savepoint: prints why, what it sends
     * and the SQL (shortened unless --full-sql), counts its statements and round trips ({@link BatchExecutor}); returns
     * the round trips. {@code label} is "flush first", "flush with it" ({@code rider}, a write whose update count is
     * needed, rides in the same round trip) or "then flush".
     */
    private int flush(Txn txn, String label, String cause, String why, StatementDescription rider) {
        int writes = txn.bufferedNumbers.size();
        List<BatchPlan.Step> steps = FlushPlanner.plan(txn.buffer.take(), settings.session(), settings.maxRows());
        List<BatchPlan.Step> run = rider == null ? steps : FlushPlanner.withRider(steps, rider.sql(), rider);
        int trips = BatchExecutor.roundTrips(run, rider == null ? 0 : rider.parameterCount(), false);
        String sent = plural(writes, "buffered INSERT") + " (" + numbers(txn.bufferedNumbers) + ") as "
                + plural(steps.size(), "statement");
        if (rider != null) {
            out.say(label + " (" + cause + "): " + why + ": sends " + sent + ", then this statement, "
                    + inTrips(trips));
        } else {
            out.say(label + " (" + cause + "): " + why + "; sends " + sent + " " + inTrips(trips));
        }
        out.flushSteps(steps);
        txn.bufferedNumbers.clear();
        txn.sent = true;
        tally.flush(cause, steps.size());
        tally.guardStatements += BatchExecutor.statementsSent(run.size(), false) - run.size();
        tally.transactionTrips += trips;
        return trips;
    }

    /** {@code commit()} (or {@code rollback()}) of one transaction of the script. */
    private void endTransaction(Txn txn, boolean commit) {
        if (txn.statements > 0) { // bare pgjdbc: COMMIT/ROLLBACK in a round trip of its own
            if (commit) {
                tally.bareCommits++;
            } else {
                tally.bareRollbacks++;
            }
        }
        if (!commit) {
            rollback(txn);
        } else if (txn.buffer.isEmpty()) {
            endAlone(
                    txn,
                    "commit(): nothing buffered; "
                            + (txn.sent
                                    ? "COMMIT: 1 round trip"
                                    : "nothing of the transaction was sent: no round trip"));
        } else {
            commitBuffer(txn);
        }
    }

    private void rollback(Txn txn) {
        if (BufferRules.sendBeforeRollback(txn.buffer, false)) {
            // as TransactionBuffering.rollback(): the ids bare pgjdbc's INSERTs drew are drawn here too
            flush(txn, "flush first", "before rollback()", "a buffered table draws ids from a sequence", null);
        }
        int discarded = txn.bufferedNumbers.size();
        txn.buffer.discard();
        endAlone(
                txn,
                "rollback(): "
                        + (discarded == 0
                                ? ""
                                : plural(discarded, "buffered INSERT") + " (" + numbers(txn.bufferedNumbers)
                                        + ") discarded unsent; ")
                        + (txn.sent ? "ROLLBACK: 1 round trip" : "nothing of the transaction was sent: no round trip"));
    }

    /** {@code commit()} with writes buffered: sent with the COMMIT, or fused (the whole transaction at once). */
    private void commitBuffer(Txn txn) {
        int writes = txn.bufferedNumbers.size();
        String numbers = numbers(txn.bufferedNumbers);
        List<dev.flushless.jdbc.buffer.BufferedWrite> buffered = txn.buffer.take();
        // fused: pgjdbc is still in autocommit, so the writes run unguarded, as one implicit transaction (or, when
        // they take several executions, one transaction that BatchExecutor opens and commits)
        boolean fused = !txn.sent;
        if (commitByCopy(txn, buffered, fused, writes, numbers)) {
            return;
        }
        List<BatchPlan.Step> steps = FlushPlanner.plan(buffered, settings.session(), settings.maxRows());
        int trips = BatchExecutor.roundTrips(steps, 0, fused);
        String inserts = plural(writes, "buffered INSERT") + " (" + numbers + ")";
        String statements = plural(steps.size(), "statement");
        if (!fused) {
            out.say("commit(): sends the " + inserts + " as " + statements + " and COMMIT " + inTrips(trips));
            tally.transactionEnds++;
        } else if (trips == 1 && !BatchExecutor.inlineTransaction(steps, 0, true)) {
            out.say("commit(), fused: nothing of the transaction was sent yet, so the " + inserts
                    + " run as one implicit transaction (no BEGIN, no COMMIT): " + statements
                    + " in one round trip, all committed or none");
            tally.fusedCommits++;
        } else if (trips == 1) {
            out.say("commit(), fused: nothing of the transaction was sent yet, so the " + inserts
                    + " run as one transaction of their own, BEGIN and COMMIT in"
                    + " the same execution (pgjdbc may send a Sync between statements): "
                    + statements + " in one round trip, all committed or none");
            tally.inlineCommits++;
            tally.transactionEnds++;
        } else {
            out.say("commit(), fused: nothing of the transaction was sent yet, so the " + inserts
                    + " run as one transaction of their own: "
                    + statements + " in more executions than one round trip carries, BEGIN with"
                    + " the first and COMMIT after the last: " + trips + " round trips, all committed or none");
            tally.transactionEnds++;
        }
        out.flushSteps(steps);
        tally.flush("at commit", steps.size());
        tally.guardStatements += BatchExecutor.statementsSent(steps.size(), fused) - steps.size();
        tally.transactionTrips += trips;
    }

    /**
     * {@code commit()} whose buffered writes go as COPY ({@link FlushPlanner#copyAtCommit}, asked as the driver asks
     * it, before any COPY measured the round-trip time): the lock and check, COPY, and the COMMIT.
     */
    private boolean commitByCopy(
            Txn txn,
            List<dev.flushless.jdbc.buffer.BufferedWrite> buffered,
            boolean fused,
            int writes,
            String numbers) {
        dev.flushless.jdbc.batch.CopyChoice choice = dev.flushless.jdbc.batch.CopyChoice.of(
                settings.config().copy(),
                settings.yugabyte(),
                0,
                false,
                settings.session().known(),
                -1,
                fused,
                !fused);
        BatchPlan copy = choice == dev.flushless.jdbc.batch.CopyChoice.NEVER
                ? null
                : FlushPlanner.copyAtCommit(buffered, settings.planner().withCopy(choice));
        if (copy == null) {
            return false;
        }
        int trips = dev.flushless.jdbc.batch.CopyExecutor.roundTrips(fused, !fused) + (fused ? 0 : 1);
        out.say("commit(): sends the " + plural(writes, "buffered INSERT") + " (" + numbers + ") as one COPY of "
                + plural(copy.copy().rows(), "row") + ": the lock and catalog check, COPY (two round trips) and the"
                + " COMMIT, " + trips + " round trips");
        out.flushSteps(copy.statements());
        tally.flush("at commit", 1);
        tally.guardStatements += dev.flushless.jdbc.batch.CopyExecutor.statementsSent(!fused) - 1;
        tally.transactionTrips += trips;
        tally.transactionEnds++;
        return true;
    }

    /** A COMMIT or ROLLBACK with nothing buffered: its own round trip when the transaction sent anything. */
    private void endAlone(Txn txn, String explanation) {
        out.say(explanation);
        if (txn.sent) {
            tally.transactionTrips++;
            tally.transactionEnds++;
        }
    }
}
