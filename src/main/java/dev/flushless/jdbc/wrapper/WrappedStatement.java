package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.engine.Engine;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Statement} handed out by {@link WrappedConnection}. Every execution asks the connection's {@link Engine}
 * for its route and runs it on pgjdbc only when the route is as sent; a batch of SQL texts is kept until
 * {@code executeBatch()} and handed to the engine (CTE chains, or buffered in {@code mode=transaction}). Result sets
 * are wrapped so that {@link ResultSet#getStatement()} leads back here; everything else passes through
 * ({@link StatementDelegation}).
 */
public class WrappedStatement extends StatementDelegation {

    final WrappedConnection connection;
    final Engine engine;
    private WrappedResultSet lastResultSet;
    /**
     * The update count of the last execution when the engine answered it without pgjdbc (buffered or ridden along),
     * -1 once the application moved past it with {@code getMoreResults()}; {@code null} when pgjdbc ran it.
     */
    private Long acknowledged;

    WrappedStatement(Statement delegate, WrappedConnection connection) {
        super(delegate);
        this.connection = connection;
        this.engine = connection.engine;
    }

    /** Wraps {@code resultSet}, reusing the last wrapper when the delegate hands out the same result set again. */
    final ResultSet wrap(ResultSet resultSet) {
        if (resultSet == null) {
            return null;
        }
        WrappedResultSet last = lastResultSet;
        if (last != null && last.delegate == resultSet) {
            return last;
        }
        lastResultSet = new WrappedResultSet(resultSet, this);
        return lastResultSet;
    }

    /** The engine answered the last execution with {@code count}; returns it. */
    final long acknowledge(long count) {
        acknowledged = count;
        return count;
    }

    /**
     * The driver's statement that ran the last execution (a query with buffered writes ahead of it in its round trip,
     * {@link Engine#queryRidingAlong}), whose result set and warnings are the application's; {@code null} when pgjdbc's
     * own statement ran it.
     */
    private Statement riddenOwner;
    /** The ridden query's result set while it is the current result ({@code getMoreResults()} moves past it). */
    private ResultSet riddenRows;

    /** The last execution runs on pgjdbc: its results come from the delegate. */
    final void resultsFromPgjdbc() throws SQLException {
        acknowledged = null;
        if (replicaResults != null) {
            // a new execution closes the last one's results, as pgjdbc's own statement does
            try {
                replicaResults.close();
            } catch (SQLException ignored) {
                // the replica connection is gone: nothing left to close
            }
            replicaResults = null;
        }
        if (riddenOwner != null) {
            Statement owner = riddenOwner;
            riddenOwner = null;
            riddenRows = null;
            owner.close(); // as pgjdbc closes a statement's result set when it executes again
        }
    }

    /** The last execution was a query that rode along with buffered writes: its result set, wrapped. */
    final ResultSet ridden(dev.flushless.jdbc.batch.BatchExecutor.QueryOutcome outcome) {
        riddenOwner = outcome.owner();
        riddenRows = wrap(outcome.rows());
        return riddenRows;
    }

    // ---- replica reads (flushless.replicas): the one seam, the engine decides ----

    /** The replica statement holding the last execution's results when it ran on a replica, else {@code null}. */
    private Statement replicaResults;

    /**
     * Asks the engine where the query {@code sql} runs; when on a replica, its results come from the returned replica
     * statement from now on ({@code null}: the primary, as sent).
     *
     * @param parameters the recorded parameters of a PreparedStatement ({@code null} for a Statement's text)
     */
    final Statement onReplica(String sql, dev.flushless.jdbc.batch.Bind[] parameters, boolean prepared, boolean kept)
            throws SQLException {
        resultsFromPgjdbc();
        if (!engine.recordsQueries() || delegate.isClosed()) {
            return null;
        }
        replicaResults = engine.replicaQuery(
                new dev.flushless.jdbc.replica.ReplicaSession.Query(sql, parameters, prepared, kept, delegate));
        return replicaResults;
    }

    static int narrow(long count) {
        return (int) Math.min(count, Integer.MAX_VALUE);
    }

    // ---- SQL text executions ----

    /** The route of an execution of {@code sql}, as the application sent it through this Statement. */
    private Engine.Decision route(String sql) throws SQLException {
        resultsFromPgjdbc();
        return delegate.isClosed() ? null : engine.route(sql, SqlAnalyzer.leadingKind(sql), null, false);
    }

    /** pgjdbc, after the engine sent what must precede {@code sql} and counted it. */
    private Statement asSent(String sql) throws SQLException {
        resultsFromPgjdbc();
        engine.beforeAsSent(sql, SqlAnalyzer.leadingKind(sql));
        return delegate;
    }

    private long answered(Engine.Decision decision, String sql) throws SQLException {
        return acknowledge(engine.run(decision, sql, null, delegate.getQueryTimeout(), null));
    }

    private static boolean asSent(Engine.Decision decision) {
        return decision == null || decision.asSent();
    }

    /** A SELECT that carries the buffered writes it must follow in its round trip, or {@code null} (see the engine). */
    private ResultSet rideAlong(String sql) throws SQLException {
        resultsFromPgjdbc();
        if (delegate.isClosed()) {
            return null; // pgjdbc's own error
        }
        dev.flushless.jdbc.batch.BatchExecutor.QueryOutcome outcome = engine.queryRidingAlong(sql, null, delegate);
        return outcome == null ? null : ridden(outcome);
    }

    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        Statement replica = onReplica(sql, null, false, true);
        if (replica != null) {
            return wrap(replica.getResultSet());
        }
        ResultSet ridden = rideAlong(sql);
        return ridden != null ? ridden : wrap(asSent(sql).executeQuery(sql));
    }

    @Override
    public int executeUpdate(String sql) throws SQLException {
        Engine.Decision decision = route(sql);
        return asSent(decision) ? asSent(sql).executeUpdate(sql) : narrow(answered(decision, sql));
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        Engine.Decision decision = route(sql);
        return asSent(decision) ? asSent(sql).executeLargeUpdate(sql) : answered(decision, sql);
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        if (onReplica(sql, null, false, true) != null) {
            return true;
        }
        if (SqlAnalyzer.leadingKind(sql) == dev.flushless.jdbc.analysis.StatementDescription.Kind.SELECT
                && rideAlong(sql) != null) {
            return true;
        }
        Engine.Decision decision = route(sql);
        if (asSent(decision)) {
            return asSent(sql).execute(sql);
        }
        answered(decision, sql);
        return false;
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return asSent(sql).executeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return asSent(sql).executeUpdate(sql, columnIndexes);
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        return asSent(sql).executeUpdate(sql, columnNames);
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        return asSent(sql).execute(sql, autoGeneratedKeys);
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        return asSent(sql).execute(sql, columnIndexes);
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        return asSent(sql).execute(sql, columnNames);
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        return asSent(sql).executeLargeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        return asSent(sql).executeLargeUpdate(sql, columnIndexes);
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        return asSent(sql).executeLargeUpdate(sql, columnNames);
    }

    // ---- results of an execution the engine answered ----

    @Override
    public ResultSet getResultSet() throws SQLException {
        if (replicaResults != null) {
            return wrap(replicaResults.getResultSet());
        }
        if (riddenOwner != null) {
            delegate.getResultSet(); // keeps the delegate's closed-statement check
            return riddenRows;
        }
        if (acknowledged != null) {
            delegate.getResultSet(); // keeps the delegate's closed-statement check
            return null;
        }
        return wrap(delegate.getResultSet());
    }

    @Override
    public int getUpdateCount() throws SQLException {
        if (replicaResults != null) {
            return replicaResults.getUpdateCount();
        }
        if (riddenOwner != null) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            return -1;
        }
        if (acknowledged != null) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            return (int) (long) acknowledged;
        }
        return delegate.getUpdateCount();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        if (replicaResults != null) {
            return replicaResults.getLargeUpdateCount();
        }
        if (riddenOwner != null) {
            delegate.getLargeUpdateCount(); // keeps the delegate's closed-statement check
            return -1;
        }
        if (acknowledged != null) {
            delegate.getLargeUpdateCount(); // keeps the delegate's closed-statement check
            return acknowledged;
        }
        return delegate.getLargeUpdateCount();
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        if (replicaResults != null) {
            return replicaResults.getMoreResults();
        }
        if (riddenOwner != null) {
            return getMoreResults(Statement.CLOSE_CURRENT_RESULT);
        }
        if (acknowledged != null) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            acknowledged = -1L;
            return false;
        }
        return delegate.getMoreResults();
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        if (replicaResults != null) {
            return replicaResults.getMoreResults(current);
        }
        if (riddenOwner != null) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            if (riddenRows != null && current != Statement.KEEP_CURRENT_RESULT) {
                riddenRows.close();
            }
            riddenRows = null; // no further result: getResultSet() null, getUpdateCount() -1
            return false;
        }
        if (acknowledged != null) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            acknowledged = -1L;
            return false;
        }
        return delegate.getMoreResults(current);
    }

    @Override
    public java.sql.SQLWarning getWarnings() throws SQLException {
        java.sql.SQLWarning own = delegate.getWarnings();
        return riddenOwner != null && own == null ? riddenOwner.getWarnings() : own;
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
        if (riddenOwner != null) {
            riddenOwner.clearWarnings();
        }
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return wrap(delegate.getGeneratedKeys());
    }

    // ---- batches of SQL texts ----

    /** SQL texts of this Statement's batch, kept for the engine; {@code null} before the first. */
    private List<String> batchTexts;
    /** Texts added to pgjdbc's own batch (not kept: the connection rewrites nothing), for the counters. */
    private int unkeptBatchTexts;

    @Override
    public void addBatch(String sql) throws SQLException {
        if (!engine.rewriting()) {
            delegate.addBatch(sql);
            unkeptBatchTexts++;
            return;
        }
        // pgjdbc checks each text when it is added: a text it cannot split (an unterminated quote or comment,
        // 42601), several statements (0A000), or a closed statement are rejected by this call, and the batch
        // keeps its other members. Let it check (its batch stays empty: the texts are kept here), so that the
        // error does not move to executeBatch() and fail the whole batch instead.
        delegate.addBatch(sql);
        delegate.clearBatch();
        if (batchTexts == null) {
            batchTexts = new ArrayList<>();
        }
        batchTexts.add(sql);
    }

    @Override
    public void clearBatch() throws SQLException {
        delegate.clearBatch();
        unkeptBatchTexts = 0;
        if (batchTexts != null) {
            batchTexts.clear();
        }
    }

    @Override
    public int[] executeBatch() throws SQLException {
        return BatchExecutor.narrow(runTextBatch(false));
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        return runTextBatch(true);
    }

    /** Runs the batch through the engine, or, when its texts went to pgjdbc's own batch, through pgjdbc. */
    private long[] runTextBatch(boolean large) throws SQLException {
        if (batchTexts == null || batchTexts.isEmpty() || delegate.isClosed()) {
            engine.beforeUnkeptTextBatch(unkeptBatchTexts, !delegate.isClosed());
            unkeptBatchTexts = 0;
            return runInPgjdbc(large); // pgjdbc runs (or, when closed, rejects) the batch itself
        }
        List<String> texts = new ArrayList<>(batchTexts);
        batchTexts.clear();
        resultsFromPgjdbc();
        return engine.textBatch(
                        new Engine.TextBatch() {
                            @Override
                            public long[] runAsSent(List<String> asSent) throws SQLException {
                                for (String text : asSent) {
                                    delegate.addBatch(text);
                                }
                                return runInPgjdbc(large);
                            }

                            @Override
                            public int queryTimeoutSeconds() throws SQLException {
                                return delegate.getQueryTimeout();
                            }
                        },
                        texts)
                .counts();
    }

    private long[] runInPgjdbc(boolean large) throws SQLException {
        return large ? delegate.executeLargeBatch() : BatchExecutor.widen(delegate.executeBatch());
    }

    // ---- the statement itself ----

    @Override
    public Connection getConnection() throws SQLException {
        delegate.getConnection(); // keeps the delegate's closed-statement check
        return connection;
    }

    @Override
    public void close() throws SQLException {
        lastResultSet = null;
        try {
            if (replicaResults != null) {
                replicaResults.close();
                replicaResults = null;
            }
            if (riddenOwner != null) {
                riddenOwner.close();
                riddenOwner = null;
                riddenRows = null;
            }
        } finally {
            delegate.close();
        }
    }

    /** pgjdbc's statement, for the {@code PGStatement} methods this wrapper implements by delegation. */
    @Override
    org.postgresql.PGStatement pgStatement() {
        try {
            return delegate.unwrap(org.postgresql.PGStatement.class);
        } catch (SQLException e) {
            throw new IllegalStateException(
                    "Flushless: the statement underneath is not pgjdbc's ("
                            + delegate.getClass().getName() + "), so its PGStatement methods are not available.",
                    e);
        }
    }

    /** This wrapper for JDBC interfaces; pgjdbc's types from pgjdbc (after the buffered writes were sent). */
    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this) && !iface.getName().startsWith("org.postgresql.")) {
            return iface.cast(this);
        }
        // mode=transaction: what runs on the pgjdbc statement must see the buffered writes
        engine.transactions().beforeConnectionCall("unwrap(" + iface.getSimpleName() + ") of a statement", true);
        beforePgjdbcInHand();
        return delegate.unwrap(iface);
    }

    /** The application is about to hold pgjdbc's statement itself: it must hold what the application set. */
    void beforePgjdbcInHand() throws SQLException {}

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    /** pgjdbc's rendering (for a PreparedStatement: the SQL with its bound values, which logs and tests rely on). */
    @Override
    public String toString() {
        return delegate.toString();
    }
}
