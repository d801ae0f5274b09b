package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.rewrite.Rewriter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.util.PSQLState;

/**
 * Runs a {@link BatchPlan} on the pgjdbc connection as one multi-statement execution, normally one round trip. In
 * autocommit a plan of one statement is one implicit transaction; a plan of several is bracketed by BEGIN and COMMIT
 * in the same execution, because pgjdbc may send a Sync between two of its statements (deadlock avoidance: a result
 * whose row size has no bound, or a full receive-buffer estimate), and a Sync commits an implicit transaction. Inside
 * an explicit transaction the plan is bracketed by a savepoint in the same round trip, so that a failure can be undone
 * and the batch re-run as sent, giving the application exactly bare pgjdbc's error and update counts; a plan that
 * checks an INSERT's count by its update count leaves its savepoint open ({@link OpenGuards}). An error under contention ({@link Errors#isContention}) is not undone:
 * it is thrown as it is, the transaction aborted as bare pgjdbc's statement would have left it.
 */
public final class BatchExecutor {

    /** The savepoint that guards a coalesced batch inside an explicit transaction. */
    public static final String GUARD_SAVEPOINT = "flushless_batch_guard";

    /** What a successful run produced: per-row counts, and the returned rows' result sets (if any) with their statements. */
    public record Outcome(
            long[] counts, List<ResultSet> returned, List<Statement> owners, int statementsSent, int roundTrips) {}

    /** A coalesced run failed and was undone (nothing of it remains); the batch must run as sent. */
    public static final class Undone extends Exception {
        private static final long serialVersionUID = 1L;
        private final String savepoint;

        Undone(SQLException cause, boolean guarded) {
            this(cause, guarded ? GUARD_SAVEPOINT : null);
        }

        Undone(SQLException cause, String savepoint) {
            super(cause);
            this.savepoint = savepoint;
        }

        /** True when a guard savepoint is still open and must be released after the re-run. */
        public boolean guarded() {
            return savepoint != null;
        }

        /** The guard savepoint to release after the re-run ({@link #guarded}). */
        String savepoint() {
            return savepoint;
        }

        public SQLException sqlCause() {
            return (SQLException) getCause();
        }
    }

    private BatchExecutor() {}

    /**
     * Runs {@code plan} for {@code rows} on {@code connection} (pgjdbc). Normally one execution; a plan
     * with more bind parameters than one execution may carry (pgjdbc counts them over all statements of
     * a multi-statement text), or more statements than pgjdbc sends with one Sync (see
     * {@link #MAX_STATEMENTS_PER_EXECUTION}), runs as several, inside one transaction (in autocommit, a
     * temporary one) so that it still applies all or nothing.
     *
     * @throws Undone when the coalesced statements failed and their effect was undone
     * @throws SQLException when the connection failed so that nothing can be said or undone
     */
    public static Outcome run(
            Connection connection, BatchPlan plan, List<Bind[]> rows, int parametersPerRow, int queryTimeoutSeconds)
            throws SQLException, Undone {
        return run(connection, plan, rows, rows.size(), parametersPerRow, queryTimeoutSeconds, false);
    }

