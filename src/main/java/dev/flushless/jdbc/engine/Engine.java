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
import dev.flushless.jdbc.group.GroupCommit;
import dev.flushless.jdbc.replica.ReplicaConnector;
import dev.flushless.jdbc.replica.ReplicaReads;
import dev.flushless.jdbc.replica.ReplicaSession;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.stats.FlushlessStats;
import dev.flushless.jdbc.yugabyte.FollowerReads;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import org.postgresql.util.PSQLState;

/**
 * The one place that decides how each execution of one Flushless connection reaches the server ({@link Route}), and
 * carries out every route but the plain call to pgjdbc: buffering, riding along, group commit and coalescing, with
 * their undo and re-run as sent ({@link Attempt}). It is also the connection's {@link Session}. The JDBC facades in
 * {@code wrapper/} translate calls into {@link #route} / {@link #run} and {@link #batch} / {@link #textBatch} and
 * call pgjdbc themselves only for {@link Route#AS_SENT}.
 */
public final class Engine implements Session {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");
    private static volatile SqlAnalyzer sharedAnalyzer;

    /**
     * The size rule. A batch of one row (or a Statement batch of one SQL text) runs as sent, since pgjdbc's own single
     * execution is already one statement ({@link FallbackReason#SINGLE_ROW}); so does a batch of fewer than
     * {@code minRows} rows or texts ({@link FallbackReason#SMALL_BATCH}), decided before any catalog read, so that a
     * small batch costs what pgjdbc's own pipelined batch costs. {@code minRows} is {@code FlushlessConfig.minBatchRows}; {@code 0} skips the second
     * part (writes buffered in {@code mode=transaction} ride ahead of the batch, which then saves their round trip).
     * Pure; the driver and {@code explain} both ask it.
     */
    public static Fallback sizeReason(int rows, int minRows, String what) {
        if (rows == 1) {
            return FallbackReason.SINGLE_ROW.get();
        }
        return rows >= minRows ? null : FallbackReason.SMALL_BATCH.because(rows, what, minRows);
    }

    /**
     * The smallest batch this connection coalesces now: {@code flushless.minBatchRows} on this server, or 0 when
     * writes buffered in {@code mode=transaction} would ride ahead of the batch.
     */
    private int minBatchRowsNow() {
        return transactions.hasBuffered() ? 0 : minBatchRows;
    }

    /** Fallback plan of a batch whose table's catalog facts could not be read. */
    public static BatchPlan catalogLookupFailed(SQLException e) {
        return BatchPlan.fallback(FallbackReason.CATALOG_LOOKUP_FAILED, e.getSQLState());
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
    private final TableCatalog catalog;
    private final SqlAnalyzer analyzer;
    private final ServerFacts server;
    /** {@code flushless.minBatchRows} on this server, read once: the size rule asks it for every batch. */
    private final int minBatchRows;

    private final TransactionBuffering transactions;
    /** {@code flushless.followerReads} on YugabyteDB, {@code null} when off or ignored. */
    private final FollowerReads followerReads;
    /** pgjdbc's own {@code reWriteBatchedInserts} is on for this connection (see {@link #leftToPgjdbcRewrite}). */
    private final boolean pgjdbcRewritesInserts;
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
        this.catalog = catalogOf(delegate, config.catalogCacheSeconds());
        this.minBatchRows = config.minBatchRows(server.yugabyte());
        this.followerReads = FollowerReads.forConnection(config.followerReadsStalenessMs(), server);
        this.pgjdbcRewritesInserts = pgjdbcRewritesInserts(delegate);
        if (followerReads != null && delegate.isReadOnly()) {
            followerReads.readOnlyChanged(delegate, true);
        }
        this.replicas =
                ReplicaReads.forConnection(config, server, replicaConnector, delegate, transactions, stats, analyzer);
    }

    /** {@code flushless.replicas}: this connection's replica reads, or {@code null} when off. */
    public ReplicaSession replicas() {
        return replicas;
    }

    /** Whether PreparedStatements of queries record their parameters (to re-apply them on a replica). */
    public boolean recordsQueries() {
        return replicas != null;
    }

    /**
     * Where a query runs: on a replica (the returned pgjdbc statement holds its result), or {@code null} for the
     * primary (the facade then runs it as sent).
     */
    public Statement replicaQuery(ReplicaSession.Query query) throws SQLException {
        return replicas == null ? null : replicas.query(query);
    }

