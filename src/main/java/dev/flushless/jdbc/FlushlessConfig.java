package dev.flushless.jdbc;

import java.sql.SQLException;
import java.util.Properties;

/**
 * The validated {@code flushless.*} settings of one connection (immutable). Built from the settings that
 * {@link FlushlessDriver} or {@link FlushlessDataSource} separated from the delegate's properties.
 */
public final class FlushlessConfig {

    /** What the driver rewrites; see {@link FlushlessProperty#MODE}. */
    public enum Mode {
        /** Every call passes through unchanged. */
        OFF,
        /** JDBC batches are coalesced into as few statements as possible. */
        BATCH,
        /** Batches are coalesced and the writes of explicit transactions are buffered. */
        TRANSACTION
    }

    private static final FlushlessConfig DEFAULTS = new FlushlessConfig(Mode.BATCH);

    private final Mode mode;

    private FlushlessConfig(Mode mode) {
        this.mode = mode;
    }

    /** The configuration used when no {@code flushless.*} setting is given. */
    public static FlushlessConfig defaults() {
        return DEFAULTS;
    }

    /**
     * Validates {@code settings} (which may also hold other keys: only {@code flushless.*} keys are read).
     *
     * @throws SQLException SQLState 22023 for an unknown {@code flushless.*} key or a value not allowed
     */
    public static FlushlessConfig from(Properties settings) throws SQLException {
        FlushlessProperty.rejectUnknownKeys(settings);
        Mode mode = Mode.valueOf(FlushlessProperty.MODE.get(settings).toUpperCase(java.util.Locale.ROOT));
        return new FlushlessConfig(mode);
    }

    /** The configured {@link Mode}. */
    public Mode mode() {
        return mode;
    }

    @Override
    public String toString() {
        return "mode=" + mode.name().toLowerCase(java.util.Locale.ROOT);
    }
}
