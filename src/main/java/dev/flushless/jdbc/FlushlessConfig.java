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

    /** How ON CONFLICT batches are coalesced; see {@link FlushlessProperty#ON_CONFLICT}. */
    public enum OnConflict {
        /** Anti-join on YugabyteDB releases that do not batch ON CONFLICT server-side, native elsewhere. */
        AUTO,
        /** Multi-row {@code INSERT ... ON CONFLICT}. */
        NATIVE,
        /** Read the existing keys, update those rows and insert the missing ones, in one statement per chunk. */
        ANTIJOIN
    }

    private static final FlushlessConfig DEFAULTS;

    static {
        try {
            DEFAULTS = from(new Properties());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Mode mode;
    private final int maxRowsPerStatement;
    private final boolean trustTriggers;
    private final boolean exactSequences;
    private final int parseCacheSize;
    private final int maxBufferedRows;
    private final int maxBufferedBytes;
    private final boolean groupCommit;
    private final int groupCommitMaxDelayMicros;
    private final int groupCommitMaxRows;
    private final OnConflict onConflict;
    private final int followerReadsStalenessMs;

    private FlushlessConfig(Mode mode, int maxRowsPerStatement, boolean trustTriggers, boolean exactSequences,
            int parseCacheSize,
            int maxBufferedRows, int maxBufferedBytes, boolean groupCommit, int groupCommitMaxDelayMicros,
            int groupCommitMaxRows, OnConflict onConflict, int followerReadsStalenessMs) {
        this.mode = mode;
        this.maxRowsPerStatement = maxRowsPerStatement;
        this.trustTriggers = trustTriggers;
        this.exactSequences = exactSequences;
        this.parseCacheSize = parseCacheSize;
        this.maxBufferedRows = maxBufferedRows;
        this.maxBufferedBytes = maxBufferedBytes;
        this.groupCommit = groupCommit;
        this.groupCommitMaxDelayMicros = groupCommitMaxDelayMicros;
        this.groupCommitMaxRows = groupCommitMaxRows;
        this.onConflict = onConflict;
        this.followerReadsStalenessMs = followerReadsStalenessMs;
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
        return new FlushlessConfig(mode, FlushlessProperty.MAX_ROWS_PER_STATEMENT.getInt(settings),
                FlushlessProperty.TRUST_TRIGGERS.getBoolean(settings), FlushlessProperty.EXACT_SEQUENCES.getBoolean(settings),
                FlushlessProperty.PARSE_CACHE_SIZE.getInt(settings),
                FlushlessProperty.MAX_BUFFERED_ROWS.getInt(settings), FlushlessProperty.MAX_BUFFERED_BYTES.getInt(settings),
                FlushlessProperty.GROUP_COMMIT.getBoolean(settings),
                FlushlessProperty.GROUP_COMMIT_MAX_DELAY_MICROS.getInt(settings),
                FlushlessProperty.GROUP_COMMIT_MAX_ROWS.getInt(settings),
                OnConflict.valueOf(FlushlessProperty.ON_CONFLICT.get(settings).toUpperCase(java.util.Locale.ROOT)),
                FlushlessProperty.FOLLOWER_READS.getInt(settings));
    }

    /** See {@link FlushlessProperty#ON_CONFLICT}. */
    public OnConflict onConflict() {
        return onConflict;
    }

    /** See {@link FlushlessProperty#FOLLOWER_READS}: the staleness in milliseconds, 0 when off. */
    public int followerReadsStalenessMs() {
        return followerReadsStalenessMs;
    }

    /** See {@link FlushlessProperty#MAX_ROWS_PER_STATEMENT}. */
    public int maxRowsPerStatement() {
        return maxRowsPerStatement;
    }

    /** See {@link FlushlessProperty#EXACT_SEQUENCES}. */
    public boolean exactSequences() {
        return exactSequences;
    }

    /** See {@link FlushlessProperty#TRUST_TRIGGERS}. */
    public boolean trustTriggers() {
        return trustTriggers;
    }

    /** See {@link FlushlessProperty#PARSE_CACHE_SIZE}. */
    public int parseCacheSize() {
        return parseCacheSize;
    }

    /** See {@link FlushlessProperty#MAX_BUFFERED_ROWS}. */
    public int maxBufferedRows() {
        return maxBufferedRows;
    }

    /** See {@link FlushlessProperty#MAX_BUFFERED_BYTES}. */
    public int maxBufferedBytes() {
        return maxBufferedBytes;
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT}. */
    public boolean groupCommit() {
        return groupCommit;
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT_MAX_DELAY_MICROS}. */
    public int groupCommitMaxDelayMicros() {
        return groupCommitMaxDelayMicros;
    }

    /** See {@link FlushlessProperty#GROUP_COMMIT_MAX_ROWS}. */
    public int groupCommitMaxRows() {
        return groupCommitMaxRows;
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
