package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.stats.YugabyteFlushModel;

/**
 * What {@code explain} explains with: the batch size ({@code --rows}), {@code flushless.maxRowsPerStatement}
 * ({@code --max-rows} or the settings'), the flushless.* settings (the defaults, or those of a
 * {@code jdbc:flushless:} {@code --url}, with {@code --set} over them), pgjdbc's session facts and the server's flush
 * model and size rule (pgjdbc's defaults and PostgreSQL offline, the {@code --url} connection's own otherwise).
 */
record ExplainSettings(
        int rows,
        int maxRows,
        FlushlessConfig config,
        SessionFacts session,
        ServerFacts server,
        java.sql.Connection connection,
        YugabyteFlushModel flushModel,
        boolean yugabyte,
        int minBatchRows) {

    /**
     * The settings for {@code database} ({@code null} offline), or offline for {@code assumedRelease} (a YugabyteDB
     * release as yugabyted deploys it, {@code null}: PostgreSQL).
     */
    static ExplainSettings of(
            int rows,
            Integer maxRows,
            FlushlessConfig config,
            ExplainDatabase database,
            dev.flushless.jdbc.stats.YugabyteRelease assumedRelease) {
        java.sql.Connection connection = database == null ? null : database.connection();
        SessionFacts session = connection == null ? SessionFacts.PGJDBC_DEFAULTS : SessionFacts.of(connection);
        ServerFacts server;
        if (connection != null) {
            server = ServerFacts.of(connection, config.writePipelining());
        } else if (assumedRelease != null) {
            server = ServerFacts.reported(
                    (assumedRelease.stable() && assumedRelease.major() < 2025 ? "11.2" : "15.12") + "-YB-"
                            + assumedRelease,
                    ServerFacts.Settings.releaseDefaults(assumedRelease),
                    config.writePipelining());
        } else {
            server = ServerFacts.reported("", null, config.writePipelining());
        }
        // the same model the driver's report uses: on --url, the settings are read (YugabyteDB only, no table)
        YugabyteFlushModel flushModel = server.flushModel(connection);
        boolean yugabyte = server.yugabyte();
        return new ExplainSettings(
                rows,
                maxRows != null ? maxRows : config.maxRowsPerStatement(),
                config,
                session,
                server,
                connection,
                flushModel,
                yugabyte,
                config.minBatchRows(yugabyte));
    }

    /** Whether ON CONFLICT batches take the anti-join form: the driver's own choice ({@code ServerFacts.antiJoin}). */
    boolean antiJoin() {
        return server.antiJoin(config.onConflict(), connection);
    }

    /**
     * The batch planners' settings, as a connection with these flushless.* settings has them, in autocommit (as the
     * batch section counts round trips) and before any COPY measured the round-trip time.
     */
    BatchPlanner.Settings planner() {
        return BatchPlanner.Settings.of(config, session)
                .withCopy(dev.flushless.jdbc.batch.CopyChoice.of(
                        config.copy(), yugabyte, 0, false, session.known(), -1, true, false))
                .withUniqueUpdateMinRows(config.uniqueUpdateMinRows(yugabyte));
    }
}
