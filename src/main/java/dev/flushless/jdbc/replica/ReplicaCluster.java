package dev.flushless.jdbc.replica;

import dev.flushless.jdbc.Errors;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A primary and its replicas, shared JVM-wide by every connection with the same {@link ReplicaConnector#clusterKey()}:
 * the replicas' health and distance, and the causal floor: the newest commit position this driver knows (its own
 * commits, the positions replica reads observed, tokens it was given), which every read-your-writes replica read
 * waits for.
 */
public final class ReplicaCluster {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");
    private static final Map<String, ReplicaCluster> CLUSTERS = new ConcurrentHashMap<>();

    /** How long a replica that failed or lagged is skipped before a connection tries it again. */
    static final long RETRY_NANOS = 2_000_000_000L;

    /** The check a connection runs when it opens a replica (and the first connection, on the primary). */
    static final String IDENTITY_SQL = "SELECT pg_catalog.pg_is_in_recovery(),"
            + " (SELECT system_identifier FROM pg_catalog.pg_control_system())::text";

    /** One replica: its address, distance, and until when it is skipped. */
    public static final class Endpoint {
        final HostPort address;
        volatile long rttNanos = Long.MAX_VALUE;
        volatile long skippedUntil;
        volatile String skippedBecause;

        Endpoint(HostPort address) {
            this.address = address;
        }

        public HostPort address() {
            return address;
        }

        boolean usable(long now) {
            return now - skippedUntil >= 0;
        }

        void skip(String because) {
            skippedBecause = because;
            skippedUntil = System.nanoTime() + RETRY_NANOS;
        }

        void measured(long nanos) {
            long before = rttNanos;
            rttNanos = before == Long.MAX_VALUE ? nanos : (before * 3 + nanos) / 4;
            skippedBecause = null;
        }

        @Override
        public String toString() {
            return address + (skippedBecause == null ? "" : " (skipped: " + skippedBecause + ")");
        }
    }

    private final ReplicaConnector connector;
    private final List<Endpoint> endpoints = new ArrayList<>();
    private final AtomicBoolean validated = new AtomicBoolean();
    /** The primary's {@code system_identifier}, or {@code null} when it could not be read. */
    private volatile String systemIdentifier;

    // ---- the causal floor ----
    private final AtomicLong floor = new AtomicLong();
    /** Autocommit writes executing now (the position of their commit is not known until they end and a probe ran). */
    private final AtomicInteger writesInFlight = new AtomicInteger();
    /** Writes (and fused commits) that ended without a known position, counted; the probe covers them. */
    private final AtomicLong unknownEnded = new AtomicLong();

    private volatile long covered;
    private final AtomicBoolean probeQueued = new AtomicBoolean();
    private volatile ExecutorService prober;
    private Connection probeConnection; // only the prober thread uses it

    private ReplicaCluster(ReplicaConnector connector, List<HostPort> replicas) {
        this.connector = connector;
        for (HostPort replica : replicas) {
            endpoints.add(new Endpoint(replica));
        }
    }

    /**
     * The cluster of a connection whose primary connection is {@code primary}. The first connection of a cluster checks
     * every replica: unreachable ones are skipped with a warning, one that is not a standby of this primary fails the
     * connection with SQLState 22023.
     */
    public static ReplicaCluster of(ReplicaConnector connector, List<HostPort> replicas, Connection primary)
            throws SQLException {
        ReplicaCluster cluster =
                CLUSTERS.computeIfAbsent(connector.clusterKey(), k -> new ReplicaCluster(connector, replicas));
        cluster.validateOnce(primary);
        return cluster;
    }

    private void validateOnce(Connection primary) throws SQLException {
        if (validated.get()) {
            return;
        }
        synchronized (this) {
            if (validated.get()) {
                return;
            }
            systemIdentifier = primaryIdentifier(primary);
            for (Endpoint endpoint : endpoints) {
                Connection c;
                try {
                    c = connector.openReplica(endpoint.address);
                } catch (SQLException e) {
                    endpoint.skip("unreachable: " + e.getMessage());
                    LOG.log(
                            System.Logger.Level.WARNING,
                            "Flushless: replica " + endpoint.address + " of flushless.replicas cannot be reached ("
                                    + e.getMessage() + "); it is skipped, reads run on the other replicas or the"
                                    + " primary, and it is tried again later.");
                    continue;
                }
                try (c) {
                    check(endpoint, c);
                }
            }
            validated.set(true);
        }
    }

