package dev.flushless.jdbc.engine;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Attempt;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.batch.CopyChoice;
import dev.flushless.jdbc.batch.CopyExecutor;
import dev.flushless.jdbc.batch.OpenGuards;
import dev.flushless.jdbc.batch.RoundTripTime;
import dev.flushless.jdbc.batch.StatementBatchPlanner;
import dev.flushless.jdbc.buffer.TransactionBuffering;
import dev.flushless.jdbc.engine.Engine.BatchResult;
import dev.flushless.jdbc.engine.Engine.Catalog;
import dev.flushless.jdbc.engine.Engine.RecordedBatch;
import dev.flushless.jdbc.engine.Engine.TextBatch;
import dev.flushless.jdbc.replica.ReplicaSession;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.Subtransactions;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.postgresql.util.PSQLState;

/**
 * The batch routes of one {@link Engine}: a PreparedStatement batch runs buffered, ridden along, coalesced (with its
 * undo and re-run as sent, {@link Attempt}) or as sent; a plain Statement's batch of SQL texts buffered, as CTE chains
 * or as sent. The size rule and the pure planning are static: {@code explain} shares them through {@link Engine}.
 */
final class Batches {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");

    private final Engine engine;
    private final Connection delegate;
    private final FlushlessConfig config;
    private final FlushlessStats stats;
    private final TableCatalog catalog;
    private final SqlAnalyzer analyzer;
    private final ServerFacts server;
    private final TransactionBuffering transactions;
    /** {@code flushless.minBatchRows} and {@code uniqueUpdateMinRows} on this server, read once. */
    private final int minBatchRows, uniqueUpdateMinRows;

    private final RowsAhead rowsAhead; // the rows of a text's next batch handed to pgjdbc as they are added
    /** pgjdbc's own {@code reWriteBatchedInserts} is on for this connection (see {@link #leftToPgjdbcRewrite}). */
    private final boolean pgjdbcRewritesInserts;
    /** The round-trip time to this connection's server, shared with the driver's other connections to it. */
    private final RoundTripTime roundTrips;

    private final OpenGuards openGuards; // the savepoints its coalesced INSERTs left open in this transaction

    Batches(Engine engine, int minBatchRows, boolean pgjdbcRewritesInserts) {
        this.engine = engine;
        this.delegate = engine.delegate();
        this.config = engine.config();
        this.stats = engine.stats();
        this.catalog = engine.catalog();
        this.analyzer = engine.analyzer();
        this.server = engine.server();
        this.transactions = engine.transactions();
        this.minBatchRows = minBatchRows;
        this.uniqueUpdateMinRows = config.uniqueUpdateMinRows(server.yugabyte());
        this.rowsAhead = new RowsAhead(minBatchRows, uniqueUpdateMinRows);
        this.pgjdbcRewritesInserts = pgjdbcRewritesInserts;
        this.roundTrips = RoundTripTime.of(delegate);
        this.openGuards = new OpenGuards(!server.yugabyte(), engine.subtransactions());
    }

    /** When a plain INSERT batch of this connection goes as COPY now ({@link CopyChoice#of}). */
    private CopyChoice copyChoice(int queryTimeoutSeconds) throws SQLException {
        boolean pgjdbc = delegate.isWrapperFor(org.postgresql.core.BaseConnection.class);
        return CopyChoice.of(
                config.copy(),
                server.yugabyte(),
                queryTimeoutSeconds,
                transactions.hasBuffered(),
                pgjdbc,
                roundTrips.micros(),
                delegate.getAutoCommit(),
                pgjdbc && CopyExecutor.guarded(delegate));
    }

    /**
     * The size rule. A batch of one row (or a Statement batch of one SQL text) runs as sent, since pgjdbc's own single
     * execution is already one statement ({@link FallbackReason#SINGLE_ROW}); so does a batch of fewer than
     * {@code minRows} rows or texts ({@link FallbackReason#SMALL_BATCH}), decided before any catalog read, so that a
     * small batch costs what pgjdbc's own pipelined batch costs. {@code minRows} is {@code FlushlessConfig.minBatchRows}; {@code 0} skips the second
     * part (writes buffered in {@code mode=transaction} ride ahead of the batch, which then saves their round trip).
     * Pure; the driver and {@code explain} both ask it.
     */
    static Fallback sizeReason(int rows, int minRows, String what) {
        if (rows == 1) {
            return FallbackReason.SINGLE_ROW.get();
        }
        return rows >= minRows ? null : FallbackReason.SMALL_BATCH.because(rows, what, minRows);
    }

