package dev.flushless.jdbc.session;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import dev.flushless.jdbc.stats.YugabyteFlushModel.Isolation;
import dev.flushless.jdbc.stats.YugabyteRelease;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * What a connection knows about its server: whether it is YugabyteDB and which release, read once from the version
 * the server reported when the connection started ({@code server_version}, which pgjdbc keeps: no round trip), and,
 * on YugabyteDB only and when first needed, the session settings the flush model and the ON CONFLICT choice depend
 * on ({@link Settings}: one query of {@code current_setting} values, which touches no table, cached for the
 * connection). On PostgreSQL nothing is ever sent.
 */
public final class ServerFacts {

    /** The setting of YugabyteDB releases that batch ON CONFLICT reads: rows read per batch. */
    public static final String ON_CONFLICT_BATCH_SETTING = "yb_insert_on_conflict_read_batch_size";

    /** The setting that says which isolation YugabyteDB really runs (Read Committed only where it is enabled). */
    public static final String EFFECTIVE_ISOLATION_SETTING = "yb_effective_transaction_isolation_level";

    /** The one query that reads {@link Settings}: settings only, no table, missing settings answered as NULL. */
    static final String SETTINGS_QUERY = "SELECT current_setting('" + ON_CONFLICT_BATCH_SETTING + "', true),"
            + " current_setting('" + EFFECTIVE_ISOLATION_SETTING + "', true),"
            + " current_setting('transaction_isolation', true)";

    /**
     * The session settings read from a YugabyteDB connection, as the server answered them ({@code null} where it does
     * not have the setting).
     *
     * @param onConflictReadBatchSize {@code yb_insert_on_conflict_read_batch_size}
     * @param effectiveIsolation {@code yb_effective_transaction_isolation_level}
     * @param isolation {@code transaction_isolation}
     */
    public record Settings(String onConflictReadBatchSize, String effectiveIsolation, String isolation) {

        /** The settings {@code release} has by default as yugabyted deploys it (explain's {@code --yugabyte}). */
        public static Settings releaseDefaults(YugabyteRelease release) {
            String batchSize =
                    release.onConflictBatchedByDefault() ? "1024" : release.hasOnConflictBatching() ? "0" : null;
            String effective = release.readCommittedByDefault() ? "read committed" : "repeatable read";
            return new Settings(batchSize, effective, "read committed");
        }

        /** Whether ON CONFLICT reads are batched ({@link #batchesOnConflict}). */
        public boolean onConflictBatched() {
            return batchesOnConflict(onConflictReadBatchSize);
        }

        /**
         * The isolation the session runs: the effective level where the server reports it; else the PostgreSQL level,
         * Read Committed counting as snapshot isolation unless the release enables it by default.
         */
        public Isolation isolation(YugabyteRelease release) {
            Isolation effective = Isolation.of(effectiveIsolation);
            if (effective != Isolation.UNKNOWN) {
                return effective;
            }
            Isolation declared = Isolation.of(isolation);
            if (declared == Isolation.READ_COMMITTED && (release == null || !release.readCommittedByDefault())) {
                return Isolation.SNAPSHOT;
            }
            return declared;
        }
    }

    private final String version;
    private final YugabyteRelease release;
    private final boolean yugabyte;
    private final boolean writePipelining;
    private volatile Settings settings;
    /** The flush model from what is known ({@link #flushModel()}), rebuilt when the settings are read. */
    private volatile YugabyteFlushModel model;

    private ServerFacts(String version, FlushlessConfig.WritePipelining pipelining, Settings settings) {
        this.version = version == null ? "" : version;
        this.yugabyte = isYugabyteVersion(version);
        this.release = yugabyte ? YugabyteRelease.parse(version) : null;
        this.writePipelining = writePipelining(pipelining, release);
        this.settings = yugabyte ? settings : null;
        this.model = model(release, this.settings, writePipelining);
    }

    private static YugabyteFlushModel model(YugabyteRelease release, Settings known, boolean writePipelining) {
        return YugabyteFlushModel.of(
                release,
                known == null ? Isolation.UNKNOWN : known.isolation(release),
                known != null && known.onConflictBatched(),
                writePipelining);
    }

    /** The facts of {@code connection}'s server (its reported version; nothing is sent), pipelining by release. */
    public static ServerFacts of(Connection connection) {
        return of(connection, FlushlessConfig.WritePipelining.AUTO);
    }

    /** The facts of {@code connection}'s server (nothing is sent), with {@code flushless.writePipelining}. */
    public static ServerFacts of(Connection connection, FlushlessConfig.WritePipelining pipelining) {
        String version;
        try {
            version = connection.getMetaData().getDatabaseProductVersion();
        } catch (SQLException | RuntimeException e) {
            version = null;
        }
        return new ServerFacts(version, pipelining, null);
    }

    /** Facts for a server known only by its version string (tests, tools). */
    public static ServerFacts ofVersion(String version) {
        return new ServerFacts(version, FlushlessConfig.WritePipelining.AUTO, null);
    }

