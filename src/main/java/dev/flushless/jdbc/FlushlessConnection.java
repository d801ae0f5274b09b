package dev.flushless.jdbc;

import java.sql.Connection;

/**
 * A connection opened through Flushless. Reach it with {@code connection.unwrap(FlushlessConnection.class)},
 * also through a connection pool's proxy; {@code unwrap} with a pgjdbc type such as
 * {@code org.postgresql.PGConnection} reaches the pgjdbc connection underneath.
 */
public interface FlushlessConnection extends Connection {

    /** The settings this connection was opened with. */
    FlushlessConfig flushlessConfig();

    /** This connection's live counters (rewrites by kind, fallbacks by reason, statements, round trips). */
    dev.flushless.jdbc.stats.FlushlessStats flushlessStats();

    /**
     * The YugabyteDB flush model this connection's estimates follow: its server's release and the settings known so
     * far (isolation, ON CONFLICT batching, write pipelining), or a release without them on PostgreSQL.
     */
    default dev.flushless.jdbc.stats.YugabyteFlushModel flushModel() {
        return flushlessStats().flushModel();
    }

    /**
     * With {@code flushless.replicas}: a token naming every write this driver committed so far ({@code pg:X/Y}, the
     * newest commit position it knows). Hand it to another process (an HTTP header between services), whose
     * {@link #awaitCausalToken} makes its replica reads see those writes too.
     *
     * @throws java.sql.SQLException SQLState 22023 without {@code flushless.replicas}
     */
    String causalToken() throws java.sql.SQLException;

    /**
     * Makes this driver's later replica reads see at least the writes {@code token} names (from
     * {@link #causalToken()}, possibly of another process): they wait on the replica for that position, or run on the
     * primary. Sends nothing. Without {@code flushless.replicas} every read runs on the primary, which sees them.
     *
     * @throws java.sql.SQLException SQLState 22023 for a text that is not such a token
     */
    void awaitCausalToken(String token) throws java.sql.SQLException;

    /** What this connection saved so far: a snapshot of {@link #flushlessStats()}. */
    default dev.flushless.jdbc.stats.FlushlessReport report() {
        return flushlessStats().report();
    }
}