    /**
     * The most rows of a batch that runs as sent while its table's facts are read with the COMMIT ({@link
     * #firstBatchAsSent}): pgjdbc sends a batch's statements with one Sync, one round trip, until its estimate of
     * their replies (250 bytes each, QueryExecutorImpl.flushIfDeadlockRisk) reaches 64,000 bytes, i.e. up to 255
     * statements with its BEGIN. A larger batch costs pgjdbc two round trips or more, no fewer than the catalog read
     * and the coalesced statement.
     */
    static final int FIRST_BATCH_MAX_ROWS = 250;

    /**
     * The first-batch rule ({@code flushless.coalesceFirstBatch=false}): whether a coalescable batch of {@code rows}
     * rows into a table whose catalog facts are not read runs as sent, its facts read in the round trip of the
     * transaction's COMMIT. Reading them first would cost a round trip that pgjdbc's own batch of up to {@link
     * #FIRST_BATCH_MAX_ROWS} rows does not need; so the connection's first batch into a table costs bare pgjdbc's
     * round trips, and the table's later batches are coalesced. Only inside a transaction (an autocommit batch has no
     * COMMIT to ride on) and on PostgreSQL (on YugabyteDB a statement as sent costs more than a round trip). Pure.
     */
    static boolean firstBatchAsSent(boolean coalesceFirstBatch, boolean yugabyte, boolean autocommit, int rows) {
        return !coalesceFirstBatch && !yugabyte && !autocommit && rows <= FIRST_BATCH_MAX_ROWS;
    }

    /**
     * {@link #firstBatchAsSent} for this connection's batch of {@code description}: outside transaction mode's
     * buffering (which reads facts as it needs them), for the table's first batch in this transaction whose facts are
     * not cached; it notes the table so that the COMMIT reads its facts ({@link TableCatalog#readAtCommit}).
     */
    private boolean readsFactsAtCommit(StatementDescription description, int rows) throws SQLException {
        return description.isCoalescable()
                && !transactions.active()
                && firstBatchAsSent(config.coalesceFirstBatch(), server.yugabyte(), delegate.getAutoCommit(), rows)
                && !catalog.isCached(description.targetTable())
                && catalog.readAtCommit(description.targetTable());
    }

    /** Fallback plan of a batch whose table's catalog facts could not be read. */
    static BatchPlan catalogLookupFailed(SQLException e) {
        return BatchPlan.fallback(FallbackReason.CATALOG_LOOKUP_FAILED, e.getSQLState());
    }

    /**
     * The plan of a PreparedStatement batch of {@code rows} (more than one, see {@link #sizeReason}) of
     * {@code description}, pure but for what it reads from {@code catalog}: a statement the analysis cannot coalesce
     * runs as sent with the analysis' reason, a table whose facts cannot be read with {@link #catalogLookupFailed};
     * otherwise {@link BatchPlanner} decides, in the anti-join form for ON CONFLICT when {@code antiJoin}. The driver
     * and {@code explain} both plan with it.
     *
     * @param keyColumns generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}
     * @param settings the connection's settings and pgjdbc session facts (native ON CONFLICT)
     */
    static BatchPlan plan(
            StatementDescription description,
            List<Bind[]> rows,
            Catalog catalog,
            String[] keyColumns,
            BatchPlanner.Settings settings,
            boolean antiJoin)
            throws SQLException {
        if (!description.isCoalescable()) {
            return BatchPlan.fallback(description.fallback());
        }
        TableInfo table;
        try {
            table = catalog.lookup(description.targetTable());
        } catch (SQLException e) {
            return catalogLookupFailed(e);
        }
        String returningSuffix = keyColumns == null
                ? null
                : description.hasReturning() ? "" : settings.session().returningSuffix(keyColumns);
        ConflictFacts facts = null;
        boolean onConflict = description.onConflict() != StatementDescription.OnConflict.NONE;
        if (antiJoin && onConflict && table.kindProblem() == null) {
            try {
                facts = catalog.conflictFacts(table);
            } catch (SQLException e) {
                facts = null; // the planner says why the anti-join form is not used
            }
        }
        return BatchPlanner.plan(
                description,
                rows,
                table,
                returningSuffix,
                antiJoin && onConflict ? settings.withAntiJoin(facts) : settings);
    }

