package dev.flushless.jdbc.stats;

/**
 * A model of when YugabyteDB's YSQL layer (pggate) flushes its buffered writes to the storage layer, each
 * flush being a round of Raft consensus the session may wait for. Pure: no I/O. The rules, as pggate
 * applies them (see docs/semantics.md, "Estimated YugabyteDB flushes"):
 * <ol>
 *   <li>every top-level write statement waits for at least one flush (at its end);</li>
 *   <li>a statement writing more than {@code ysql_session_max_batch_size} operations (3072 by default) also
 *       flushes whenever the buffer fills (asynchronously), so it costs {@code ceil(ops / 3072)} flushes;</li>
 *   <li>{@code INSERT ... ON CONFLICT} reads the arbiter index for every row, and a read flushes the writes
 *       pending before it: on releases that do not batch those reads
 *       ({@code yb_insert_on_conflict_read_batch_size} absent or at most 1) it costs one flush per row;
 *       where they are batched it costs what rule 2 says;</li>
 *   <li>{@code COMMIT} flushes (one more for an explicit transaction);</li>
 *   <li>a read flushes pending writes (none are pending between statements, by rule 1).</li>
 * </ol>
 * The figures of the reference article (2024.1, no ON CONFLICT batching) follow: a 100,000-row INSERT costs
 * 33 flushes, the same rows as INSERT ... ON CONFLICT 100,000, and as the anti-join form about 33.
 */
public final class YugabyteFlushModel {

    /** {@code ysql_session_max_batch_size}'s default: operations buffered before a flush is started. */
    public static final int DEFAULT_SESSION_MAX_BATCH_SIZE = 3072;

    /** The model of a release that does not batch ON CONFLICT reads (the reference article's 2024.1). */
    public static final YugabyteFlushModel UNBATCHED_ON_CONFLICT =
            new YugabyteFlushModel(DEFAULT_SESSION_MAX_BATCH_SIZE, false);

    /** The model of a release that batches ON CONFLICT reads server-side. */
    public static final YugabyteFlushModel BATCHED_ON_CONFLICT =
            new YugabyteFlushModel(DEFAULT_SESSION_MAX_BATCH_SIZE, true);

    private final int sessionMaxBatchSize;
    private final boolean onConflictBatched;

    /**
     * @param sessionMaxBatchSize {@code ysql_session_max_batch_size} (operations per flush), at least 1
     * @param onConflictBatched whether the release batches the reads of {@code INSERT ... ON CONFLICT}
     */
    public YugabyteFlushModel(int sessionMaxBatchSize, boolean onConflictBatched) {
        if (sessionMaxBatchSize < 1) {
            throw new IllegalArgumentException("sessionMaxBatchSize must be at least 1: " + sessionMaxBatchSize);
        }
        this.sessionMaxBatchSize = sessionMaxBatchSize;
        this.onConflictBatched = onConflictBatched;
    }

    /** The model for a server that does ({@code true}) or does not batch ON CONFLICT reads, default batch size. */
    public static YugabyteFlushModel forServer(boolean onConflictBatched) {
        return onConflictBatched ? BATCHED_ON_CONFLICT : UNBATCHED_ON_CONFLICT;
    }

    public int sessionMaxBatchSize() {
        return sessionMaxBatchSize;
    }

    public boolean onConflictBatched() {
        return onConflictBatched;
    }

    /**
     * Flushes of one write statement writing {@code operations} rows without reading in between (INSERT ...
     * VALUES/SELECT, UPDATE/DELETE joined to rows, the anti-join form): at least one, and one per
     * {@code ysql_session_max_batch_size} operations (rules 1 and 2).
     */
    public long writeStatement(long operations) {
        return Math.max(1, (operations + sessionMaxBatchSize - 1) / sessionMaxBatchSize);
    }

    /**
     * Flushes of one {@code INSERT ... ON CONFLICT} statement of {@code rows} rows (rule 3): one per row where the
     * release does not batch its reads, else as {@link #writeStatement}.
     */
    public long onConflictStatement(long rows) {
        return onConflictBatched ? writeStatement(rows) : Math.max(1, rows);
    }

    /** Flushes of committing an explicit transaction (rule 4). */
    public long commit() {
        return 1;
    }

    /** Flushes a read causes when {@code pendingWrites} writes are buffered before it (rule 5). */
    public long read(long pendingWrites) {
        return pendingWrites > 0 ? 1 : 0;
    }

    @Override
    public String toString() {
        return "YugabyteFlushModel[ysql_session_max_batch_size=" + sessionMaxBatchSize + ", ON CONFLICT "
                + (onConflictBatched ? "batched" : "per row") + "]";
    }
}
