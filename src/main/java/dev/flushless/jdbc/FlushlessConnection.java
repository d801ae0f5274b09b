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

    /** What this connection saved so far: a snapshot of {@link #flushlessStats()}. */
    default dev.flushless.jdbc.stats.FlushlessReport report() {
        return flushlessStats().report();
    }
}
