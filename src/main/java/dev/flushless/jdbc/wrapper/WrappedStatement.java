package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.StatementBatchPlanner;
import java.sql.*;
import java.util.ArrayList;
import java.util.List;

/**
 * A {@link Statement} handed out by {@link WrappedConnection}: delegates every call, returns the wrapping
 * connection from {@link #getConnection()} and wraps the result sets it returns so that
 * {@link ResultSet#getStatement()} leads back here. On a coalescing connection, a batch of SQL texts is
 * kept until {@code executeBatch()} and sent as CTE chains ({@link StatementBatchPlanner}).
 */
public class WrappedStatement implements Statement {

    final Statement delegate;
    final WrappedConnection connection;
    private WrappedResultSet lastResultSet;

    WrappedStatement(Statement delegate, WrappedConnection connection) {
        this.delegate = delegate;
        this.connection = connection;
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

    /** {@link #acknowledged} when the last execution ran on pgjdbc (its results come from the delegate). */
    static final long NOT_BUFFERED = Long.MIN_VALUE;

    /**
     * The update count of the last execution when {@code mode=transaction} buffered it (its result is known
     * without the server: one row), -1 once the application moved past it with {@code getMoreResults()}, or
     * {@link #NOT_BUFFERED}.
     */
    long acknowledged = NOT_BUFFERED;

    /**
     * Before the application's SQL runs on pgjdbc: forgets a buffered result, lets {@code mode=transaction}
     * send what must precede the statement, and counts it.
     */
    final void executing(String sql) throws SQLException {
        acknowledged = NOT_BUFFERED;
        connection.transactions.beforeServerStatement(sql);
        connection.executing(sql);
    }

    /**
     * {@code mode=transaction}: buffers a plain Statement's INSERT text inside an explicit transaction when
     * its count is known in advance; true when buffered (its count, 1, is then the result).
     */
    private boolean buffered(String sql) throws SQLException {
        if (!connection.transactions.active() || getClass() != WrappedStatement.class || delegate.isClosed()
                || dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql) != StatementDescription.Kind.INSERT) {
            return false;
        }
        if (!connection.transactions.tryBuffer(connection.analyzer.describe(sql), List.<dev.flushless.jdbc.batch.Bind[]>of(new dev.flushless.jdbc.batch.Bind[0]),
                true, false)) {
            return false;
        }
        acknowledged = 1;
        return true;
    }

    /**
     * {@code mode=transaction}: runs a plain Statement's write together with the buffered writes in one round
     * trip when its count is all the application needs; true when it did (the count is then {@link #acknowledged}).
     */
    private boolean rodeAlong(String sql) throws SQLException {
        if (!connection.transactions.active() || getClass() != WrappedStatement.class || delegate.isClosed()) {
            return false;
        }
        long count = connection.transactions.rideAlong(sql, null, delegate.getQueryTimeout(), false);
        if (count == TransactionBuffering.NOT_RIDDEN) {
            return false;
        }
        acknowledged = count;
        return true;
    }

    /** SQL texts of a plain Statement's batch, kept for coalescing; {@code null} when not coalescing. */
    private List<String> batchTexts;

    private boolean keepsBatchTexts() {
        return getClass() == WrappedStatement.class && connection.coalescing();
    }

    /** Texts added to pgjdbc's own batch (not kept for coalescing), for the counters. */
    private int unkeptBatchTexts;