    /**
     * Facts for a server that reported {@code version} and, on YugabyteDB, {@code settings} (tests and explain: what a
     * YugabyteDB connection would report, with nothing to ask).
     */
    public static ServerFacts reported(String version, Settings settings, FlushlessConfig.WritePipelining pipelining) {
        return new ServerFacts(version, pipelining, settings);
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

    /**
     * Whether the flush model assumes write pipelining: {@code on}/{@code off} as configured; {@code auto}, the
     * release's default ({@link YugabyteRelease#writePipeliningByDefault()}; off where the server is not YugabyteDB).
     */
    static boolean writePipelining(FlushlessConfig.WritePipelining setting, YugabyteRelease release) {
        switch (setting == null ? FlushlessConfig.WritePipelining.AUTO : setting) {
            case ON:
                return true;
            case OFF:
                return false;
            default:
                return release != null && release.writePipeliningByDefault();
        }
    }

    /** The server's version as it reported it. */
    public String version() {
        return version;
    }

    public boolean yugabyte() {
        return yugabyte;
    }

    /** The YugabyteDB release, or {@code null} on PostgreSQL (or a version string without one). */
    public YugabyteRelease release() {
        return release;
    }

    /** Whether the flush model assumes write pipelining ({@link #writePipelining(FlushlessConfig.WritePipelining, YugabyteRelease)}). */
    public boolean writePipelining() {
        return writePipelining;
    }

    /** The settings read so far, or {@code null} (PostgreSQL, or not asked yet). Sends nothing. */
    public Settings knownSettings() {
        return settings;
    }

    /**
     * The session settings: {@code null} on PostgreSQL (nothing is sent); on YugabyteDB read once through
     * {@code connection} with {@link #SETTINGS_QUERY} (a failure, e.g. in an aborted transaction, answers
     * {@code null} and is asked again next time).
     */
    public Settings settings(Connection connection) {
        if (!yugabyte) {
            return null;
        }
        Settings known = settings;
        if (known == null) {
            try (Statement s = connection.createStatement();
                    ResultSet rs = s.executeQuery(SETTINGS_QUERY)) {
                rs.next();
                known = new Settings(rs.getString(1), rs.getString(2), rs.getString(3));
                model = model(release, known, writePipelining);
                settings = known;
            } catch (SQLException e) {
                return null;
            }
        }
        return known;
    }

    /**
     * Whether the server batches ON CONFLICT reads: never on PostgreSQL (nothing is sent); on YugabyteDB from the
     * session's {@code yb_insert_on_conflict_read_batch_size} ({@link #settings}).
     */
    public boolean onConflictBatched(Connection connection) {
        Settings read = settings(connection);
        return read != null && read.onConflictBatched();
    }

    /** Whether {@code flushless.onConflict=auto} means the anti-join form on this server. */
    public boolean autoAntiJoin(Connection connection) {
        return yugabyte && !onConflictBatched(connection);
    }

    /**
     * Whether ON CONFLICT batches take the anti-join form under {@code flushless.onConflict=setting}: {@code antijoin}
     * always, {@code native} never, {@code auto} exactly on a YugabyteDB that does not batch ON CONFLICT reads itself
     * (release and setting, asked once, on YugabyteDB only). The driver and explain decide with this.
     */
    public boolean antiJoin(FlushlessConfig.OnConflict setting, Connection connection) {
        switch (setting) {
            case ANTIJOIN:
                return true;
            case NATIVE:
                return false;
            default:
                return autoAntiJoin(connection);
        }
    }

    /**
     * The flush model for the report, from what is known: the release, the settings if they were read (else a release
     * that does not batch ON CONFLICT, isolation not read), write pipelining. Sends nothing.
     */
    public YugabyteFlushModel flushModel() {
        return model;
    }

    /** The flush model, reading the settings first on YugabyteDB when they are not known yet ({@link #settings}). */
    public YugabyteFlushModel flushModel(Connection connection) {
        settings(connection);
        return flushModel();
    }

    /**
     * The flush context of {@code connection}'s counters: this server's model as known ({@link #flushModel()}), and
     * whether the connection is inside an explicit transaction (pgjdbc's own autocommit flag: no round trip).
     */
    public dev.flushless.jdbc.stats.FlushlessStats.FlushContext flushContext(Connection connection) {
        return new dev.flushless.jdbc.stats.FlushlessStats.FlushContext() {
            @Override
            public YugabyteFlushModel model() {
                return flushModel();
            }

            @Override
            public boolean writePipelining() {
                return writePipelining;
            }

            @Override
            public boolean explicitTransaction() {
                try {
                    return !connection.getAutoCommit();
                } catch (SQLException | RuntimeException e) {
                    return false;
                }
            }
        };
    }

    @Override
    public String toString() {
        return (yugabyte ? "YugabyteDB " : "PostgreSQL ") + version;
    }
}