    /** A statement starts on this connection: replica reads note writes and session changes (see ReplicaSession). */
    private void replicaStatementStarting(StatementDescription.Kind kind, String sql) throws SQLException {
        if (replicas != null) {
            replicas.statementStarting(kind, sql);
        }
    }

    /**
     * The catalog facts of a pgjdbc connection, shared with every connection of the driver that was opened with the
     * same pgjdbc URL (host, port, database, {@code currentSchema}, {@code options}) and user: their sessions start
     * alike and resolve table names alike ({@link TableCatalog#shared}). A connection of another driver keeps its
     * own.
     */
    private static TableCatalog catalogOf(Connection delegate, int maxAgeSeconds) {
        try {
            if (delegate.isWrapperFor(org.postgresql.PGConnection.class)) {
                java.sql.DatabaseMetaData meta = delegate.getMetaData(); // pgjdbc answers both without a round trip
                return TableCatalog.shared(meta.getURL() + '\u0000' + meta.getUserName(), maxAgeSeconds);
            }
        } catch (SQLException | RuntimeException e) {
            // fall through: facts of its own
        }
        return new TableCatalog();
    }

    private static boolean pgjdbcRewritesInserts(Connection delegate) {
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
        return followerReads;
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

    /**
     * Whether ON CONFLICT batches take the anti-join form: {@code flushless.onConflict=antijoin}, or {@code auto} on a
     * YugabyteDB release that does not batch ON CONFLICT itself (asked once, on YugabyteDB only; {@link
     * ServerFacts#antiJoin}, which explain asks too).
     */
    boolean onConflictAntiJoin() {
        return server.antiJoin(config.onConflict(), delegate);
    }

    // ---- statements as sent ----

    /** Statement kinds after which the cached catalog facts may be stale (DDL, session changes, anything unknown). */
    public static boolean invalidatesCatalog(StatementDescription.Kind kind) {
        return kind == StatementDescription.Kind.DDL
                || kind == StatementDescription.Kind.SESSION
                || kind == StatementDescription.Kind.OTHER;
    }

    /**
     * DDL words after which a table's facts (columns, triggers, rules, keys, ...) may differ: {@code CREATE},
     * {@code ALTER}, {@code DROP}, {@code SECURITY LABEL}, {@code IMPORT}; statements of unknown kind ({@code DO},
     * {@code CALL}, ...) may run any of them. {@code TRUNCATE}, {@code LOCK}, {@code VACUUM}, {@code GRANT} and the
     * like change no fact the driver reads.
     */
    static boolean mayChangeSchema(StatementDescription.Kind kind, String sql) {
        if (kind == StatementDescription.Kind.OTHER) {
            return true;
        }
        if (kind != StatementDescription.Kind.DDL) {
            return false;
        }
        switch (SqlAnalyzer.leadingWord(sql)) {
            case "create":
            case "alter":
            case "drop":
            case "security":
            case "import":
                return true;
            default:
                return false;
        }
    }

    /**
     * Session statements after which this connection resolves table names otherwise than a fresh one: a
     * {@code search_path} or role change, {@code RESET}/{@code DISCARD} (which may undo one), and DDL that creates a
     * temporary object (a temporary table hides a table of the same name for this session only).
     */
    static boolean leavesSharedNames(StatementDescription.Kind kind, String sql) {
        String lower = sql.toLowerCase(java.util.Locale.ROOT);
        if (kind == StatementDescription.Kind.SESSION) {
            return !SqlAnalyzer.leadingWord(sql).equals("set")
                    || lower.contains("search_path")
                    || lower.contains("role")
                    || lower.contains("authorization")
                    || lower.contains("schema");
        }
        return kind == StatementDescription.Kind.DDL && lower.contains("temp");
    }

    /** A schema change of this connection whose transaction has not ended yet (see {@link #settleSchemaChange}). */
    private boolean schemaChanging;

    /**
     * Before the application's {@code sql} of {@code kind} runs: after DDL or a statement that may run DDL, the catalog
     * facts shared with other connections are dropped now and again once the statement's transaction ended (what other
     * connections read meanwhile may predate the change), and this connection keeps what it reads to itself until then;
     * after a session change, the session fingerprint is read again, and a connection whose table names now resolve
     * otherwise keeps facts of its own from now on.
     */
    public void invalidateAfter(StatementDescription.Kind kind, String sql) {
        settleSchemaChange();
        if (!invalidatesCatalog(kind)) {
            return;
        }
        sessionChanged();
        if (leavesSharedNames(kind, sql)) {
            catalog.detach();
        }
        if (mayChangeSchema(kind, sql)) {
            catalog.clear();
            catalog.isolate();
            schemaChanging = true;
        }
    }

    /**
     * Ends a schema change once its transaction has ended: in autocommit at the next call after the statement, else at
     * {@link #transactionEnded}.
     */
    private void settleSchemaChange() {
        if (schemaChanging) {
            boolean autoCommit;
            try {
                autoCommit = transactions.getAutoCommit();
            } catch (SQLException e) {
                autoCommit = true; // a closed connection: its change, if any, has ended
            }
            if (autoCommit) {
                transactionEnded();
            }
        }
    }

    /** The application's transaction ended (commit, rollback, close): a schema change of it is now visible, or gone. */
    public void transactionEnded() {
        if (schemaChanging) {
            schemaChanging = false;
            catalog.rejoin();
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
     * transaction holds locked) and with replicas (to re-apply them on a replica).
     */
    public boolean recordsParameters(StatementDescription.Kind kind) {
        return kind.isWrite()
                ? rewriting()
                : kind == StatementDescription.Kind.SELECT
                        && (recordsQueries() || config.mode() == FlushlessConfig.Mode.TRANSACTION);
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
        if (transactions.active()) {
            if (kind == StatementDescription.Kind.INSERT) {
                StatementDescription insert = analyzer.describe(sql);
                List<Bind[]> rows = List.<Bind[]>of(row == null ? new Bind[0] : row);
                if (BufferRules.whyNotBufferable(insert, rows, row == null) == null
                        && transactions.firstWriteAsSent(insert, 1)) {
                    stats.fallback(FallbackReason.FIRST_WRITE.get(), 1);
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
                return GroupCommit.run(
                        groupCommitLane(sql),
                        new GroupCaller(decision, row, queryTimeoutSeconds, asSent),
                        config.groupCommitMaxRows(),
                        GroupCommit.nanos(config.groupCommitMaxDelayMicros()));
            default:
                throw new IllegalArgumentException("not carried out by the engine: " + decision.route());
        }
    }

    /** The engine's copy of an execution's parameters: the facade's array is reused by its next execution. */
    private static Bind[] kept(Bind[] row) {
        return row == null ? new Bind[0] : row.clone();
    }

    /** A group-committed INSERT of this connection: its own statement, and its row only if a group takes it. */
    private final class GroupCaller implements GroupCommit.Caller {
        private final Decision decision;
        private final Bind[] row;
        private final int queryTimeoutSeconds;
        private final Attempt.AsSent<Long> asSent;

        GroupCaller(Decision decision, Bind[] row, int queryTimeoutSeconds, Attempt.AsSent<Long> asSent) {
            this.decision = decision;
            this.row = row;
            this.queryTimeoutSeconds = queryTimeoutSeconds;
            this.asSent = asSent;
        }

        @Override
        public long runOwn() throws SQLException {
            stats.executed(true);
            return asSent.run();
        }

        @Override
        public void waitUnpaid() {
            stats.noted(FallbackReason.GROUP_WAIT_UNPAID.get(), 1);
        }

        @Override
        public GroupCommit.Member member() {
            return new GroupCommit.Member(
                    Engine.this, decision.statement(), decision.table(), kept(row), queryTimeoutSeconds);
        }
    }

    /** Group-commit lanes by SQL text for one session fingerprint (replaced when the fingerprint changes). */
    private record Lanes(String fingerprint, ConcurrentHashMap<String, GroupCommit.Lane> bySql) {}

    private volatile Lanes lanes;

    /**
     * The group-commit lane of {@code sql} under this connection's session fingerprint, kept per connection so that an
     * execution does not build and hash the fingerprint-and-SQL key (a few hundred characters) again.
     */
    private GroupCommit.Lane groupCommitLane(String sql) throws SQLException {
        String fingerprint = fingerprint();
        Lanes current = lanes;
        if (current == null
                || current.fingerprint() != fingerprint
                || current.bySql().size() >= 256) {
            current = new Lanes(fingerprint, new ConcurrentHashMap<>());
            lanes = current;
        }
        GroupCommit.Lane lane = current.bySql().get(sql);
        if (lane == null) {
            lane = GroupCommit.lane(fingerprint + '\u0000' + sql);
            current.bySql().put(sql, lane);
        }
        return lane;
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

    /**
     * Runs the recorded {@code rows} of {@code batch}: buffered, ridden along, coalesced, or as sent.
     */
    public BatchResult batch(RecordedBatch batch, List<Bind[]> rows) throws SQLException {
        settleSchemaChange();
        String sql = batch.sql();
        StatementDescription.Kind kind = SqlAnalyzer.leadingKind(sql);
        replicaStatementStarting(kind, sql);
        boolean keys = batch.keyColumns() != null;
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
        SessionFacts session = sessionFacts();
        BatchPlan plan = plan(
                batch,
                description,
                rows,
                session,
                description.onConflict() != StatementDescription.OnConflict.NONE && onConflictAntiJoin());
        if (plan.isFallback()) {
            stats.fallback(plan.fallback(), rows.size());
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
     * from every recorded row, and a batch that grows to the threshold is planned from them.
     */
    public int asSentRowsAhead(StatementDescription.Kind kind) {
        if (transactions.active() && (kind == StatementDescription.Kind.INSERT || transactions.hasBuffered())) {
            return 0;
        }
        return minBatchRows - 1;
    }

    /**
     * Before a PreparedStatement batch the facade did not record (not rewriting, recording stopped, or a closed
     * statement) runs on pgjdbc: sends what must precede it in {@code mode=transaction} and counts its {@code rows} as
     * run as sent for {@code reason}.
     */
    public void beforeUnrecordedBatch(String sql, Fallback reason, int rows, boolean open) throws SQLException {
        if (rows > 0 && open) {
            transactions.beforeServerStatement(sql);
        }
        stats.fallback(reason, rows);
    }

    /** The same for a plain Statement's batch whose texts went to pgjdbc's own batch. */
    public void beforeUnkeptTextBatch(int texts, boolean open) throws SQLException {
        if (texts > 0 && open) {
            transactions.beforeConnectionCall("a Statement batch", true);
        }
        stats.fallback(null, texts);
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
                BatchPlanner.Settings.of(config, session),
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
    public static BatchPlan plan(
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
    public static BatchPlan planTexts(
            List<StatementDescription> members,
            StatementBatchPlanner.TableLookup tables,
            BatchPlanner.Settings settings) {
        try {
            return StatementBatchPlanner.plan(members, tables, settings);
        } catch (SQLException e) {
            return catalogLookupFailed(e);
        }
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
                this,
                () -> {
                    long start = System.nanoTime();
                    BatchExecutor.Outcome outcome;
                    try {
                        outcome = BatchExecutor.run(
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
                        return new AntiJoinRace(this, batch, description, rows, session).afterUniqueViolation(undone);
                    }
                    return Attempt.reRunAsSent(this, rows.size(), () -> asSent(batch, rows))
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
        settleSchemaChange();
        if (replicas != null) {
            for (String text : texts) {
                StatementDescription.Kind kind = SqlAnalyzer.leadingKind(text);
                if (!kind.isWrite() || text == texts.get(texts.size() - 1)) {
                    replicas.statementStarting(kind, text); // a session change among them, or the batch as a write
                    break;
                }
            }
        }
        if (transactions.active()) {
            texts.forEach(transactions::noteText);
            long[] counts = bufferTexts(texts);
            if (counts != null) {
                return new BatchResult(Route.BUFFER, counts, null);
            }
            transactions.beforeConnectionCall("a Statement batch", true);
        }
        Fallback small = sizeReason(texts.size(), minBatchRows, "SQL texts");
        if (small != null) {
            stats.fallback(small, texts.size());
            try {
                return new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null);
            } finally {
                afterText(texts.get(0));
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
                    BatchPlanner.Settings.of(config, sessionFacts()));
            if (plan.isFallback()) {
                stats.fallback(plan.fallback(), texts.size());
                return new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null);
            }
            BatchPlan chained = plan;
            int timeout = batch.queryTimeoutSeconds();
            return Attempt.run(
                    this,
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
                            this, texts.size(), () -> new BatchResult(Route.AS_SENT, batch.runAsSent(texts), null)));
        } finally {
            for (String text : texts) {
                afterText(text);
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
