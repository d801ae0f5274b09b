package dev.flushless.jdbc.replica;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.buffer.TransactionBuffering;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Replica reads of one Flushless connection ({@code flushless.replicas}): decides where each query runs
 * ({@link ReplicaDecision}), keeps this connection's own connection to the nearest replica, runs routed queries there
 * (after the {@link WaitCheck} in the same round trip), moves a read-only transaction to the replica as a whole, and
 * carries commit positions into the cluster's causal floor (a commit's position is read in the commit's own round
 * trip). The JDBC facades only ask {@link #query} which pgjdbc statement holds a query's result; everything else
 * reaches this class through the engine and the connection.
 */
public final class ReplicaSession {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");

    /** The commit of a primary transaction, with its position read in the same round trip (after the COMMIT). */
    static final String COMMIT_SQL = "COMMIT; SELECT CAST(pg_catalog.pg_current_wal_insert_lsn() AS text)";

    private final ReplicaCluster cluster;
    private final Connection primary;
    private final TransactionBuffering transactions;
    private final FlushlessStats stats;
    private final SqlAnalyzer analyzer;
    private final boolean readYourWrites;
    private final int maxWaitMs;

    private Connection replica;
    private ReplicaCluster.Endpoint replicaEndpoint;
    /** The read-only transaction now open runs on {@link #replica}. */
    private boolean transactionOnReplica;
    /** This connection changed session state a replica session would not have: it routes nothing any more. */
    private boolean sessionChanged;
    /** An autocommit statement of this connection that may write is running (or ran, and nothing came since). */
    private boolean writeInFlight;

    private int isolation = Connection.TRANSACTION_READ_COMMITTED;
    private int replicaIsolation = Connection.TRANSACTION_READ_COMMITTED;
    private String schema;
    private String replicaSchema;

    public ReplicaSession(
            ReplicaCluster cluster,
            Connection primary,
            TransactionBuffering transactions,
            FlushlessConfig config,
            FlushlessStats stats,
            SqlAnalyzer analyzer) {
        this.cluster = cluster;
        this.primary = primary;
        this.transactions = transactions;
        this.stats = stats;
        this.analyzer = analyzer;
        this.readYourWrites = config.readYourWrites();
        this.maxWaitMs = config.replicaMaxWaitMs();
    }

    /** The cluster this connection reads from. */
    public ReplicaCluster cluster() {
        return cluster;
    }

    // ---- statement boundaries ----

    /**
     * An execution of a statement of {@code kind} starts on this connection (every execution passes here, from the
     * engine): the previous one ended, so a write it made has ended too; an autocommit statement that may write marks
     * the cluster's position pending until it ends and a probe read the primary's position; a statement that changes
     * session state stops routing for good.
     */
    public void statementStarting(StatementDescription.Kind kind, String sql) throws SQLException {
        endWrite();
        if (kind == StatementDescription.Kind.DDL
                || kind == StatementDescription.Kind.SESSION
                || kind == StatementDescription.Kind.OTHER) {
            sessionChanged = true;
        }
        if (!transactions.getAutoCommit()) {
            return;
        }
        if (kind == StatementDescription.Kind.SELECT && sql != null && sql.contains("set_config")) {
            sessionChanged = true;
        }
        if (kind != StatementDescription.Kind.SELECT || sql == null || selectMayWrite(sql)) {
            writeInFlight = true;
            cluster.writeStarted();
        }
    }

    /**
     * Whether a query-like statement may write: a data-modifying WITH, {@code SELECT ... INTO}, a sequence change.
     * A function that writes is not recognised (documented: run such writes in a transaction, whose commit carries its
     * position).
     */
    private boolean selectMayWrite(String sql) {
        StatementDescription description = analyzer.describe(sql);
        if (description.provenReadOnlyForReplica()) {
            return false;
        }
        String lower = sql.toLowerCase(java.util.Locale.ROOT);
        for (String word : new String[] {"insert", "update", "delete", "merge", "into", "nextval", "setval"}) {
            if (lower.contains(word)) {
                return true;
            }
        }
        return false;
    }

    /** The connection is used again, or ends: a write it had running has ended. */
    private void endWrite() {
        if (writeInFlight) {
            writeInFlight = false;
            cluster.writeEnded();
        }
    }

    // ---- queries ----

    /** A query as the facade has it: its text, its parameters, and the application's statement for its settings. */
    public record Query(String sql, Bind[] parameters, boolean prepared, boolean parametersKept, Statement settings) {}

    /**
     * Runs {@code query} on a replica when {@link ReplicaDecision} says so and returns the replica's statement, whose
     * current result is the query's; {@code null} when it runs on the primary (the facade then calls pgjdbc as usual).
     */
    public Statement query(Query query) throws SQLException {
        StatementDescription.Kind kind = SqlAnalyzer.leadingKind(query.sql());
        boolean autoCommit = transactions.getAutoCommit();
        if (kind != StatementDescription.Kind.SELECT) {
            return null; // not a read: the primary (a write there fails as read-only, as it would under pgjdbc)
        }
        boolean updatable = query.settings().getResultSetConcurrency() == ResultSet.CONCUR_UPDATABLE;
        ReplicaDecision.Outcome outcome = ReplicaDecision.decide(new ReplicaDecision.Facts(
                true,
                autoCommit,
                primary.isReadOnly(),
                transactionOnReplica,
                !autoCommit && transactionOnPrimary(),
                analyzer.describe(query.sql()).provenReadOnlyForReplica(),
                sessionChanged,
                isolation == Connection.TRANSACTION_SERIALIZABLE,
                !updatable && query.parametersKept(),
                readYourWrites && cluster.positionPending(),
                replica != null || cluster.nearest() != null));
        if (!outcome.replica()) {
            if (outcome.reason() != null) {
                stats.primaryRead(outcome.reason().code());
            }
            return null;
        }
        if (transactionOnReplica) {
            return runInTransaction(query);
        }
        return runFirst(query, autoCommit);
    }

    /** True when the application's transaction already sent something to the primary (or buffered writes there). */
    private boolean transactionOnPrimary() {
        if (transactions.hasBuffered()) {
            return true;
        }
        try {
            org.postgresql.core.TransactionState state =
                    primary.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState();
            return state != org.postgresql.core.TransactionState.IDLE;
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    /** A later query of a read-only transaction already on the replica: runs there, errors as the replica gives them. */
    private Statement runInTransaction(Query query) throws SQLException {
        endWrite();
        Statement s = ReplicaStatements.prepare(replica, query, false);
        try {
            ReplicaStatements.execute(s, query);
        } catch (SQLException e) {
            s.close();
            if (isConnectionLoss(e)) {
                replicaLost(e);
            }
            throw e;
        }
        stats.executed(false);
        stats.replicaRead(0);
        return s;
    }

    /**
     * An autocommit query, or the first of a read-only transaction: opens the replica transaction (READ ONLY, the
     * connection's isolation), runs the wait check and the query in one round trip, and hands the query's result over
     * when the replica is still a standby and has replayed the floor; otherwise ({@code null}) the query runs on the
     * primary, as does the rest of its transaction.
     */
    private Statement runFirst(Query query, boolean autoCommit) throws SQLException {
        endWrite();
        Connection c = replicaConnection();
        if (c == null) {
            stats.primaryRead(PrimaryReason.NO_REPLICA.code());
            return null;
        }
        long floor = readYourWrites ? cluster.floor() : 0;
        Statement s = null;
        try {
            mirrorSession(c);
            boolean separateCheck = !autoCommit && isolation != Connection.TRANSACTION_READ_COMMITTED
                    || !query.prepared() && query.sql().indexOf('?') >= 0;
            WaitCheck.Result check = null;
            if (separateCheck) {
                c.setAutoCommit(true);
                check = WaitCheck.Result.run(c, floor, maxWaitMs);
            }
            if (!autoCommit) {
                c.setReadOnly(true);
                c.setAutoCommit(false);
                transactionOnReplica = true;
            } else {
                c.setAutoCommit(true);
            }
            if (check == null) {
                PreparedStatement withCheck = (PreparedStatement) ReplicaStatements.prepare(replica, query, true);
                s = withCheck;
                WaitCheck.bind(withCheck, floor, maxWaitMs);
                withCheck.execute();
                try (ResultSet rs = s.getResultSet()) {
                    check = WaitCheck.Result.read(rs);
                }
                s.getMoreResults();
            } else if (check.caughtUp(floor)) {
                s = ReplicaStatements.prepare(replica, query, false);
                ReplicaStatements.execute(s, query);
            }
            if (!check.caughtUp(floor)) {
                if (s != null) {
                    s.close();
                }
                abandon(check);
                return null;
            }
            if (readYourWrites) {
                cluster.raise(check.replayed()); // monotonic reads: later reads see at least this
            }
            stats.executed(false);
            stats.replicaRead(check.waitedNanos());
            return s;
        } catch (SQLException e) {
            if (s != null) {
                try {
                    s.close();
                } catch (SQLException ignored) {
                    // the replica's error is the one that matters
                }
            }
            // nothing of the query reached the application: it runs again on the primary, whatever the error was (an
            // error of the query itself then comes from the primary, exactly as bare pgjdbc gives it)
            if (isConnectionLoss(e) || isReplicaConflict(e)) {
                replicaLost(e);
            } else {
                endReplicaTransaction(false);
            }
            stats.primaryRead(PrimaryReason.REPLICA_FAILED.code());
            return null;
        }
    }

    /** The replica did not catch up (or left recovery): the read goes to the primary, the replica transaction ends. */
    private void abandon(WaitCheck.Result check) throws SQLException {
        if (!check.inRecovery()) {
            replicaEndpoint.skip("promoted or not in recovery");
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Flushless: replica " + replicaEndpoint.address() + " is no longer in recovery (promoted?); it is"
                            + " skipped.");
            closeReplica();
            stats.primaryRead(PrimaryReason.NO_REPLICA.code());
            transactionOnReplica = false;
            return;
        }
        endReplicaTransaction(false);
        stats.primaryRead(PrimaryReason.WAIT_TIMEOUT.code());
    }

    /** This connection's replica connection, opened to the nearest replica that is up; {@code null} when none is. */
    private Connection replicaConnection() {
        if (replica != null) {
            try {
                if (!replica.isClosed() && replicaEndpoint.usable(System.nanoTime())) {
                    return replica;
                }
            } catch (SQLException e) {
                // reopened below
            }
            closeReplica();
        }
        for (int tries = 0; tries < cluster.endpoints().size(); tries++) {
            ReplicaCluster.Endpoint endpoint = cluster.nearest();
            if (endpoint == null) {
                return null;
            }
            Connection c = null;
            try {
                c = cluster.connector().openReplica(endpoint.address());
                cluster.check(endpoint, c);
                replica = c;
                replicaEndpoint = endpoint;
                replicaIsolation = Connection.TRANSACTION_READ_COMMITTED;
                replicaSchema = null;
                return c;
            } catch (SQLException e) {
                endpoint.skip(e.getMessage());
                LOG.log(
                        System.Logger.Level.WARNING,
                        "Flushless: replica " + endpoint.address() + " is skipped for now: " + e.getMessage());
                if (c != null) {
                    try {
                        c.close();
                    } catch (SQLException ignored) {
                        // skipped anyway
                    }
                }
            }
        }
        return null;
    }

    /** Gives the replica session the isolation level and schema the application set on this connection. */
    private void mirrorSession(Connection c) throws SQLException {
        if (replicaIsolation != isolation) {
            c.setTransactionIsolation(isolation);
            replicaIsolation = isolation;
        }
        if (schema != null && !schema.equals(replicaSchema)) {
            c.setSchema(schema);
            replicaSchema = schema;
        }
    }

    private static boolean isConnectionLoss(SQLException e) {
        String state = e.getSQLState();
        return state == null || state.startsWith("08") || state.startsWith("57P");
    }

    /** A recovery conflict (a standby cancels a query whose snapshot replay needs gone): 40001 on a standby. */
    private static boolean isReplicaConflict(SQLException e) {
        return org.postgresql.util.PSQLState.SERIALIZATION_FAILURE.getState().equals(e.getSQLState())
                || org.postgresql.util.PSQLState.DEADLOCK_DETECTED.getState().equals(e.getSQLState());
    }

    private void replicaLost(SQLException e) {
        if (replicaEndpoint != null && isConnectionLoss(e)) {
            replicaEndpoint.skip(e.getMessage());
        }
        transactionOnReplica = false;
        closeReplica();
    }

    private void closeReplica() {
        Connection c = replica;
        replica = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // gone
            }
        }
    }

    /** Ends the replica transaction (commit or rollback), if one is open. */
    private void endReplicaTransaction(boolean commit) throws SQLException {
        if (!transactionOnReplica) {
            return;
        }
        transactionOnReplica = false;
        if (replica == null) {
            return;
        }
        try {
            if (commit) {
                replica.commit();
            } else {
                replica.rollback();
            }
            stats.transactionControl();
        } catch (SQLException e) {
            if (isConnectionLoss(e)) {
                replicaLost(e);
                if (commit) {
                    throw e;
                }
            } else {
                throw e;
            }
        }
    }

    // ---- the end of the application's transactions ----

    /**
     * {@code commit()}: a read-only transaction on the replica commits there; a primary transaction with a server
     * transaction open commits with its position read in the same round trip ({@link #COMMIT_SQL}), and the cluster's
     * floor rises to it; a commit that cannot read it (writes still buffered in {@code mode=transaction}, pgjdbc's
     * autosave) marks the position pending until a background probe reads the primary's.
     */
    public void commit() throws SQLException {
        endWrite();
        if (transactionOnReplica) {
            endReplicaTransaction(true);
        }
        boolean buffered = transactions.hasBuffered();
        boolean open = !transactions.getAutoCommit() && serverTransactionOpen();
        if (open && !buffered && autosaveNever()) {
            long position = commitReadingPosition();
            cluster.raise(position);
            transactions.commit(); // pgjdbc's transaction has ended: nothing is sent
            return;
        }
        transactions.commit();
        if (buffered || open) {
            cluster.unknownCommit();
        }
    }

    /** Sends COMMIT and reads the position after it, in one round trip. */
    private long commitReadingPosition() throws SQLException {
        try (Statement s = primary.createStatement()) {
            s.execute(COMMIT_SQL);
            stats.transactionControl();
            s.getMoreResults();
            try (ResultSet rs = s.getResultSet()) {
                rs.next();
                return Lsn.parse(rs.getString(1));
            }
        }
    }

    private boolean serverTransactionOpen() {
        try {
            return primary.unwrap(org.postgresql.core.BaseConnection.class).getTransactionState()
                    == org.postgresql.core.TransactionState.OPEN;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    private boolean autosaveNever() {
        try {
            return primary.unwrap(org.postgresql.PGConnection.class).getAutosave()
                    == org.postgresql.jdbc.AutoSave.NEVER;
        } catch (SQLException | RuntimeException e) {
            return false;
        }
    }

    /** {@code rollback()}: the replica transaction rolls back too. */
    public void rollback() throws SQLException {
        endWrite();
        try {
            endReplicaTransaction(false);
        } finally {
            transactions.rollback();
        }
    }

    /** {@code setAutoCommit(value)}: switching it on commits an open transaction, with its position. */
    public void setAutoCommit(boolean value) throws SQLException {
        endWrite();
        if (value && !transactions.getAutoCommit()) {
            commit();
        }
        transactions.setAutoCommit(value);
    }

    /** The application set the isolation level (mirrored on the replica at its next transaction). */
    public void isolationChanged(int level) {
        isolation = level;
    }

    /** The application set the schema (mirrored on the replica before its next read). */
    public void schemaChanged(String newSchema) {
        schema = newSchema;
    }

    /** A connection call that changes session state a replica cannot mirror ({@code setCatalog}). */
    public void sessionChanged() {
        sessionChanged = true;
    }

    /** Before a connection call that ends the connection's use for now (close, {@code clearWarnings} by a pool). */
    public void idle() {
        endWrite();
    }

    /** {@code close()}: the replica connection closes too. */
    public void close() {
        endWrite();
        transactionOnReplica = false;
        closeReplica();
    }

    // ---- tokens ----

    /**
     * A token naming the newest position this driver knows ({@code pg:X/Y}): another process that passes it to
     * {@link #awaitCausalToken} reads at least that. When a write's position is still pending, it is read from the
     * primary first (one round trip, on this call only).
     */
    public String causalToken() throws SQLException {
        endWrite();
        if (cluster.positionPending()) {
            try (Statement s = primary.createStatement();
                    ResultSet rs = s.executeQuery("SELECT CAST(pg_catalog.pg_current_wal_insert_lsn() AS text)")) {
                rs.next();
                cluster.raise(Lsn.parse(rs.getString(1)));
            }
        }
        return "pg:" + Lsn.format(cluster.floor());
    }

    /** Raises the floor to the token's position: later replica reads of this driver wait for it. */
    public void awaitCausalToken(String token) throws SQLException {
        cluster.raise(parseToken(token));
    }

    /** The position of a {@code pg:X/Y} token. */
    public static long parseToken(String token) throws SQLException {
        if (token == null || !token.startsWith("pg:")) {
            throw Errors.invalidSetting("Flushless: '" + token + "' is not a causal token of a PostgreSQL primary"
                    + " (pg:X/Y, as causalToken() returns it).");
        }
        try {
            return Lsn.parse(token.substring(3));
        } catch (IllegalArgumentException e) {
            throw Errors.invalidSetting("Flushless: '" + token + "' is not a causal token: " + e.getMessage());
        }
    }
}
