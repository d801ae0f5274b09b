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
import dev.flushless.jdbc.batch.StatementBatchPlanner;
import dev.flushless.jdbc.buffer.BufferRules;
import dev.flushless.jdbc.buffer.TransactionBuffering;
import dev.flushless.jdbc.replica.ReplicaConnector;
import dev.flushless.jdbc.replica.ReplicaReads;
import dev.flushless.jdbc.replica.ReplicaSession;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.Subtransactions;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.yugabyte.FollowerReadSession;
import dev.flushless.jdbc.yugabyte.FollowerReads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.List;

/**
 * The one place that decides how each execution of one Flushless connection reaches the server ({@link Route}), and
 * carries out every route but the plain call to pgjdbc: buffering, riding along, group commit and coalescing, with
 * their undo and re-run as sent ({@link Attempt}). It is also the connection's {@link Session}. The JDBC facades in
 * {@code wrapper/} translate calls into {@link #route} / {@link #run} and {@link #batch} / {@link #textBatch} and
 * call pgjdbc themselves only for {@link Route#AS_SENT}.
 */
public final class Engine implements Session {

    private static volatile SqlAnalyzer sharedAnalyzer;

    /**
     * The size rule ({@code Batches#sizeReason}): why a batch of {@code rows} rows (or SQL texts) runs as sent, or
     * {@code null} when it is big enough to coalesce. Pure; the driver and {@code explain} both ask it.
     */
    public static Fallback sizeReason(int rows, int minRows, String what) {
        return Batches.sizeReason(rows, minRows, what);
    }

    /** Fallback plan of a batch whose table's catalog facts could not be read. */
    public static BatchPlan catalogLookupFailed(SQLException e) {
        return Batches.catalogLookupFailed(e);
    }

    /**
     * The catalog facts planning reads: the connection's cached {@link TableCatalog} in the driver, a synthetic or
     * read-only one in {@code explain}.
     */
    public interface Catalog {
        /** The facts of {@code table} as the SQL names it. */
        TableInfo lookup(String table) throws SQLException;

        /** The facts the anti-join form of ON CONFLICT needs about {@code table}. */
        ConflictFacts conflictFacts(TableInfo table) throws SQLException;
    }

    private final Connection delegate;
    private final FlushlessConfig config;
    private final FlushlessStats stats = FlushlessStats.forConnection();
    private final Subtransactions subtransactions = new Subtransactions();
    private final TableCatalog catalog;
    private final SqlAnalyzer analyzer;
    private final ServerFacts server;
    private final SchemaChanges schema; // catalog sharing and schema-change bookkeeping
    private final Batches batches; // the batch routes
    /** Group commit's lanes. */
    private final GroupLanes groupLanes = new GroupLanes(this);

    private final TransactionBuffering transactions;
    /** Follower reads and read-your-writes (YugabyteDB), {@code null} when nothing is kept. */
    private final FollowerReadSession followerReads;
    /** {@code flushless.replicas}: where this connection's reads run; {@code null} when off. */
    private final ReplicaSession replicas;

    /** Reads the server facts from {@code delegate} (nothing is sent) and, on YugabyteDB, sets up follower reads. */
    public Engine(Connection delegate, FlushlessConfig config) throws SQLException {
        this(delegate, config, null);
    }