    @Override
    public void addBatch(String sql) throws SQLException {
        if (!keepsBatchTexts()) {
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
        long[] counts = runTextBatch();
        if (counts == null) {
            return delegate.executeBatch();
        }
        return BatchExecutor.narrow(counts);
    }

    @Override
    public long[] executeLargeBatch() throws SQLException {
        long[] counts = runTextBatch();
        return counts != null ? counts : delegate.executeLargeBatch();
    }

    /**
     * Runs a kept text batch coalesced and returns its counts, or hands the texts to pgjdbc's own batch and
     * returns {@code null} (the caller then runs pgjdbc's batch, as the application would have).
     */
    private long[] runTextBatch() throws SQLException {
        if (batchTexts == null || batchTexts.isEmpty() || delegate.isClosed()) {
            if (unkeptBatchTexts > 0 && !delegate.isClosed()) {
                connection.transactions.beforeConnectionCall("a Statement batch", true);
            }
            connection.stats.fallback(null, unkeptBatchTexts);
            unkeptBatchTexts = 0;
            return null; // pgjdbc runs (or, when closed, rejects) the batch itself
        }
        List<String> texts = new ArrayList<>(batchTexts);
        batchTexts.clear();
        acknowledged = NOT_BUFFERED;
        if (connection.transactions.active()) {
            long[] counts = bufferTexts(texts);
            if (counts != null) {
                return counts;
            }
            connection.transactions.beforeConnectionCall("a Statement batch", true);
        }
        if (texts.size() == 1) {
            connection.stats.fallback(WrappedPreparedStatement.SINGLE_ROW, 1);
            replay(texts);
            connection.afterStatement(texts.get(0));
            return null;
        }
        try {
            List<StatementDescription> members = new ArrayList<>(texts.size());
            for (String text : texts) {
                members.add(connection.analyzer.describe(text));
            }
            BatchPlan plan;
            try {
                plan = StatementBatchPlanner.plan(members,
                        table -> connection.catalog.lookup(connection.delegate, table),
                        connection.flushlessConfig().trustTriggers(), connection.flushlessConfig().exactSequences());
            } catch (SQLException e) {
                plan = new BatchPlan(null, List.of(), "catalog lookup failed (SQLState " + e.getSQLState() + ")");
            }
            if (plan.isFallback()) {
                connection.stats.fallback(plan.fallbackReason(), texts.size());
                replay(texts);
                return null;
            }
            try {
                long start = System.nanoTime();
                BatchExecutor.Outcome outcome = BatchExecutor.runStatements(connection.delegate, plan, texts.size(),
                        delegate.getQueryTimeout());
                connection.coalesced(plan, texts.size(), outcome, System.nanoTime() - start, texts.get(0));
                return outcome.counts();
            } catch (BatchExecutor.Undone undone) {
                return connection.runAsSentAfterUndo(undone, texts.size(), () -> {
                    replay(texts);
                    return BatchExecutor.widen(delegate.executeBatch());
                });
            } catch (SQLException e) {
                throw BatchExecutor.asBatchFailure(e, texts.size()); // a lost connection, as pgjdbc reports it for a batch
            }
        } finally {
            for (String text : texts) {
                connection.afterStatement(text);
            }
        }
    }

    /** {@code mode=transaction}: buffers the batch when every member is a bufferable INSERT; else {@code null}. */
    private long[] bufferTexts(List<String> texts) throws SQLException {
        List<StatementDescription> members = new ArrayList<>(texts.size());
        List<dev.flushless.jdbc.batch.TableCatalog.TableInfo> tables = new ArrayList<>(texts.size());
        List<dev.flushless.jdbc.batch.Bind[]> noParameters = List.<dev.flushless.jdbc.batch.Bind[]>of(
                new dev.flushless.jdbc.batch.Bind[0]);
        for (String text : texts) {
            if (dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(text) != StatementDescription.Kind.INSERT) {
                return null;
            }
            StatementDescription member = connection.analyzer.describe(text);
            dev.flushless.jdbc.batch.TableCatalog.TableInfo table = connection.transactions.bufferableTable(member,
                    noParameters, true);
            if (table == null) {
                return null;
            }
            members.add(member);
            tables.add(table);
        }
        for (int i = 0; i < members.size(); i++) {
            connection.transactions.buffer(members.get(i), tables.get(i), noParameters, true, true);
        }
        long[] counts = new long[texts.size()];
        java.util.Arrays.fill(counts, 1);
        return counts;
    }

    private void replay(List<String> texts) throws SQLException {
        for (String text : texts) {
            delegate.addBatch(text);
        }
    }


    @Override
    public ResultSet executeQuery(String sql) throws SQLException {
        executing(sql);
        return wrap(delegate.executeQuery(sql));
    }

    @Override
    public ResultSet getResultSet() throws SQLException {
        if (acknowledged != NOT_BUFFERED) {
            delegate.getResultSet(); // keeps the delegate's closed-statement check
            return null;
        }
        return wrap(delegate.getResultSet());
    }

    @Override
    public ResultSet getGeneratedKeys() throws SQLException {
        return wrap(delegate.getGeneratedKeys());
    }

    @Override
    public Connection getConnection() throws SQLException {
        delegate.getConnection(); // keeps the delegate's closed-statement check
        return connection;
    }

    @Override
    public void close() throws SQLException {
        lastResultSet = null;
        delegate.close();
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        // mode=transaction: what runs on the pgjdbc statement must see the buffered writes
        connection.transactions.beforeConnectionCall("unwrap(" + iface.getSimpleName() + ") of a statement", true);
        return delegate.unwrap(iface);
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || delegate.isWrapperFor(iface);
    }

    @Override
    public String toString() {
        return "Flushless wrapping " + delegate;
    }

    // ---- plain delegation below ----

    @Override
    public int executeUpdate(String sql) throws SQLException {
        if (buffered(sql)) {
            return 1;
        }
        if (rodeAlong(sql)) {
            return (int) Math.min(acknowledged, Integer.MAX_VALUE);
        }
        executing(sql);
        return delegate.executeUpdate(sql);
    }

    @Override
    public int getMaxFieldSize() throws SQLException {
        return delegate.getMaxFieldSize();
    }

    @Override
    public void setMaxFieldSize(int max) throws SQLException {
        delegate.setMaxFieldSize(max);
    }

    @Override
    public int getMaxRows() throws SQLException {
        return delegate.getMaxRows();
    }

    @Override
    public void setMaxRows(int max) throws SQLException {
        delegate.setMaxRows(max);
    }

    @Override
    public void setEscapeProcessing(boolean enable) throws SQLException {
        delegate.setEscapeProcessing(enable);
    }

    @Override
    public int getQueryTimeout() throws SQLException {
        return delegate.getQueryTimeout();
    }

    @Override
    public void setQueryTimeout(int seconds) throws SQLException {
        delegate.setQueryTimeout(seconds);
    }

    @Override
    public void cancel() throws SQLException {
        delegate.cancel();
    }

    @Override
    public SQLWarning getWarnings() throws SQLException {
        return delegate.getWarnings();
    }

    @Override
    public void clearWarnings() throws SQLException {
        delegate.clearWarnings();
    }

    @Override
    public void setCursorName(String name) throws SQLException {
        delegate.setCursorName(name);
    }

    @Override
    public boolean execute(String sql) throws SQLException {
        if (buffered(sql) || rodeAlong(sql)) {
            return false;
        }
        executing(sql);
        return delegate.execute(sql);
    }

    @Override
    public int getUpdateCount() throws SQLException {
        if (acknowledged != NOT_BUFFERED) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            return (int) acknowledged;
        }
        return delegate.getUpdateCount();
    }

