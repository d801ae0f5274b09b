package dev.flushless.jdbc.session;

import dev.flushless.jdbc.stats.YugabyteFlushModel;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a connection knows about its server: whether it is YugabyteDB, read once from the version the server
 * reported when the connection started ({@code server_version}, which pgjdbc keeps: no round trip), and, on
 * YugabyteDB only and when first needed, whether the release batches the reads of {@code INSERT ... ON CONFLICT}
 * itself (one query, cached for the connection).
 */
public final class ServerFacts {

    /** The setting of YugabyteDB releases that batch ON CONFLICT reads: rows read per batch. */
    public static final String ON_CONFLICT_BATCH_SETTING = "yb_insert_on_conflict_read_batch_size";

    private final String version;
    private final boolean yugabyte;
    private volatile Boolean onConflictBatched;

    ServerFacts(String version) {
        this.version = version == null ? "" : version;
        this.yugabyte = isYugabyteVersion(version);
    }

    /** The facts of {@code connection}'s server (its reported version; nothing is sent). */
    public static ServerFacts of(Connection connection) {
        String version;
        try {
            version = connection.getMetaData().getDatabaseProductVersion();
        } catch (SQLException | RuntimeException e) {
            version = null;
        }
        return new ServerFacts(version);
    }

    /** Facts for a server known only by its version string (tests, tools). */
    public static ServerFacts ofVersion(String version) {
        return new ServerFacts(version);
    }

    /** YugabyteDB reports its PostgreSQL version with its own, e.g. {@code 11.2-YB-2024.1.2.0-b0}. */
    public static boolean isYugabyteVersion(String version) {
        return version != null && version.contains("-YB-");
    }

    /**
     * Whether a value of {@code yb_insert_on_conflict_read_batch_size} ({@code null} when the release does not
     * have the setting) means that ON CONFLICT reads are batched: a batch of more than one row. The first releases
     * with the setting used 1 as "off" (their default), later ones 0; a batch of one row reads, and so flushes,
     * once per row anyway.
     */
    public static boolean batchesOnConflict(String setting) {
        if (setting == null || setting.isBlank()) {
            return false;
        }
        try {
            return Long.parseLong(setting.trim()) > 1;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The server's version as it reported it. */
    public String version() {
        return version;
    }

    public boolean yugabyte() {
        return yugabyte;
    }

    /**
     * Whether the server batches ON CONFLICT reads: never on PostgreSQL (nothing is sent); on YugabyteDB read once
     * through {@code connection} with {@code current_setting(..., true)} (a failure, e.g. in an aborted
     * transaction, counts as not batched and is asked again next time).
     */
    public boolean onConflictBatched(Connection connection) {
        if (!yugabyte) {
            return false;
        }
        Boolean known = onConflictBatched;
        if (known == null) {
            try (Statement s = connection.createStatement();
                    ResultSet rs =
                            s.executeQuery("SELECT current_setting('" + ON_CONFLICT_BATCH_SETTING + "', true)")) {
                rs.next();
                known = batchesOnConflict(rs.getString(1));
                onConflictBatched = known;
            } catch (SQLException e) {
                return false;
            }
        }
        return known;
    }

    /** Whether {@code flushless.onConflict=auto} means the anti-join form on this server. */
    public boolean autoAntiJoin(Connection connection) {
        return yugabyte && !onConflictBatched(connection);
    }

    /**
     * The flush model for the report: the server's own where it is YugabyteDB and was asked, else a release that
     * does not batch ON CONFLICT (the reference article's). Sends nothing.
     */
    public YugabyteFlushModel flushModel() {
        Boolean known = onConflictBatched;
        return YugabyteFlushModel.forServer(known != null && known);
    }

    @Override
    public String toString() {
        return (yugabyte ? "YugabyteDB " : "PostgreSQL ") + version;
    }
}
