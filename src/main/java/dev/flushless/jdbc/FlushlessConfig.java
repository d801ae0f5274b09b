package dev.flushless.jdbc;

import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Properties;

/**
 * The validated {@code flushless.*} settings of one connection (immutable). Built from the settings that
 * {@link FlushlessDriver} or {@link FlushlessDataSource} separated from the delegate's properties.
 *
 * <p>The values are parsed and validated from {@link FlushlessProperty} generically, one per constant; a new
 * setting needs its constant there and, here, a typed getter.
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

    /** How ON CONFLICT batches are coalesced; see {@link FlushlessProperty#ON_CONFLICT}. */
    public enum OnConflict {
        /** Anti-join on YugabyteDB releases that do not batch ON CONFLICT server-side, native elsewhere. */
        AUTO,
        /** Multi-row {@code INSERT ... ON CONFLICT}. */
        NATIVE,
        /** Read the existing keys, update those rows and insert the missing ones, in one statement per chunk. */
        ANTIJOIN
    }

    /** When a plain INSERT batch is sent as {@code COPY ... FROM STDIN}; see {@link FlushlessProperty#COPY}. */
    public enum Copy {
        /** Where the rows it saves the server outweigh COPY's extra round trips, as measured on the connection's server. */
        AUTO,
        /** Never: INSERT batches keep the INSERT forms. */
        OFF,
        /** Wherever COPY stores what the INSERTs would (tests, and loads that know they are large). */
        ALWAYS
    }

    /** Whether the flush model assumes YugabyteDB write pipelining; see {@link FlushlessProperty#WRITE_PIPELINING}. */
    public enum WritePipelining {
        /** The connected release's default. */
        AUTO,
        /** The servers run with {@code ysql_enable_write_pipelining=true}. */
        ON,
        /** The servers run without it. */
        OFF
    }

    private static final FlushlessConfig DEFAULTS;

    static {
        try {
            DEFAULTS = from(new Properties());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** One validated value per setting, of the setting's Java type (see {@link FlushlessProperty#getValue}). */
    private final EnumMap<FlushlessProperty, Object> values;

    private FlushlessConfig(EnumMap<FlushlessProperty, Object> values) {
        this.values = values;
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
        EnumMap<FlushlessProperty, Object> values = new EnumMap<>(FlushlessProperty.class);
        // In declaration order, so that the first bad setting of the enum is the one reported.
        for (FlushlessProperty property : FlushlessProperty.values()) {
            values.put(property, property.getValue(settings));
        }
        return new FlushlessConfig(values);
    }

    /**
     * This configuration with the {@code flushless.*} keys of {@code overrides} replacing their values (explain's
     * {@code --set}).
     *
     * @throws SQLException SQLState 22023 for an unknown {@code flushless.*} key or a value not allowed
     */
    public FlushlessConfig with(Properties overrides) throws SQLException {
        FlushlessProperty.rejectUnknownKeys(overrides);
        EnumMap<FlushlessProperty, Object> merged = new EnumMap<>(values);
        for (FlushlessProperty property : FlushlessProperty.values()) {
            if (overrides.getProperty(property.key()) != null) {
                merged.put(property, property.getValue(overrides));
            }
        }
        return new FlushlessConfig(merged);
    }

    /** The value of {@code property}: an {@link Integer}, a {@link Boolean} or an enum constant (e.g. a Mode). */
    Object value(FlushlessProperty property) {
        return values.get(property);
    }

    private int intValue(FlushlessProperty property) {
        return (Integer) values.get(property);
    }

    private boolean booleanValue(FlushlessProperty property) {
        return (Boolean) values.get(property);
    }

    /** See {@link FlushlessProperty#ON_CONFLICT}. */
    public OnConflict onConflict() {
        return (OnConflict) values.get(FlushlessProperty.ON_CONFLICT);
    }

    /** See {@link FlushlessProperty#COPY}. */
    public Copy copy() {
        return (Copy) values.get(FlushlessProperty.COPY);
    }

    /** See {@link FlushlessProperty#WRITE_PIPELINING}. */
    public WritePipelining writePipelining() {
        return (WritePipelining) values.get(FlushlessProperty.WRITE_PIPELINING);
    }

    /** See {@link FlushlessProperty#FOLLOWER_READS}: the staleness in milliseconds, 0 when off. */
    public int followerReadsStalenessMs() {
        return intValue(FlushlessProperty.FOLLOWER_READS);
    }

    /** See {@link FlushlessProperty#REPLICAS}: the replicas named, empty when replica reads are off. */
    public java.util.List<dev.flushless.jdbc.replica.HostPort> replicas() {
        return dev.flushless.jdbc.replica.HostPort.parseList((String) values.get(FlushlessProperty.REPLICAS));
    }

    /** See {@link FlushlessProperty#READ_YOUR_WRITES}. */
    public boolean readYourWrites() {
        return booleanValue(FlushlessProperty.READ_YOUR_WRITES);
    }

    /** See {@link FlushlessProperty#REPLICA_MAX_WAIT_MS}. */
    public int replicaMaxWaitMs() {
        return intValue(FlushlessProperty.REPLICA_MAX_WAIT_MS);
    }

    /** See {@link FlushlessProperty#MAX_ROWS_PER_STATEMENT}. */
    public int maxRowsPerStatement() {
        return intValue(FlushlessProperty.MAX_ROWS_PER_STATEMENT);
    }

    /**
     * The smallest batch that is coalesced on this server ({@link FlushlessProperty#MIN_BATCH_ROWS}; its {@code 0}
     * resolved: 2 on YugabyteDB, 50 on PostgreSQL).
     */
    public int minBatchRows(boolean yugabyte) {
        int rows = intValue(FlushlessProperty.MIN_BATCH_ROWS);
        return rows != 0 ? Math.max(rows, 2) : yugabyte ? 2 : 50;
    }

    /**
     * The smallest keyed UPDATE batch setting a column of a unique key that is coalesced on this server ({@link
     * FlushlessProperty#UNIQUE_UPDATE_MIN_ROWS}; its {@code 0} resolved: 100 on PostgreSQL, {@link #minBatchRows} on
     * YugabyteDB).
     */
    public int uniqueUpdateMinRows(boolean yugabyte) {
        int rows = intValue(FlushlessProperty.UNIQUE_UPDATE_MIN_ROWS);
        return rows != 0 ? Math.max(rows, 2) : yugabyte ? minBatchRows(true) : 100;
    }

    /** See {@link FlushlessProperty#COALESCE_FIRST_BATCH}. */
    public boolean coalesceFirstBatch() {
        return booleanValue(FlushlessProperty.COALESCE_FIRST_BATCH);
    }

    /** See {@link FlushlessProperty#BUFFER_FIRST_WRITE}. */
    public boolean bufferFirstWrite() {
        return booleanValue(FlushlessProperty.BUFFER_FIRST_WRITE);
    }

    /** See {@link FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}. */
    public int bufferMinRoundTripMicros() {
        return intValue(FlushlessProperty.BUFFER_MIN_ROUND_TRIP_MICROS);
    }

    /** See {@link FlushlessProperty#EXACT_SEQUENCES}. */
    public boolean exactSequences() {
        return booleanValue(FlushlessProperty.EXACT_SEQUENCES);
    }

    /** See {@link FlushlessProperty#TRUST_TRIGGERS}. */
    public boolean trustTriggers() {
        return booleanValue(FlushlessProperty.TRUST_TRIGGERS);
    }

    /** See {@link FlushlessProperty#CATALOG_CACHE_SECONDS}. */
    public int catalogCacheSeconds() {
        return intValue(FlushlessProperty.CATALOG_CACHE_SECONDS);
    }

    /** See {@link FlushlessProperty#PARSE_CACHE_SIZE}. */
    public int parseCacheSize() {
        return intValue(FlushlessProperty.PARSE_CACHE_SIZE);
    }

    /** See {@link FlushlessProperty#MAX_BUFFERED_ROWS}. */
    public int maxBufferedRows() {
        return intValue(FlushlessProperty.MAX_BUFFERED_ROWS);
    }

    /** See {@link FlushlessProperty#MAX_BUFFERED_BYTES}. */
    public int maxBufferedBytes() {
        return intValue(FlushlessProperty.MAX_BUFFERED_BYTES);
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT}. */
    public boolean groupCommit() {
        return booleanValue(FlushlessProperty.GROUP_COMMIT);
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT_MAX_DELAY_MICROS}. */
    public int groupCommitMaxDelayMicros() {
        return intValue(FlushlessProperty.GROUP_COMMIT_MAX_DELAY_MICROS);
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT_MAX_ROWS}. */
    public int groupCommitMaxRows() {
        return intValue(FlushlessProperty.GROUP_COMMIT_MAX_ROWS);
    }

    /** The configured {@link Mode}. */
    public Mode mode() {
        return (Mode) values.get(FlushlessProperty.MODE);
    }

    @Override
    public String toString() {
        return "mode=" + mode().name().toLowerCase(java.util.Locale.ROOT);
    }
}