    /**
     * As {@link #Engine(Connection, FlushlessConfig)}; with {@code flushless.replicas}, {@code replicaConnector} opens
     * the replica connections ({@code null}: replicas cannot be reached, which a configured replica list reports).
     */
    public Engine(Connection delegate, FlushlessConfig config, ReplicaConnector replicaConnector) throws SQLException {
        this.delegate = delegate;
        this.config = config;
        this.analyzer = analyzer(config);
        this.transactions = new TransactionBuffering(this, config.mode() == FlushlessConfig.Mode.TRANSACTION);
        this.server = ServerFacts.of(delegate, config.writePipelining());
        stats.attach(server.flushContext(delegate));
        this.catalog = SchemaChanges.catalogOf(delegate, config.catalogCacheSeconds());
        this.schema = new SchemaChanges(this, catalog, transactions);
        int minBatchRows = config.minBatchRows(server.yugabyte());
        this.followerReads = FollowerReadSession.forConnection(delegate, config, server, stats, analyzer);
        boolean pgjdbcRewritesInserts = Batches.pgjdbcRewritesInserts(delegate);
        if (followerReads != null && delegate.isReadOnly()) {
            followerReads.readOnlyChanged(true);
        }
        this.replicas =
                ReplicaReads.forConnection(config, server, replicaConnector, delegate, transactions, stats, analyzer);
        this.batches = new Batches(this, minBatchRows, pgjdbcRewritesInserts);
    }

    /** {@code flushless.replicas}: this connection's replica reads, or {@code null} when off. */
    public ReplicaSession replicas() {
        return replicas;
    }

    /** Whether PreparedStatements of queries record their parameters (to re-apply them on a replica). */
    public boolean recordsQueries() {
        return replicas != null;
    }

    /** Where a query runs: on a replica (the pgjdbc statement returned holds its result), or null: the primary. */
    public Statement replicaQuery(ReplicaSession.Query query) throws SQLException {
        return replicas == null ? null : replicas.query(query);
    }

    /** A statement starts: replica reads (ReplicaSession) and follower reads note writes and session changes. */
    void replicaStatementStarting(StatementDescription.Kind kind, String sql) throws SQLException {
        if (replicas != null) {
            replicas.statementStarting(kind, sql);
        }
        followerReadStatement(kind, sql);
    }

    /** A statement starts: see {@link FollowerReadSession#statementStarting} ({@code sql} {@code null}: several). */
    void followerReadStatement(StatementDescription.Kind kind, String sql) throws SQLException {
        if (followerReads != null) {
            followerReads.statementStarting(kind, sql, transactions.getAutoCommit());
        }
    }

    /** The application commits (or switches autocommit on): a write for follower reads until it returns. */
    public void commitStarting() throws SQLException {
        if (followerReads != null) {
            followerReads.commitStarting();
        }
    }

    /** A pool took the connection back ({@code clearWarnings}): a write it had running has ended. */
    public void idle() {
        if (replicas != null) {
            replicas.idle();
        }
        if (followerReads != null) {
            followerReads.idle();
        }
    }

    /** pgjdbc accepted {@code setReadOnly(readOnly)}: follower reads follow. */
    public void readOnlyChanged(boolean readOnly) throws SQLException {
        if (followerReads != null) {
            followerReads.readOnlyChanged(readOnly);
        }
    }

    // ---- the session ----

    @Override
    public Connection delegate() {
        return delegate;
    }

    @Override
    public FlushlessConfig config() {
        return config;
    }

    @Override
    public FlushlessStats stats() {
        return stats;
    }

    @Override
    public TableCatalog catalog() {
        return catalog;
    }

    @Override
    public Subtransactions subtransactions() {
        return subtransactions;
    }

    @Override
    public SqlAnalyzer analyzer() {
        return analyzer;
    }

    @Override
    public ServerFacts server() {
        return server;
    }

    /** {@code flushless.mode=transaction}'s buffer and flush points (inactive in the other modes). */
    public TransactionBuffering transactions() {
        return transactions;
    }

    /** Follower reads on YugabyteDB, or {@code null}. */
    public FollowerReads followerReads() {
        return followerReads == null ? null : followerReads.followerReads();
    }

    /** True when this connection rewrites anything ({@code flushless.mode} is not {@code off}). */
    public boolean rewriting() {
        return config.mode() != FlushlessConfig.Mode.OFF;
    }