    /**
     * The plan of a Statement batch of two or more SQL texts (CTE chains, {@link StatementBatchPlanner}), or a fallback
     * when a table's facts cannot be read ({@link #catalogLookupFailed}). The driver and {@code explain} both plan with it.
     */
    static BatchPlan planTexts(
            List<StatementDescription> members,
            StatementBatchPlanner.TableLookup tables,
            BatchPlanner.Settings settings) {
        try {
            return StatementBatchPlanner.plan(members, tables, settings);
        } catch (SQLException e) {
            return catalogLookupFailed(e);
        }
    }

    /**
     * Runs the recorded {@code rows} of {@code batch}: buffered, ridden along, coalesced, or as sent.
     */
    BatchResult batch(RecordedBatch batch, List<Bind[]> rows) throws SQLException {
        engine.settleSchemaChange();
        String sql = batch.sql();
        rowsAhead.note(sql, rows.size(), null);
        StatementDescription.Kind kind = SqlAnalyzer.leadingKind(sql);
        engine.replicaStatementStarting(kind, sql);
        boolean keys = batch.keyColumns() != null;
        if (engine.subtransactions().exhausted(delegate)) { // no more guard savepoints in this transaction
            stats.fallback(FallbackReason.SUBTRANSACTION_LIMIT.because(Subtransactions.LIMIT), rows.size());
            transactions.beforeServerStatement(sql);
            return asSent(batch, rows);
        }
        if (kind == StatementDescription.Kind.INSERT
                && pgjdbcRewritesInserts
                && leftToPgjdbcRewrite(batch.description(), rows.size(), keys)) {
            stats.fallback(FallbackReason.PGJDBC_REWRITES.get(), rows.size());
            transactions.beforeServerStatement(sql);
            return asSent(batch, rows);
        }
        if (kind == StatementDescription.Kind.INSERT
                && !keys
                && transactions.active()
                && transactions.tryBuffer(batch.description(), rows, false, true)) {
            long[] counts = new long[rows.size()];
            Arrays.fill(counts, 1);
            return new BatchResult(Route.BUFFER, counts, null);
        }
        if (kind == StatementDescription.Kind.UPDATE && !keys && transactions.active()) {
            TableInfo table = transactions.bufferableUpdate(batch.description(), rows);
            if (table != null) { // every row updates one row the transaction holds locked: its count is 1
                transactions.buffer(batch.description(), table, rows, false, true);
                long[] counts = new long[rows.size()];
                Arrays.fill(counts, 1);
                return new BatchResult(Route.BUFFER, counts, null);
            }
        }
        if (rows.size() == 1 && !keys && transactions.active() && transactions.rideable(sql, rows.get(0))) {
            long count = transactions.rideAlong(sql, rows.get(0), batch.queryTimeoutSeconds(), true);
            return new BatchResult(Route.RIDE_ALONG, new long[] {count}, null);
        }
        Fallback small = sizeReason(rows.size(), minBatchRowsNow(), "rows");
        if (small != null) {
            transactions.beforeServerStatement(sql);
            // Nothing worth coalescing: pgjdbc's own pipelined batch (or single execution) costs less.
            stats.fallback(small, rows.size());
            return asSent(batch, rows);
        }
        StatementDescription description = batch.description();
        if (readsFactsAtCommit(description, rows.size())) {
            transactions.beforeServerStatement(sql);
            stats.fallback(FallbackReason.FIRST_BATCH.get(), rows.size());
            return asSent(batch, rows);
        }
        SessionFacts session = engine.sessionFacts();
        BatchPlan plan = plan(
                batch,
                description,
                rows,
                session,
                description.onConflict() != StatementDescription.OnConflict.NONE && onConflictAntiJoin());
        if (plan.isFallback()) {
            stats.fallback(plan.fallback(), rows.size());
            rowsAhead.note(sql, rows.size(), plan.fallback());
            transactions.beforeServerStatement(sql);
            return asSent(batch, rows);
        }
        if (plan.note() != null) {
            stats.noted(plan.note(), rows.size());
        }
        return coalesce(batch, description, plan, rows, session);
    }

