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

    /** What this connection saved so far: a snapshot of {@link #flushlessStats()}. */
    default dev.flushless.jdbc.stats.FlushlessReport report() {
        return flushlessStats().report();
    }
}