    /**
     * Runs {@code plan} (steps that bind all their own parameters) and then, in the same round trip, commits the
     * open transaction of {@code connection} (autocommit off): a transaction's buffered writes and its COMMIT.
     * The plan is guarded by a savepoint released before the COMMIT, so a failing step leaves the transaction
     * open and undone to the savepoint ({@link Undone}); a failing COMMIT (deferred constraint, serialization
     * failure) has ended the transaction, as a failing {@code commit()} would, and is thrown as it is.
     */
    public static Outcome runThenCommit(Connection connection, BatchPlan plan, int queryTimeoutSeconds)
            throws SQLException, Undone {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("runThenCommit needs an open transaction");
        }
        return run(connection, plan, List.of(), 0, 0, queryTimeoutSeconds, true);
    }

    /**
     * Runs the plan of a {@code Statement} batch of {@code members} SQL texts (no parameters: sent through a
     * plain Statement, so a {@code ?} in the text stays an operator, as in the application's own Statement).
     */
    public static Outcome runStatements(Connection connection, BatchPlan plan, int members, int queryTimeoutSeconds)
            throws SQLException, Undone {
        return run(connection, plan, null, members, 0, queryTimeoutSeconds, false);
    }

    private static Outcome run(
            Connection connection,
            BatchPlan plan,
            List<Bind[]> rows,
            int entries,
            int parametersPerRow,
            int queryTimeoutSeconds,
            boolean commitAfter)
            throws SQLException, Undone {
        List<List<Step>> executions = pack(plan.statements(), parametersPerRow);
        boolean autocommit = connection.getAutoCommit();
        boolean envelope = autocommit && executions.size() > 1;
        // Several statements in one execution are not one implicit transaction for sure: pgjdbc sends a Sync before a
        // statement whose described result rows have no size bound (an array column, e.g. the ordinals of a keyed
        // UPDATE) or once its receive-buffer estimate is full, to avoid a deadlock, and each Sync ends an implicit
        // transaction, committing the statements before it. An explicit BEGIN ... COMMIT in the same execution keeps
        // them atomic across such a Sync without a round trip of its own.
        boolean inline = inline(executions, autocommit);
        boolean guarded = !autocommit;
        // a plan that checks an INSERT's count by its update count leaves its guard open (OpenGuards)
        boolean leaveOpen = guarded && OpenGuards.leavesOpen(plan);
        if (leaveOpen && commitAfter) {
            throw new IllegalStateException("an update-count check cannot be undone after the COMMIT it rides with");
        }
        String savepoint = !guarded ? null : leaveOpen ? OpenGuards.SAVEPOINT : GUARD_SAVEPOINT;
        long[] counts = new long[entries];
        List<ResultSet> returned = new ArrayList<>();
        List<Statement> owners = new ArrayList<>();
        boolean countMismatch = false;
        if (envelope) {
            connection.setAutoCommit(false);
        }
        try {
            for (int e = 0; e < executions.size(); e++) {
                boolean last = e == executions.size() - 1;
                countMismatch |= !execute(
                        connection,
                        executions.get(e),
                        rows,
                        parametersPerRow,
                        prefix(e == 0 ? savepoint : null, inline),
                        suffix(guarded && last && !leaveOpen, commitAfter && last || inline),
                        counts,
                        returned,
                        owners,
                        queryTimeoutSeconds);
            }
            if (countMismatch) {
                // Only possible if a trigger or rule appeared after the catalog was read (DDL by another session), for
                // an INSERT whose generated keys were asked for or whose update count is checked inside the guard
                // (the others check their count in-statement). Inside a transaction the guard undoes it and the batch
                // runs as sent; the marker makes Attempt drop the stale catalog facts.
                throw Errors.internal(Rewriter.COUNT_CHECK_MARKER + " a coalesced INSERT differ from the batch's rows"
                        + " (Flushless); a trigger or rule was probably added to the table by another session. The"
                        + " rows that were inserted are kept (committed, in autocommit); reconnect so that Flushless"
                        + " reads the table's definition again, or set flushless.mode=off for this table's writers.");
            }
            if (envelope) {
                connection.commit();
                connection.setAutoCommit(true);
            }
        } catch (SQLException e) {
            throw undone(connection, e, owners, autocommit, envelope, inline, savepoint, countMismatch);
        }
        if (returned.isEmpty()) {
            for (Statement owner : owners) {
                closeQuietly(owner);
            }
            owners.clear();
        }
        return new Outcome(
                counts,
                returned,
                owners,
                statementsSent(plan.statements().size(), autocommit) - (leaveOpen ? 1 : 0), // no RELEASE
                roundTrips(executions.size(), autocommit));
    }

    /**
     * After a run failed with {@code e}: closes its statements and throws {@code e} when nothing can or may be undone
     * (a lost connection, an error under contention, an implicit transaction that already committed); otherwise undoes
     * the run and returns the {@link Undone} to throw.
     */
    private static Undone undone(
            Connection connection,
            SQLException e,
            List<Statement> owners,
            boolean autocommit,
            boolean envelope,
            boolean inline,
            String savepoint,
            boolean countMismatch)
            throws SQLException {
        for (Statement owner : owners) {
            closeQuietly(owner);
        }
        if (Errors.isConnectionException(e.getSQLState())) {
            throw e; // the connection is gone: nothing to undo, nothing to re-run
        }
        if (Errors.isContention(e.getSQLState()) && !(e instanceof ResultDecoding.DecodeFailure)) {
            // A serialization failure, deadlock, lock timeout or cancel: the application's work ends here, as under
            // bare pgjdbc. Inside a transaction it stays aborted (nothing is rolled back to the guard: bare
            // pgjdbc's
            // statement would have aborted it too, and a re-run could not succeed in it); in autocommit only what
            // this run opened itself is ended.
            if (autocommit) {
                undo(connection, null, envelope, inline, e);
            }
            throw e;
        }
        if (autocommit && !envelope && countMismatch) {
            throw e; // one implicit transaction that already committed: it cannot be undone
        }
        if (autocommit && !envelope && e instanceof ResultDecoding.DecodeFailure) {
            // The server ran and committed the batch; only reading its results failed. Nothing can be undone,
            // and a re-run as sent would apply the rows twice.
            throw Errors.unexpected(
                    "Flushless: the coalesced batch was applied (committed, in autocommit), but its"
                            + " results could not be matched to the batch rows (" + e.getMessage()
                            + "); its update counts"
                            + " are unknown. This is a Flushless bug or a table changed by another session (a trigger or"
                            + " rule added); check the rows, and set flushless.mode=off for this statement's connection"
                            + " if it recurs.",
                    e.getCause());
        }
        undo(connection, savepoint, envelope, inline, e);
        return new Undone(e, savepoint);
    }

    /** What an execution's text starts with: the guard {@code savepoint} before the first, or the inline BEGIN. */
    private static String prefix(String savepoint, boolean inline) {
        return savepoint != null ? "SAVEPOINT " + savepoint + ";\n" : inline ? "BEGIN;\n" : "";
    }

    /** What an execution's text ends with: the guard's release after the last, then a COMMIT if one is due. */
    private static String suffix(boolean release, boolean commit) {
        return (release ? ";\nRELEASE SAVEPOINT " + GUARD_SAVEPOINT : "") + (commit ? ";\nCOMMIT" : "");
    }

    /** How the application's statement is set up, for a query it runs after buffered writes in one round trip. */
    public record QuerySettings(
            int resultSetType,
            int resultSetConcurrency,
            int resultSetHoldability,
            int maxRows,
            int queryTimeoutSeconds) {}

    /** A query that ran after the buffered writes: its result set, and the statement to close with it. */
    public record QueryOutcome(ResultSet rows, Statement owner) {}

    /**
     * Runs {@code steps} (a flush of buffered writes, each binding all its own parameters) and then the application's
     * {@code query} with {@code parameters}, in one execution inside the open transaction: {@code SAVEPOINT},
     * the writes, {@code RELEASE SAVEPOINT}, the query. The writes thus run before the query, in the application's
     * order, and the query's round trip carries them. Errors:
     * <ul>
     *   <li>under contention ({@link Errors#isContention}) the error is thrown as it is, the transaction aborted as
     *       bare pgjdbc's statement would have left it (the writes are lost with it, as they would be there);</li>
     *   <li>otherwise the transaction is rolled back to the savepoint: if that succeeds, the writes failed and nothing
     *       of them or the query remains ({@link Undone}, the caller re-runs the writes as sent); if the savepoint no
     *       longer exists, the writes succeeded and the query itself failed: its error is thrown as it is
     *       ({@link QueryFailed}), with the transaction aborted by it as under bare pgjdbc.</li>
     * </ul>
     */
    public static QueryOutcome runThenQuery(
            Connection connection, List<Step> steps, String query, Bind[] parameters, QuerySettings settings)
            throws SQLException, Undone {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("runThenQuery needs an open transaction");
        }
        StringBuilder text =
                new StringBuilder("SAVEPOINT ").append(GUARD_SAVEPOINT).append(";\n");
        for (Step step : steps) {
            text.append(step.sql()).append(";\n");
        }
        text.append("RELEASE SAVEPOINT ").append(GUARD_SAVEPOINT).append(";\n").append(query);
        PreparedStatement prepared = connection.prepareStatement(
                text.toString(),
                settings.resultSetType(),
                settings.resultSetConcurrency(),
                settings.resultSetHoldability());
        try {
            prepared.setQueryTimeout(settings.queryTimeoutSeconds());
            prepared.setMaxRows(settings.maxRows());
            int index = 1;
            for (Step step : steps) {
                for (Bind bind : step.tail()) {
                    bind.applyTo(prepared, index++);
                }
            }
            for (Bind bind : parameters) {
                bind.applyTo(prepared, index++);
            }
            prepared.execute();
        } catch (SQLException e) {
            closeQuietly(prepared);
            if (Errors.isConnectionException(e.getSQLState()) || Errors.isContention(e.getSQLState())) {
                throw e;
            }
            try (Statement rollback = connection.createStatement()) {
                rollback.execute("ROLLBACK TO SAVEPOINT " + GUARD_SAVEPOINT);
            } catch (SQLException probe) {
                if (Errors.isConnectionException(probe.getSQLState())) {
                    throw e;
                }
                throw new QueryFailed(e); // no savepoint: the writes were released, the query failed
            }
            throw new Undone(e, true);
        }
        try {
            // past SAVEPOINT, the writes' count checks (each failed inside itself if a count was off) and RELEASE
            prepared.getMoreResults(Statement.KEEP_CURRENT_RESULT);
            for (int i = 0; i < steps.size(); i++) {
                try (ResultSet check = prepared.getResultSet()) {
                    check.next();
                }
                prepared.getMoreResults(Statement.KEEP_CURRENT_RESULT);
            }
            prepared.getMoreResults(Statement.KEEP_CURRENT_RESULT);
            ResultSet rows = prepared.getResultSet();
            if (rows == null) {
                closeQuietly(prepared);
                throw new org.postgresql.util.PSQLException(
                        "No results were returned by the query.", PSQLState.NO_DATA); // pgjdbc's executeQuery error
            }
            return new QueryOutcome(rows, prepared);
        } catch (SQLException e) {
            closeQuietly(prepared);
            throw e;
        }
    }

    /** The query of {@link #runThenQuery} failed after the writes before it had succeeded: its error, as it is. */
    public static final class QueryFailed extends SQLException {
        private static final long serialVersionUID = 1L;

        QueryFailed(SQLException cause) {
            super(cause.getMessage(), cause.getSQLState(), cause.getErrorCode(), cause);
        }

        /** The query's own exception (pgjdbc's), to throw as bare pgjdbc would. */
        public SQLException error() {
            return (SQLException) getCause();
        }
    }

    /**
     * Statements a run of a plan of {@code steps} statements sends: the plan's, and with autocommit off the guard
     * {@code SAVEPOINT} and its {@code RELEASE} (transaction control, BEGIN and COMMIT, is not counted: see
     * {@code FlushlessReport}). Pure; the driver's counters and {@code explain} both count with it.
     */
    public static int statementsSent(int steps, boolean autocommit) {
        return steps + (autocommit ? 0 : 2);
    }

    /**
     * Round trips of a run of {@code steps} ({@code parametersPerRow} bind parameters per batch row): one per
     * execution they are packed into (at most {@code MAX_STATEMENTS_PER_EXECUTION} statements and
     * {@link BatchPlanner#MAX_BIND_PARAMETERS} parameters each), and in autocommit one more for the COMMIT of the
     * transaction that wraps several executions. Pure; the driver's counters and {@code explain} both count with it.
     */
    public static int roundTrips(List<Step> steps, int parametersPerRow, boolean autocommit) {
        return roundTrips(pack(steps, parametersPerRow).size(), autocommit);
    }

    /**
     * True when {@link #run} brackets the plan of {@code steps} with BEGIN and COMMIT inside its one execution: in
     * autocommit, several statements in one execution (see the class comment); the server then counts one COMMIT.
     */
    public static boolean inlineTransaction(List<Step> steps, int parametersPerRow, boolean autocommit) {
        return autocommit && inline(pack(steps, parametersPerRow), true);
    }

    /** The rule of {@link #inlineTransaction}: autocommit, one execution, several statements in it. */
    private static boolean inline(List<List<Step>> executions, boolean autocommit) {
        return autocommit && executions.size() == 1 && executions.get(0).size() > 1;
    }

    private static int roundTrips(int executions, boolean autocommit) {
        return executions + (autocommit && executions > 1 ? 1 : 0);
    }

    /**
     * Most statements of a plan sent in one execution. pgjdbc sends the statements of one execution with a
     * single Sync only while it expects their replies to fit its receive buffer: it counts 250 bytes per
     * statement (plus the row size of statements it has described) against 64,000 bytes and, past that,
     * sends a Sync and waits for the replies before sending the rest (QueryExecutorImpl.flushIfDeadlockRisk),
     * i.e. after at most 256 statements. In autocommit every Sync ends an implicit transaction, so a plan sent
     * as one longer execution would commit in pieces: a connection lost, or a statement failing, after the
     * first Sync would leave the first part committed, and the re-run as sent would apply it twice. Longer
     * plans are therefore sent as several executions, which {@link #run} wraps in one transaction. 200 leaves
     * room for the guard savepoint, its release, a COMMIT and pgjdbc's BEGIN, and for the row sizes pgjdbc
     * adds for described statements with small results.
     */
    static final int MAX_STATEMENTS_PER_EXECUTION = 200;

    /**
     * Splits the steps into executions of at most {@link BatchPlanner#MAX_BIND_PARAMETERS} parameters and
     * {@link #MAX_STATEMENTS_PER_EXECUTION} statements each.
     */
    private static List<List<Step>> pack(List<Step> steps, int parametersPerRow) {
        List<List<Step>> executions = new ArrayList<>();
        List<Step> current = new ArrayList<>();
        long parameters = 0;
        for (Step step : steps) {
            long stepParameters = step.parameterCount(parametersPerRow);
            if (!current.isEmpty()
                    && (parameters + stepParameters > BatchPlanner.MAX_BIND_PARAMETERS
                            || current.size() >= MAX_STATEMENTS_PER_EXECUTION)) {
                executions.add(current);
                current = new ArrayList<>();
                parameters = 0;
            }
            current.add(step);
            parameters += stepParameters;
        }
        executions.add(current);
        return executions;
    }

    /** One multi-statement execution (one round trip); false when an INSERT's count differs from its rows. */
    private static boolean execute(
            Connection connection,
            List<Step> steps,
            List<Bind[]> rows,
            int parametersPerRow,
            String prefix,
            String suffix,
            long[] counts,
            List<ResultSet> returned,
            List<Statement> owners,
            int queryTimeoutSeconds)
            throws SQLException {
        boolean returnsRows = steps.stream()
                .anyMatch(s -> s.decoding() == BatchPlan.Decoding.RETURNED_ROWS
                        || s.decoding() == BatchPlan.Decoding.ALIGNED_RETURNED);
        StringBuilder text = new StringBuilder(prefix);
        for (int i = 0; i < steps.size(); i++) {
            text.append(i > 0 ? ";\n" : "").append(steps.get(i).sql());
        }
        text.append(suffix);
        boolean isResultSet;
        Statement statement;
        if (rows == null) {
            statement = connection.createStatement();
            owners.add(statement);
            statement.setQueryTimeout(queryTimeoutSeconds);
            isResultSet = statement.execute(text.toString());
        } else {
            PreparedStatement prepared = returnsRows
                    ? connection.prepareStatement(
                            text.toString(), ResultSet.TYPE_SCROLL_INSENSITIVE, ResultSet.CONCUR_READ_ONLY)
                    : connection.prepareStatement(text.toString());
            statement = prepared;
            owners.add(prepared);
            prepared.setQueryTimeout(queryTimeoutSeconds);
            int index = 1;
            for (Step step : steps) {
                if (step.arrays() != null) {
                    for (Object[] column : step.arrays()) {
                        prepared.setObject(index++, column); // text[] of the texts pgjdbc would send, or integers
                    }
                    for (Bind bind : step.tail()) {
                        bind.applyTo(prepared, index++);
                    }
                    continue;
                }
                int perRow = step.rowParameters() >= 0 ? step.rowParameters() : parametersPerRow;
                for (int row : step.rows()) {
                    Bind[] binds = rows.get(row);
                    for (int p = 0; p < perRow; p++) {
                        binds[p].applyTo(prepared, index++);
                    }
                }
                for (Bind bind : step.tail()) {
                    bind.applyTo(prepared, index++);
                }
            }
            isResultSet = prepared.execute();
        }
        if (!prefix.isEmpty()) {
            isResultSet =
                    statement.getMoreResults(Statement.KEEP_CURRENT_RESULT); // past SAVEPOINT (or the inline BEGIN)
        }
        boolean countsMatch = true;
        try {
            for (Step step : steps) {
                countsMatch &= ResultDecoding.decode(step, statement, isResultSet, counts, returned);
                isResultSet = statement.getMoreResults(Statement.KEEP_CURRENT_RESULT);
            }
        } catch (SQLException e) {
            throw new ResultDecoding.DecodeFailure(e);
        }
        return countsMatch;
    }

    private static void undo(
            Connection connection, String savepoint, boolean envelope, boolean inline, SQLException cause)
            throws SQLException {
        try {
            if (envelope) {
                connection.rollback();
                connection.setAutoCommit(true);
            } else if (inline) {
                // the error left the inline BEGIN's transaction failed (or a failed COMMIT ended it: then ROLLBACK only
                // warns that no transaction is in progress)
                try (Statement rollback = connection.createStatement()) {
                    rollback.execute("ROLLBACK");
                }
            } else if (savepoint != null) {
                try (Statement rollback = connection.createStatement()) {
                    rollback.execute("ROLLBACK TO SAVEPOINT " + savepoint);
                }
            }
            // else autocommit in one execution: its single implicit transaction already rolled back
        } catch (SQLException e) {
            cause.setNextException(e);
            throw cause;
        }
    }

    /** Update counts as {@code executeBatch()} returns them: counts beyond int range become SUCCESS_NO_INFO, as in pgjdbc. */
    public static int[] narrow(long[] counts) {
        int[] narrow = new int[counts.length];
        for (int i = 0; i < counts.length; i++) {
            narrow[i] = counts[i] > Integer.MAX_VALUE ? Statement.SUCCESS_NO_INFO : (int) counts[i];
        }
        return narrow;
    }

    /** {@code executeBatch()} counts as {@code executeLargeBatch()} gives them (lossless; {@link #narrow} undoes it). */
    public static long[] widen(int[] counts) {
        long[] wide = new long[counts.length];
        for (int i = 0; i < counts.length; i++) {
            wide[i] = counts[i];
        }
        return wide;
    }

    /**
     * What {@code executeBatch()} raises for {@code failure}: pgjdbc reports a connection lost during its own
     * batch, and a server error of one of its rows, as a {@link java.sql.BatchUpdateException} carrying the failure's
     * SQLState, the failure as next exception and cause, and {@code EXECUTE_FAILED} for every entry not known to have
     * committed; a coalesced run lost so, or failing under contention ({@link Errors#isContention}: raised as it is,
     * never re-run), reaches the application in that shape. Nothing of a coalesced batch is
     * known to have committed (it runs as one transaction), so every one of its {@code entries} failed.
     * Anything else is returned as it is: a BatchUpdateException already, a server error, and a connection
     * that was closed before (08003, which pgjdbc's {@code executeBatch()} raises plainly, before any batch).
     */
    public static SQLException asBatchFailure(SQLException failure, int entries) {
        String state = failure.getSQLState();
        if (failure instanceof java.sql.BatchUpdateException
                || !(Errors.isConnectionException(state) || Errors.isContention(state))
                || PSQLState.CONNECTION_DOES_NOT_EXIST.getState().equals(state)) {
            return failure;
        }
        long[] counts = new long[entries];
        java.util.Arrays.fill(counts, Statement.EXECUTE_FAILED);
        java.sql.BatchUpdateException batch = new java.sql.BatchUpdateException(
                "Batch entry 0 <unknown> was aborted: " + failure.getMessage()
                        + "  Call getNextException to see other errors in the batch.",
                failure.getSQLState(),
                failure.getErrorCode(),
                counts,
                failure);
        batch.setNextException(failure);
        return batch;
    }

    /** Releases the guard savepoint after a successful re-run of an undone batch (only {@link Attempt} does). */
    static void releaseGuard(Connection connection, String savepoint) throws SQLException {
        try (Statement release = connection.createStatement()) {
            release.execute("RELEASE SAVEPOINT " + savepoint);
        }
    }

    private static void closeQuietly(Statement statement) {
        try {
            statement.close();
        } catch (SQLException ignored) {
            // closing a statement whose execution failed; the execution's own error is what matters
        }
    }
}