    /** The primary's system identifier, read once per cluster (no table, no lock); {@code null} if not allowed. */
    private static String primaryIdentifier(Connection primary) throws SQLException {
        boolean autoCommit = primary.getAutoCommit();
        try (Statement s = primary.createStatement();
                ResultSet rs = s.executeQuery(IDENTITY_SQL)) {
            rs.next();
            if (rs.getBoolean(1)) {
                throw Errors.invalidSetting("Flushless: flushless.replicas is set, but the URL's server is itself a"
                        + " standby (pg_is_in_recovery() is true): name the primary in the URL and its standbys in"
                        + " flushless.replicas.");
            }
            return rs.getString(2);
        } catch (SQLException e) {
            if (Errors.INVALID_SETTING_STATE.equals(e.getSQLState())) {
                throw e;
            }
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Flushless: cannot read the primary's system identifier (" + e.getMessage()
                            + "); replicas are checked for recovery only.");
            if (!autoCommit) {
                primary.rollback();
            }
            return null;
        }
    }

    /**
     * Checks that {@code c}, a connection to {@code endpoint}, is a standby of this primary and measures its distance.
     *
     * @throws SQLException SQLState 22023 when it is not
     */
    void check(Endpoint endpoint, Connection c) throws SQLException {
        long start = System.nanoTime();
        boolean inRecovery;
        String identifier;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(IDENTITY_SQL)) {
            rs.next();
            inRecovery = rs.getBoolean(1);
            identifier = rs.getString(2);
        }
        long rtt = System.nanoTime() - start;
        if (systemIdentifier != null && identifier != null && !systemIdentifier.equals(identifier)) {
            endpoint.skip("another cluster");
            throw Errors.invalidSetting("Flushless: " + endpoint.address + " in flushless.replicas is not a standby of"
                    + " the primary in the URL: its system identifier is " + identifier + ", the primary's is "
                    + systemIdentifier + " (pg_control_system()). Name only streaming replicas of this primary in"
                    + " flushless.replicas.");
        }
        if (!inRecovery) {
            endpoint.skip("not in recovery");
            throw Errors.invalidSetting("Flushless: " + endpoint.address + " in flushless.replicas is not a standby:"
                    + " pg_is_in_recovery() is false there (a primary, or a promoted replica), and writes to the"
                    + " primary would not reach it. Remove it from flushless.replicas, or name the server it"
                    + " replicates from in the URL.");
        }
        endpoint.measured(rtt);
    }

    /** The replicas, in the order configured. */
    public List<Endpoint> endpoints() {
        return endpoints;
    }

    /** The nearest replica not skipped now, or {@code null}. */
    Endpoint nearest() {
        long now = System.nanoTime();
        Endpoint best = null;
        for (Endpoint e : endpoints) {
            if (e.usable(now) && (best == null || Long.compareUnsigned(e.rttNanos, best.rttNanos) < 0)) {
                best = e;
            }
        }
        return best;
    }

    ReplicaConnector connector() {
        return connector;
    }

    // ---- the causal floor ----

    /** The position every read-your-writes replica read must see. */
    public long floor() {
        return floor.get();
    }

    /** Raises the floor to {@code position} (a commit's, an observed replay's, a token's). */
    public void raise(long position) {
        floor.accumulateAndGet(position, Lsn::max);
    }

    /** Whether a write ended (or runs) whose commit position is not known yet. */
    public boolean positionPending() {
        return writesInFlight.get() > 0 || covered < unknownEnded.get();
    }

    /** An autocommit statement that may write starts. */
    void writeStarted() {
        writesInFlight.incrementAndGet();
    }

    /** That statement ended (its connection was used again): its position is probed off the application's path. */
    void writeEnded() {
        unknownEnded.incrementAndGet();
        writesInFlight.decrementAndGet();
        probe();
    }

    /** A commit whose position could not be read in its round trip ended. */
    void unknownCommit() {
        unknownEnded.incrementAndGet();
        probe();
    }

    /**
     * Reads the primary's current WAL insert position on a connection of the cluster's own, in the background, and
     * raises the floor to it; the writes that ended before it started are then covered.
     */
    private void probe() {
        if (!probeQueued.compareAndSet(false, true)) {
            return;
        }
        ExecutorService executor = prober;
        if (executor == null) {
            synchronized (this) {
                if (prober == null) {
                    prober = Executors.newSingleThreadExecutor(r -> {
                        Thread t = new Thread(r, "flushless-replica-position");
                        t.setDaemon(true);
                        return t;
                    });
                }
                executor = prober;
            }
        }
        executor.execute(this::probeNow);
    }

    private void probeNow() {
        probeQueued.set(false);
        long target = unknownEnded.get();
        try {
            if (probeConnection == null || probeConnection.isClosed()) {
                probeConnection = connector.openPrimary();
                probeConnection.setAutoCommit(true);
            }
            long position;
            try (Statement s = probeConnection.createStatement();
                    ResultSet rs = s.executeQuery("SELECT pg_catalog.pg_current_wal_insert_lsn()::text")) {
                rs.next();
                position = Lsn.parse(rs.getString(1));
            }
            raise(position);
            synchronized (this) {
                if (covered < target) {
                    covered = target;
                }
            }
        } catch (SQLException | RuntimeException e) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Flushless: could not read the primary's WAL position (" + e.getMessage()
                            + "); reads stay on the primary until the next commit or probe.");
            try {
                if (probeConnection != null) {
                    probeConnection.close();
                }
            } catch (SQLException ignored) {
                // gone anyway
            }
            probeConnection = null;
            return;
        }
        if (covered < unknownEnded.get()) {
            probe(); // writes ended while this probe ran
        }
    }

    /** Forgets every cluster (tests: a new primary on a port reused). */
    static void forgetAll() {
        CLUSTERS.clear();
    }
}
