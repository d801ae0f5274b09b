package dev.flushless.jdbc.replica;

import dev.flushless.jdbc.Errors;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.buffer.TransactionBuffering;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/** Sets up {@code flushless.replicas} for a new connection. */
public final class ReplicaReads {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");

    private ReplicaReads() {}

    /**
     * The replica reads of a new connection, or {@code null} when {@code flushless.replicas} is empty, or the server
     * is YugabyteDB (which reads from followers instead: one warning, nothing sent).
     *
     * @throws SQLException SQLState 22023 when a replica is not a standby of this primary, or replicas are named
     *     where the driver cannot open connections to them
     */
    public static ReplicaSession forConnection(
            FlushlessConfig config,
            ServerFacts server,
            ReplicaConnector connector,
            Connection primary,
            TransactionBuffering transactions,
            FlushlessStats stats,
            SqlAnalyzer analyzer)
            throws SQLException {
        List<HostPort> replicas = config.replicas();
        if (replicas.isEmpty()) {
            return null;
        }
        if (server.yugabyte()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Flushless: flushless.replicas is ignored on YugabyteDB (every node serves reads; use"
                            + " flushless.followerReads for reads near the application).");
            return null;
        }
        if (connector == null) {
            throw Errors.invalidSetting("Flushless: flushless.replicas is set, but this connection came from a wrapped"
                    + " DataSource that is not pgjdbc's, so the driver cannot open connections to the replicas."
                    + " Configure FlushlessDataSource with setUrl(\"jdbc:flushless:postgresql://...\") instead, or wrap"
                    + " a PGSimpleDataSource.");
        }
        ReplicaCluster cluster = ReplicaCluster.of(connector, replicas, primary);
        return new ReplicaSession(cluster, primary, transactions, config, stats, analyzer);
    }
}