    /** The driver-wide analysis cache, sized by the first connection's {@code flushless.parseCacheSize}. */
    private static SqlAnalyzer analyzer(FlushlessConfig config) {
        SqlAnalyzer analyzer = sharedAnalyzer;
        if (analyzer == null) {
            synchronized (Engine.class) {
                if (sharedAnalyzer == null) {
                    sharedAnalyzer = new SqlAnalyzer(config.parseCacheSize());
                }
                analyzer = sharedAnalyzer;
            }
        }
        return analyzer;
    }

    /** The driver-wide analysis cache, or {@code null} before the first connection (tests check its bound). */
    public static SqlAnalyzer sharedAnalyzer() {
        return sharedAnalyzer;
    }

    /** The session fingerprint for group commit, or {@code null} until read (and after a session change). */
    private volatile String sessionFingerprint;

    @Override
    public String fingerprint() throws SQLException {
        String fingerprint = sessionFingerprint;
        if (fingerprint == null) {
            try (Statement s = delegate.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT current_database() || '|' || current_user || '|' || session_user"
                                    + " || '|' || coalesce((SELECT string_agg(name || '=' || setting, ',' ORDER BY name)"
                                    + " FROM pg_catalog.pg_settings WHERE source NOT IN ('default', 'override', 'configuration file')"
                                    + " AND name <> 'application_name'), '')")) {
                rs.next();
                fingerprint = rs.getString(1);
            }
            sessionFingerprint = fingerprint;
        }
        return fingerprint;
    }

    @Override
    public void sessionChanged() {
        sessionFingerprint = null;
    }

    // ---- statements as sent ----

    /** Statement kinds after which the cached catalog facts may be stale (DDL, session changes, anything unknown). */
    public static boolean invalidatesCatalog(StatementDescription.Kind kind) {
        return SchemaChanges.invalidatesCatalog(kind);
    }

    /**
     * Before the application's {@code sql} of {@code kind} runs: the catalog facts and the session fingerprint after
     * DDL or a session change ({@code SchemaChanges#invalidateAfter}).
     */
    public void invalidateAfter(StatementDescription.Kind kind, String sql) {
        schema.invalidateAfter(kind, sql);
    }

    /** Ends a schema change of this connection once its transaction has ended ({@code SchemaChanges}). */
    void settleSchemaChange() {
        schema.settleSchemaChange();
    }

    /** The application's transaction ended (commit, rollback, close): a schema change of it is now visible, or gone. */
    public void transactionEnded() {
        schema.transactionEnded();
        subtransactions.transactionEnded(); // the driver's savepoints, open guards among them
        if (followerReads != null) {
            followerReads.transactionEnded();
        }
    }

    /**
     * Before the application's {@code sql} runs on pgjdbc as sent (route {@link Route#AS_SENT}): sends what must precede
     * it in {@code mode=transaction}, forgets catalog facts after DDL and counts it.
     */
    public void beforeAsSent(String sql, StatementDescription.Kind kind) throws SQLException {
        replicaStatementStarting(kind, sql);
        transactions.beforeServerStatement(sql);
        invalidateAfter(kind, sql);
        stats.executed(kind.isWrite());
    }

    /**
     * Whether a PreparedStatement of {@code kind} records its parameters: writes on a rewriting connection (for
     * batches and routes), and queries in {@code mode=transaction} (a locking read's key values tell which rows the
     * transaction holds locked, and a query that carries buffered writes re-applies them) and with replicas (to
     * re-apply them on a replica). Not a query prepared in a transaction that runs its writes as sent because the
     * server is too near ({@link TransactionBuffering#tooNearToBuffer}): nothing is buffered there, so its values
     * would be copied for nothing. (Reused in a later transaction that buffers, such a statement's locking reads
     * leave their rows unknown, and UPDATEs of them run as sent: fewer round trips saved, nothing else.)
     */
    public boolean recordsParameters(StatementDescription.Kind kind) {
        return kind.isWrite()
                ? rewriting()
                : kind == StatementDescription.Kind.SELECT
                        && (recordsQueries()
                                || config.mode() == FlushlessConfig.Mode.TRANSACTION
                                        && !transactions.tooNearToBuffer());
    }

    /**
     * In {@code mode=transaction}, runs the application's query with the writes it must send first in the same round
     * trip ({@link TransactionBuffering#query}); {@code null} when it runs as sent. Only for a single statement whose
     * parameters were all recorded ({@code parameters}, {@code null} for a plain Statement's text, which then must hold no
     * {@code ?}) on a statement whose result set is forward-only and read-only, fetched whole (no fetch size) and not
     * cut by a maximum field size: what a multi-statement execution gives the same way.
     *
     * @param statement the application's pgjdbc statement, whose settings the execution copies
     */
    public BatchExecutor.QueryOutcome queryRidingAlong(String sql, Bind[] parameters, Statement statement)
            throws SQLException {
        if (!transactions.hasBuffered() || SqlAnalyzer.leadingKind(sql) != StatementDescription.Kind.SELECT) {
            return null;
        }
        StatementDescription query = analyzer.describe(sql);
        if (!BufferRules.queryCarriesBuffer(query, parameters == null)
                || statement.getFetchSize() != 0
                || statement.getMaxFieldSize() != 0
                || statement.getResultSetType() != ResultSet.TYPE_FORWARD_ONLY
                || statement.getResultSetConcurrency() != ResultSet.CONCUR_READ_ONLY) {
            return null;
        }
        Bind[] bound;
        if (parameters == null) {
            bound = new Bind[0];
        } else {
            int count = query.parameterCount();
            if (parameters.length < count) {
                return null;
            }
            bound = Arrays.copyOf(parameters, count);
            for (Bind bind : bound) {
                if (bind == null) {
                    return null; // pgjdbc reports an unset parameter itself
                }
            }
        }
        BatchExecutor.QueryOutcome outcome = transactions.query(
                sql,
                query,
                bound,
                new BatchExecutor.QuerySettings(
                        statement.getResultSetType(),
                        statement.getResultSetConcurrency(),
                        statement.getResultSetHoldability(),
                        statement.getMaxRows(),
                        statement.getQueryTimeout()));
        if (outcome != null) {
            queried(query, bound, outcome.rows());
        }
        return outcome;
    }

    /** After a query ran as sent with {@code parameters}: see {@link TransactionBuffering#queried}. */
    public void queried(StatementDescription query, Bind[] parameters, ResultSet rows) throws SQLException {
        if (query.lockingRead() != null && transactions.active()) {
            transactions.queried(query, parameters, rows);
        }
    }

    /** After SQL that ran through a plain Statement's batch: DDL among it drops the cached catalog facts. */
    public void afterText(String sql) {
        invalidateAfter(SqlAnalyzer.leadingKind(sql), sql);
    }

    // ---- single executions ----

    /**
     * A route and, for {@link Route#BUFFER} and {@link Route#GROUP}, the INSERT's description and the table it writes.
     */
    public record Decision(Route route, StatementDescription statement, TableInfo table) {
        static final Decision AS_SENT = new Decision(Route.AS_SENT, null, null);
        static final Decision RIDE_ALONG = new Decision(Route.RIDE_ALONG, null, null);

        public boolean asSent() {
            return route == Route.AS_SENT;
        }
    }

    /**
     * How one execution of {@code sql} reaches the server. {@code row} holds its parameters as the facade recorded them
     * ({@code null} for a plain Statement's text, whose {@code ?} is an operator); {@code keysRequested} when the
     * application asked for generated keys. The write buffer takes a plain INSERT inside an explicit transaction; else
     * a write rides along with buffered writes; else a single-row autocommit INSERT is group-committed; else it runs as
     * sent.
     */
    public Decision route(String sql, StatementDescription.Kind kind, Bind[] row, boolean keysRequested)
            throws SQLException {
        settleSchemaChange();
        if (keysRequested) {
            return Decision.AS_SENT;
        }
        if (transactions.tooNearToBuffer()) {
            // nothing is buffered in this transaction, so nothing rides along either; no group commit inside one
            if (kind.isWrite()) {
                // the reason only: the execution itself is counted where it runs (beforeAsSent)
                stats.noted(FallbackReason.NEAR_SERVER.get(), 1);
            }
            return Decision.AS_SENT;
        }
        if (transactions.active()) {
            if (kind == StatementDescription.Kind.INSERT) {
                StatementDescription insert = analyzer.describe(sql);
                List<Bind[]> rows = List.<Bind[]>of(row == null ? new Bind[0] : row);
                if (BufferRules.whyNotBufferable(insert, rows, row == null) == null
                        && transactions.firstWriteAsSent(insert, 1)) {
                    // the reason only: the execution is counted where it runs (as sent, or riding along)
                    stats.noted(FallbackReason.FIRST_WRITE.get(), 1);
                } else {
                    TableInfo table = transactions.bufferableTable(insert, rows, row == null);
                    if (table != null) {
                        return new Decision(Route.BUFFER, insert, table);
                    }
                }
            }
            if (kind == StatementDescription.Kind.UPDATE && row != null) {
                StatementDescription update = analyzer.describe(sql);
                TableInfo table = transactions.bufferableUpdate(update, List.<Bind[]>of(row));
                if (table != null) {
                    return new Decision(Route.BUFFER, update, table);
                }
            }
            if (transactions.rideable(sql, row)) {
                return Decision.RIDE_ALONG;
            }
        }
        if (row != null
                && config.groupCommit()
                && kind == StatementDescription.Kind.INSERT
                && transactions.getAutoCommit()
                && delegate.getAutoCommit()) {
            StatementDescription insert = analyzer.describe(sql);
            TableInfo table = transactions.singleRowInsertTable(insert, row);
            if (table != null) {
                return new Decision(Route.GROUP, insert, table);
            }
        }
        return Decision.AS_SENT;
    }

    /**
     * Carries out {@code decision} (not {@link Route#AS_SENT}) for one execution and returns its update count.
     *
     * @param asSent the application's own statement, for group commit (a group of one, or a failed group)
     */
    public long run(Decision decision, String sql, Bind[] row, int queryTimeoutSeconds, Attempt.AsSent<Long> asSent)
            throws SQLException {
        replicaStatementStarting(SqlAnalyzer.leadingKind(sql), sql);
        switch (decision.route()) {
            case BUFFER:
                transactions.buffer(
                        decision.statement(), decision.table(), List.<Bind[]>of(kept(row)), row == null, false);
                return 1;
            case RIDE_ALONG:
                return transactions.rideAlong(sql, row == null ? null : kept(row), queryTimeoutSeconds, false);
            case GROUP:
                return groupLanes.run(decision, sql, row, queryTimeoutSeconds, asSent);
            default:
                throw new IllegalArgumentException("not carried out by the engine: " + decision.route());
        }
    }

    /** The engine's copy of an execution's parameters: the facade's array is reused by its next execution. */
    static Bind[] kept(Bind[] row) {
        return row == null ? new Bind[0] : row.clone();
    }

    // ---- PreparedStatement batches ----

    /** A PreparedStatement batch the facade recorded: its statement, and how it runs as the application sent it. */
    public interface RecordedBatch {
        String sql();

        StatementDescription description();

        /** Generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}. */
        String[] keyColumns();

        int queryTimeoutSeconds() throws SQLException;

        /** Hands {@code rows} to pgjdbc's own batch, as the application's calls would have, and runs it. */
        long[] runAsSent(List<Bind[]> rows) throws SQLException;
    }

    /** A batch's counts, and for a coalesced batch that returned rows (generated keys) the executor's outcome. */
    public record BatchResult(Route route, long[] counts, BatchExecutor.Outcome outcome) {}

    /** Runs the recorded {@code rows} of {@code batch}: buffered, ridden along, coalesced, or as sent. */
    public BatchResult batch(RecordedBatch batch, List<Bind[]> rows) throws SQLException {
        return batches.batch(batch, rows);
    }

    /**
     * How many rows of a PreparedStatement batch of {@code kind} the facade also hands to pgjdbc's own batch as the
     * application adds them, asked at the batch's first row ({@code Batches#asSentRowsAhead}: the rows a batch can
     * have and still run as sent by the size rule, {@link #sizeReason}).
     */
    public int asSentRowsAhead(StatementDescription.Kind kind, String sql) {
        return batches.asSentRowsAhead(kind, sql);
    }

    /**
     * Before a PreparedStatement batch the facade did not record (not rewriting, recording stopped, or a closed
     * statement) runs on pgjdbc: sends what must precede it in {@code mode=transaction} and counts its {@code rows} as
     * run as sent for {@code reason}.
     */
    public void beforeUnrecordedBatch(String sql, Fallback reason, int rows, boolean open) throws SQLException {
        batches.beforeUnrecordedBatch(sql, reason, rows, open);
    }

    /** The same for a plain Statement's batch whose texts went to pgjdbc's own batch. */
    public void beforeUnkeptTextBatch(int texts, boolean open) throws SQLException {
        batches.beforeUnkeptTextBatch(texts, open);
    }

    /**
     * The plan of a PreparedStatement batch of {@code rows} of {@code description} ({@code Batches#plan}), pure but for
     * what it reads from {@code catalog}. The driver and {@code explain} both plan with it.
     *
     * @param keyColumns generated-key columns the application asked for ({@code {"*"}} for all), or {@code null}
     * @param settings the connection's settings and pgjdbc session facts (native ON CONFLICT)
     */
    public static BatchPlan plan(
            StatementDescription description,
            List<Bind[]> rows,
            Catalog catalog,
            String[] keyColumns,
            BatchPlanner.Settings settings,
            boolean antiJoin)
            throws SQLException {
        return Batches.plan(description, rows, catalog, keyColumns, settings, antiJoin);
    }

    /**
     * The plan of a Statement batch of two or more SQL texts ({@code Batches#planTexts}). The driver and
     * {@code explain} both plan with it.
     */
    public static BatchPlan planTexts(
            List<StatementDescription> members,
            StatementBatchPlanner.TableLookup tables,
            BatchPlanner.Settings settings) {
        return Batches.planTexts(members, tables, settings);
    }

    /** The native ON CONFLICT plan of an anti-join batch (for {@link AntiJoinRace}). */
    BatchPlan nativePlan(RecordedBatch batch, StatementDescription description, List<Bind[]> rows, SessionFacts session)
            throws SQLException {
        return batches.nativePlan(batch, description, rows, session);
    }

    /** Counts a coalesced batch and logs it at DEBUG ({@code Batches#coalesced}). */
    void coalesced(BatchPlan plan, int rows, BatchExecutor.Outcome outcome, long nanos, String applicationSql) {
        batches.coalesced(plan, rows, outcome, nanos, applicationSql);
    }

    // ---- Statement batches (SQL texts) ----

    /** A plain Statement's batch of SQL texts: how it runs as the application sent it. */
    public interface TextBatch {
        /** Hands the texts to pgjdbc's own batch and runs it. */
        long[] runAsSent(List<String> texts) throws SQLException;

        int queryTimeoutSeconds() throws SQLException;
    }

    /**
     * Runs a plain Statement's batch of {@code texts}: buffered when every text is a bufferable INSERT
     * ({@code mode=transaction}), else as CTE chains ({@link StatementBatchPlanner}), else as sent.
     */
    public BatchResult textBatch(TextBatch batch, List<String> texts) throws SQLException {
        return batches.textBatch(batch, texts);
    }
}