    /**
     * How many rows of a PreparedStatement batch of {@code kind} the facade also hands to pgjdbc's own batch as the
     * application adds them, asked at the batch's first row: the rows a batch can have and still run as sent by the
     * size rule ({@link #sizeReason}), so that such a batch runs on pgjdbc's batch as it is, without a replay of its
     * recorded rows ({@link RecordedBatch#runAsSent} recognises them). 0 when the batch will likely be buffered or
     * carry buffered writes in {@code mode=transaction}. Only a cost estimate: {@link #batch} still decides the route
     * from every recorded row, and a batch that grows to the threshold is planned from them ({@link RowsAhead}).
     */
    int asSentRowsAhead(StatementDescription.Kind kind, String sql) {
        if (transactions.active() && (kind == StatementDescription.Kind.INSERT || transactions.hasBuffered())) {
            return 0;
        }
        return rowsAhead.of(sql);
    }

    /**
     * Before a PreparedStatement batch the facade did not record (not rewriting, recording stopped, a closed statement)
     * runs on pgjdbc: sends what must precede it in {@code mode=transaction}, counts its {@code rows} as sent.
     */
    void beforeUnrecordedBatch(String sql, Fallback reason, int rows, boolean open) throws SQLException {
        engine.followerReadStatement(SqlAnalyzer.leadingKind(sql), sql);
        if (rows > 0 && open) {
            transactions.beforeServerStatement(sql);
        }
        stats.fallback(reason, rows);
    }

    /** The same for a plain Statement's batch whose texts went to pgjdbc's own batch. */
    void beforeUnkeptTextBatch(int texts, boolean open) throws SQLException {
        engine.followerReadStatement(StatementDescription.Kind.OTHER, null);
        if (texts > 0 && open) {
            transactions.beforeConnectionCall("a Statement batch", true);
        }
        stats.fallback(null, texts);
    }

    /**
     * The smallest batch this connection coalesces now: {@code flushless.minBatchRows} on this server, or 0 when
     * writes buffered in {@code mode=transaction} would ride ahead of the batch.
     */
    private int minBatchRowsNow() {
        return transactions.hasBuffered() ? 0 : minBatchRows;
    }

    /**
     * Whether a batch of {@code rows} rows of {@code description} is left to pgjdbc: with {@code reWriteBatchedInserts}
     * on, pgjdbc sends a batch of one {@code INSERT ... VALUES (tuple)} without RETURNING as multi-row statements and
     * answers {@code SUCCESS_NO_INFO} (-2) for their rows; an application that set it sees those counts, so Flushless
     * neither coalesces nor buffers such a batch (coalescing would answer exact counts of 1).
     */
    private boolean leftToPgjdbcRewrite(StatementDescription description, int rows, boolean keysRequested) {
        return pgjdbcRewritesInserts
                && rows > 1
                && !keysRequested
                && description.kind() == StatementDescription.Kind.INSERT
                && description.isSingleStatement()
                && description.tupleStart() >= 0
                && !description.hasReturning();
    }

