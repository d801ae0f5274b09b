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
        YugabyteFlushModel flushModel,
        boolean yugabyte,
        int minBatchRows) {

    /** The settings for {@code database} ({@code null} offline). */
    static ExplainSettings of(int rows, Integer maxRows, FlushlessConfig config, ExplainDatabase database) {
        SessionFacts session = database == null ? SessionFacts.PGJDBC_DEFAULTS : SessionFacts.of(database.connection());
        ServerFacts server = database == null ? null : ServerFacts.of(database.connection());
        YugabyteFlushModel flushModel = server == null ? YugabyteFlushModel.UNBATCHED_ON_CONFLICT : server.flushModel();
        boolean yugabyte = server != null && server.yugabyte();
        return new ExplainSettings(
                rows,
                maxRows != null ? maxRows : config.maxRowsPerStatement(),
                config,
                session,
                flushModel,
                yugabyte,
                config.minBatchRows(yugabyte));
    }

    /** The batch planners' settings, as a connection with these flushless.* settings has them. */
    BatchPlanner.Settings planner() {
        return BatchPlanner.Settings.of(config, session);
    }
}