    @Override
    public boolean getMoreResults() throws SQLException {
        if (acknowledged != NOT_BUFFERED) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            acknowledged = -1;
            return false;
        }
        return delegate.getMoreResults();
    }

    @Override
    public void setFetchDirection(int direction) throws SQLException {
        delegate.setFetchDirection(direction);
    }

    @Override
    public int getFetchDirection() throws SQLException {
        return delegate.getFetchDirection();
    }

    @Override
    public void setFetchSize(int rows) throws SQLException {
        delegate.setFetchSize(rows);
    }

    @Override
    public int getFetchSize() throws SQLException {
        return delegate.getFetchSize();
    }

    @Override
    public int getResultSetConcurrency() throws SQLException {
        return delegate.getResultSetConcurrency();
    }

    @Override
    public int getResultSetType() throws SQLException {
        return delegate.getResultSetType();
    }

    @Override
    public boolean getMoreResults(int current) throws SQLException {
        if (acknowledged != NOT_BUFFERED) {
            delegate.getUpdateCount(); // keeps the delegate's closed-statement check
            acknowledged = -1;
            return false;
        }
        return delegate.getMoreResults(current);
    }

    @Override
    public int executeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        executing(sql);
        return delegate.executeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public int executeUpdate(String sql, int[] columnIndexes) throws SQLException {
        executing(sql);
        return delegate.executeUpdate(sql, columnIndexes);
    }

    @Override
    public int executeUpdate(String sql, String[] columnNames) throws SQLException {
        executing(sql);
        return delegate.executeUpdate(sql, columnNames);
    }

    @Override
    public boolean execute(String sql, int autoGeneratedKeys) throws SQLException {
        executing(sql);
        return delegate.execute(sql, autoGeneratedKeys);
    }

    @Override
    public boolean execute(String sql, int[] columnIndexes) throws SQLException {
        executing(sql);
        return delegate.execute(sql, columnIndexes);
    }

    @Override
    public boolean execute(String sql, String[] columnNames) throws SQLException {
        executing(sql);
        return delegate.execute(sql, columnNames);
    }

    @Override
    public int getResultSetHoldability() throws SQLException {
        return delegate.getResultSetHoldability();
    }

    @Override
    public boolean isClosed() throws SQLException {
        return delegate.isClosed();
    }

    @Override
    public void setPoolable(boolean poolable) throws SQLException {
        delegate.setPoolable(poolable);
    }

    @Override
    public boolean isPoolable() throws SQLException {
        return delegate.isPoolable();
    }

    @Override
    public void closeOnCompletion() throws SQLException {
        delegate.closeOnCompletion();
    }

    @Override
    public boolean isCloseOnCompletion() throws SQLException {
        return delegate.isCloseOnCompletion();
    }

    @Override
    public long getLargeUpdateCount() throws SQLException {
        if (acknowledged != NOT_BUFFERED) {
            delegate.getLargeUpdateCount(); // keeps the delegate's closed-statement check
            return acknowledged;
        }
        return delegate.getLargeUpdateCount();
    }

    @Override
    public void setLargeMaxRows(long max) throws SQLException {
        delegate.setLargeMaxRows(max);
    }

    @Override
    public long getLargeMaxRows() throws SQLException {
        return delegate.getLargeMaxRows();
    }

    @Override
    public long executeLargeUpdate(String sql) throws SQLException {
        if (buffered(sql)) {
            return 1;
        }
        if (rodeAlong(sql)) {
            return acknowledged;
        }
        executing(sql);
        return delegate.executeLargeUpdate(sql);
    }

    @Override
    public long executeLargeUpdate(String sql, int autoGeneratedKeys) throws SQLException {
        executing(sql);
        return delegate.executeLargeUpdate(sql, autoGeneratedKeys);
    }

    @Override
    public long executeLargeUpdate(String sql, int[] columnIndexes) throws SQLException {
        executing(sql);
        return delegate.executeLargeUpdate(sql, columnIndexes);
    }

    @Override
    public long executeLargeUpdate(String sql, String[] columnNames) throws SQLException {
        executing(sql);
        return delegate.executeLargeUpdate(sql, columnNames);
    }

    @Override
    public String enquoteLiteral(String val) throws SQLException {
        return delegate.enquoteLiteral(val);
    }

    @Override
    public String enquoteIdentifier(String identifier, boolean alwaysQuote) throws SQLException {
        return delegate.enquoteIdentifier(identifier, alwaysQuote);
    }

    @Override
    public boolean isSimpleIdentifier(String identifier) throws SQLException {
        return delegate.isSimpleIdentifier(identifier);
    }

    @Override
    public String enquoteNCharLiteral(String val) throws SQLException {
        return delegate.enquoteNCharLiteral(val);
    }
}