    static boolean pgjdbcRewritesInserts(Connection delegate) {
        try {
            return delegate.isWrapperFor(org.postgresql.core.BaseConnection.class)
                    && delegate.unwrap(org.postgresql.core.BaseConnection.class)
                            .getQueryExecutor()
                            .isReWriteBatchedInsertsEnabled();
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /**
     * Whether ON CONFLICT batches take the anti-join form: {@code flushless.onConflict=antijoin}, or {@code auto} on a
     * YugabyteDB release that does not batch ON CONFLICT itself (asked once, on YugabyteDB only; {@link
     * ServerFacts#antiJoin}, which explain asks too).
     */
    private boolean onConflictAntiJoin() {
        return server.antiJoin(config.onConflict(), delegate);
    }

    private BatchResult asSent(RecordedBatch batch, List<Bind[]> rows) throws SQLException {
        return new BatchResult(Route.AS_SENT, batch.runAsSent(rows), null);
    }

    /** The plan of a coalescable batch, or a fallback plan saying why it runs as sent. */
    private BatchPlan plan(
            RecordedBatch batch,
            StatementDescription description,
            List<Bind[]> rows,
            SessionFacts session,
            boolean antiJoin)
            throws SQLException {
        return plan(
                description,
                rows,
                connectionCatalog(),
                batch.keyColumns(),
                openGuards.plannerSettings(
                        delegate,
                        BatchPlanner.Settings.of(config, session)
                                .withCopy(copyChoice(batch.queryTimeoutSeconds()))
                                .withUniqueUpdateMinRows(minBatchRowsNow() == 0 ? 0 : uniqueUpdateMinRows)),
                antiJoin);
    }

    /** This connection's cached catalog, read through the pgjdbc connection. */
    private Catalog connectionCatalog() {
        return new Catalog() {
            @Override
            public TableInfo lookup(String table) throws SQLException {
                return catalog.lookup(delegate, table);
            }

            @Override
            public ConflictFacts conflictFacts(TableInfo table) throws SQLException {
                return catalog.conflictFacts(delegate, table);
            }
        };
    }

    /** Runs {@code plan} coalesced, with the buffered writes riding ahead of it; undone, it runs as sent. */
    private BatchResult coalesce(
            RecordedBatch batch,
            StatementDescription description,
            BatchPlan plan,
            List<Bind[]> rows,
            SessionFacts session)
            throws SQLException {
        // mode=transaction: buffered writes ride ahead of the batch, in its round trip
        TransactionBuffering.Ride ride = transactions.takeRide();
        int timeout = batch.queryTimeoutSeconds();
        return Attempt.run(
                engine,
                () -> {
                    long start = System.nanoTime();
                    BatchExecutor.Outcome outcome;
                    try {
                        outcome = plan.isCopy()
                                ? CopyExecutor.run(delegate, plan.copy(), roundTrips)
                                : BatchExecutor.run(
                                        delegate,
                                        ride == null ? plan : ride.prepend(plan),
                                        rows,
                                        description.parameterCount(),
                                        timeout);
                    } catch (SQLException e) {
                        throw BatchExecutor.asBatchFailure(
                                e, rows.size()); // a lost connection, as pgjdbc reports it for a batch
                    }
                    if (ride != null) {
                        transactions.rideSent(ride);
                    }
                    openGuards.ran(plan);
                    coalesced(plan, rows.size(), outcome, System.nanoTime() - start, batch.sql());
                    return new BatchResult(Route.COALESCE, outcome.counts(), outcome);
                },
                undone -> {
                    if (ride != null) {
                        transactions.rideUndone(ride, undone);
                    }
                    if (plan.isAntiJoin()
                            && PSQLState.UNIQUE_VIOLATION
                                    .getState()
                                    .equals(undone.sqlCause().getSQLState())) {
                        return new AntiJoinRace(engine, batch, description, rows, session).afterUniqueViolation(undone);
                    }
                    return Attempt.reRunAsSent(engine, rows.size(), () -> asSent(batch, rows))
                            .afterUndo(undone);
                });
    }

    /** The native ON CONFLICT plan of an anti-join batch (for {@link AntiJoinRace}). */
    BatchPlan nativePlan(RecordedBatch batch, StatementDescription description, List<Bind[]> rows, SessionFacts session)
            throws SQLException {
        return plan(batch, description, rows, session, false);
    }

    /**
     * Counts a coalesced batch and logs it at DEBUG: the application's SQL, the first rewritten statement and the row
     * count (never bound values).
     */
    void coalesced(BatchPlan plan, int rows, BatchExecutor.Outcome outcome, long nanos, String applicationSql) {
        stats.rewrite(
                plan.rewriteKind(),
                rows,
                plan.statements().size(),
                outcome.statementsSent(),
                outcome.roundTrips(),
                nanos,
                // a native ON CONFLICT plan's estimate needs the server's batching (read once, YugabyteDB only)
                plan.estimatedFlushes(plan.isNativeOnConflict() ? server.flushModel(delegate) : server.flushModel()));
        if (LOG.isLoggable(System.Logger.Level.DEBUG)) {
            LOG.log(
                    System.Logger.Level.DEBUG,
                    "Flushless " + plan.rewriteKind() + ": " + rows + " rows as "
                            + plan.statements().size() + " statement(s) in " + outcome.roundTrips() + " round trip(s); "
                            + "application SQL: " + applicationSql + " ; sent: "
                            + plan.statements().get(0).sql());
        }
    }

    /**
     * Runs a plain Statement's batch of {@code texts}: buffered when every text is a bufferable INSERT
     * ({@code mode=transaction}), else as CTE chains ({@link StatementBatchPlanner}), else as sent.
     */
    BatchResult textBatch(TextBatch batch, List<String> texts) throws SQLException {
        engine.settleSchemaChange();
        ReplicaSession replicas = engine.replicas();
        if (replicas != null) {
            for (String text : texts) {
                StatementDescription.Kind kind = SqlAnalyzer.leadingKind(text);
                if (!kind.isWrite() || text == texts.get(texts.size() - 1)) {
                    replicas.statementStarting(kind, text); // a session change among them, or the batch as a write
                    break;
                }
            }
        }
        engine.followerReadStatement(StatementDescription.Kind.OTHER, null); // the texts, as one write
        if (transactions.active()) {
            texts.forEach(transactions::noteText);
            long[] counts = bufferTexts(texts);
            if (counts != null) {
                return new BatchResult(Route.BUFFER, counts, null);
            }
            transactions.beforeConnectionCall("a Statement batch", true);
        }
        Fallback small = engine.subtransactions().exhausted(delegate)
                ? FallbackReason.SUBTRANSACTION_LIMIT.because(Subtransactions.LIMIT)
                : sizeReason(texts.size(), minBatchRows, "SQL texts");
        if (small != null) {
            stats.fallback(small, texts.size());
            try {
                return new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null);
            } finally {
                engine.afterText(texts.get(0));
            }
        }
        try {
            List<StatementDescription> members = new ArrayList<>(texts.size());
            for (String text : texts) {
                members.add(analyzer.describe(text));
            }
            BatchPlan plan = planTexts(
                    members,
                    table -> catalog.lookup(delegate, table),
                    BatchPlanner.Settings.of(config, engine.sessionFacts()));
            if (plan.isFallback()) {
                stats.fallback(plan.fallback(), texts.size());
                return new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null);
            }
            BatchPlan chained = plan;
            int timeout = batch.queryTimeoutSeconds();
            return Attempt.run(
                    engine,
                    () -> {
                        long start = System.nanoTime();
                        BatchExecutor.Outcome outcome;
                        try {
                            outcome = BatchExecutor.runStatements(delegate, chained, texts.size(), timeout);
                        } catch (SQLException e) {
                            throw BatchExecutor.asBatchFailure(
                                    e, texts.size()); // a lost connection, as pgjdbc reports it
                        }
                        coalesced(chained, texts.size(), outcome, System.nanoTime() - start, texts.get(0));
                        return new BatchResult(Route.COALESCE, outcome.counts(), null);
                    },
                    Attempt.reRunAsSent(
                            engine, texts.size(), () -> new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null)));
        } finally {
            for (String text : texts) {
                engine.afterText(text);
            }
        }
    }

    /** {@code mode=transaction}: buffers the texts when every one is a bufferable INSERT; else {@code null}. */
    private long[] bufferTexts(List<String> texts) throws SQLException {
        List<StatementDescription> members = new ArrayList<>(texts.size());
        List<TableInfo> tables = new ArrayList<>(texts.size());
        List<Bind[]> noParameters = List.<Bind[]>of(new Bind[0]);
        for (String text : texts) {
            if (SqlAnalyzer.leadingKind(text) != StatementDescription.Kind.INSERT) {
                return null;
            }
            StatementDescription member = analyzer.describe(text);
            TableInfo table = transactions.firstWriteAsSent(member, texts.size())
                    ? null
                    : transactions.bufferableTable(member, noParameters, true);
            if (table == null) {
                return null;
            }
            members.add(member);
            tables.add(table);
        }
        for (int i = 0; i < members.size(); i++) {
            transactions.buffer(members.get(i), tables.get(i), noParameters, true, true);
        }
        long[] counts = new long[texts.size()];
        Arrays.fill(counts, 1);
        return counts;
    }
}
