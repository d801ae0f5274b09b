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

    /** What this connection's batches were turned into (rewrites by kind, fallbacks by reason). */
    dev.flushless.jdbc.stats.FlushlessStats flushlessStats();
}
