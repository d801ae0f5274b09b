package dev.flushless.jdbc.stats;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A model of when YugabyteDB's YSQL layer (pggate) flushes its buffered writes to the storage layer, and which of
 * those flushes wait for a round of Raft consensus. Pure: no I/O. It knows the release and the settings that change
 * the answer: the effective isolation level, ON CONFLICT read batching and write pipelining. The rules (sources in
 * docs/semantics.md, "Estimated YugabyteDB flushes"):
 * <ol>
 *   <li>every top-level write statement waits for at least one flush, at its end (in every isolation level; in Read
 *       Committed the statement is also a subtransaction, whose start flushes what is pending: nothing, by this
 *       rule);</li>
 *   <li>a statement writing more than {@code ysql_session_max_batch_size} operations (3072 by default) also
 *       flushes whenever the buffer fills (asynchronously), so it costs {@code ceil(ops / 3072)} flushes;</li>
 *   <li>{@code INSERT ... ON CONFLICT} reads the arbiter index for every row, and a read flushes the writes
 *       pending before it: on releases or settings that do not batch those reads
 *       ({@code yb_insert_on_conflict_read_batch_size} absent or at most 1) it costs one flush per row;
 *       where they are batched it costs what rule 2 says;</li>
 *   <li>{@code COMMIT} flushes (one more for an explicit transaction);</li>
 *   <li>a read flushes pending writes (none are pending between statements, by rule 1);</li>
 *   <li>without write pipelining every flush waits for consensus. With it ({@code ysql_enable_write_pipelining}) a
 *       write returns once its tablet leader applied it: the flushes inside an explicit transaction wait for the
 *       leaders only, and its COMMIT waits for the consensus of all of them; an autocommit statement waits for
 *       consensus once, at its own commit.</li>
 * </ol>
 * The figures of the reference article (2024.1, no ON CONFLICT batching) follow: a 100,000-row INSERT costs
 * 33 flushes, the same rows as INSERT ... ON CONFLICT 100,000, and as the anti-join form about 33.
 */
public final class YugabyteFlushModel {

    /** {@code ysql_session_max_batch_size}'s default: operations buffered before a flush is started. */
    public static final int DEFAULT_SESSION_MAX_BATCH_SIZE = 3072;

    /** The effective isolation level of a YugabyteDB session (PostgreSQL's name in parentheses). */
    public enum Isolation {
        /** Read Committed, where {@code yb_enable_read_committed_isolation} is on. */
        READ_COMMITTED("read committed"),
        /** Snapshot isolation (REPEATABLE READ, and READ COMMITTED where Read Committed is not enabled). */
        SNAPSHOT("repeatable read"),
        /** Serializable. */
        SERIALIZABLE("serializable"),
        /** Not read from the session (PostgreSQL, or not asked yet). */
        UNKNOWN("not read");

        private final String setting;

        Isolation(String setting) {
            this.setting = setting;
        }

        /** The isolation a setting value names ({@code read committed}, {@code repeatable read}, ...). */
        public static Isolation of(String value) {
            if (value == null) {
                return UNKNOWN;
            }
            switch (value.trim().toLowerCase(Locale.ROOT)) {
                case "read committed":
                case "read uncommitted":
                    return READ_COMMITTED;
                case "repeatable read":
                case "snapshot":
                    return SNAPSHOT;
                case "serializable":
                    return SERIALIZABLE;
                default:
                    return UNKNOWN;
            }
        }

        /** The value as {@code SHOW transaction_isolation} writes it. */
        public String setting() {
            return setting;
        }
    }

    /** What a flush waits for. */
    public enum Wait {
        /** A Raft round: the tablet leader and a majority of its followers. */
        CONSENSUS,
        /** The tablet leaders only (write pipelining): consensus continues in the background. */
        LEADER
    }

    /** The model of a release that does not batch ON CONFLICT reads (the reference article's 2024.1). */
    public static final YugabyteFlushModel UNBATCHED_ON_CONFLICT =
            new YugabyteFlushModel(DEFAULT_SESSION_MAX_BATCH_SIZE, false);

    /** The model of a release that batches ON CONFLICT reads server-side. */
    public static final YugabyteFlushModel BATCHED_ON_CONFLICT =
            new YugabyteFlushModel(DEFAULT_SESSION_MAX_BATCH_SIZE, true);

    private final YugabyteRelease release;
    private final int sessionMaxBatchSize;
    private final boolean onConflictBatched;
    private final Isolation isolation;
    private final boolean writePipelining;

    /**
     * @param sessionMaxBatchSize {@code ysql_session_max_batch_size} (operations per flush), at least 1
     * @param onConflictBatched whether the release batches the reads of {@code INSERT ... ON CONFLICT}
     */
    public YugabyteFlushModel(int sessionMaxBatchSize, boolean onConflictBatched) {
        this(null, sessionMaxBatchSize, onConflictBatched, Isolation.UNKNOWN, false);
    }

    private YugabyteFlushModel(
            YugabyteRelease release,
            int sessionMaxBatchSize,
            boolean onConflictBatched,
            Isolation isolation,
            boolean writePipelining) {
        if (sessionMaxBatchSize < 1) {
            throw new IllegalArgumentException("sessionMaxBatchSize must be at least 1: " + sessionMaxBatchSize);
        }
        this.release = release;
        this.sessionMaxBatchSize = sessionMaxBatchSize;
        this.onConflictBatched = onConflictBatched;
        this.isolation = isolation == null ? Isolation.UNKNOWN : isolation;
        this.writePipelining = writePipelining;
    }

    /**
     * The model of a server: {@code release} ({@code null} when it is not YugabyteDB: the model then stands for a
     * release without ON CONFLICT batching or write pipelining unless told otherwise), its effective isolation,
     * whether it batches ON CONFLICT reads, and whether write pipelining is on.
     */
    public static YugabyteFlushModel of(
            YugabyteRelease release, Isolation isolation, boolean onConflictBatched, boolean writePipelining) {
        return new YugabyteFlushModel(
                release, DEFAULT_SESSION_MAX_BATCH_SIZE, onConflictBatched, isolation, writePipelining);
    }

    /**
     * The model {@code release} has by default as yugabyted deploys it: ON CONFLICT batching, Read Committed and
     * write pipelining as the release sets them (explain's {@code --yugabyte}).
     */
    public static YugabyteFlushModel releaseDefaults(YugabyteRelease release) {
        return of(
                release,
                release.readCommittedByDefault() ? Isolation.READ_COMMITTED : Isolation.SNAPSHOT,
                release.onConflictBatchedByDefault(),
                release.writePipeliningByDefault());
    }

    /** The model for a server that does ({@code true}) or does not batch ON CONFLICT reads, default batch size. */
    public static YugabyteFlushModel forServer(boolean onConflictBatched) {
        return onConflictBatched ? BATCHED_ON_CONFLICT : UNBATCHED_ON_CONFLICT;
    }

    /** This model with write pipelining on or off. */
    public YugabyteFlushModel withWritePipelining(boolean on) {
        return on == writePipelining
                ? this
                : new YugabyteFlushModel(release, sessionMaxBatchSize, onConflictBatched, isolation, on);
    }

    /** The release modelled, or {@code null} (not YugabyteDB: a release without batching or pipelining). */
    public YugabyteRelease release() {
        return release;
    }

    public int sessionMaxBatchSize() {
        return sessionMaxBatchSize;
    }

    public boolean onConflictBatched() {
        return onConflictBatched;
    }

    public Isolation isolation() {
        return isolation;
    }

    public boolean writePipelining() {
        return writePipelining;
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

    /**
     * What a write statement's flushes wait for (rule 6): consensus, unless write pipelining is on and the statement
     * runs inside an explicit transaction (then its COMMIT carries the consensus wait).
     */
    public Wait statementFlush(boolean explicitTransaction) {
        return writePipelining && explicitTransaction ? Wait.LEADER : Wait.CONSENSUS;
    }

    /** What a COMMIT waits for: consensus, always (with write pipelining, that of every write of the transaction). */
    public Wait commitFlush() {
        return Wait.CONSENSUS;
    }

    /**
     * Of the {@code flushes} of {@code statements} write statements, those that wait for consensus (rule 6): all of
     * them without write pipelining; with it none inside an explicit transaction, and one per statement (its commit)
     * in autocommit.
     */
    public long consensusFlushes(long flushes, long statements, boolean explicitTransaction) {
        if (!writePipelining) {
            return flushes;
        }
        return explicitTransaction ? 0 : Math.min(flushes, statements);
    }

    /** Lines that say what the model assumes and which flushes wait for consensus (explain, the demo, the report). */
    public List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add(
                release == null
                        ? "server: not YugabyteDB; estimated as a YugabyteDB release without ON CONFLICT batching (2024.1)"
                        : "server: YugabyteDB " + release + " (series " + release.series()
                                + (release.postgresMajor() > 0
                                        ? ", PostgreSQL " + release.postgresMajor() + " based"
                                        : "")
                                + ")");
        lines.add("isolation: "
                + (isolation == Isolation.UNKNOWN
                        ? "not read (counts do not depend on it)"
                        : isolation.setting() + " (effective)")
                + "; every statement ends in a flush"
                + (isolation == Isolation.READ_COMMITTED ? " and runs as a subtransaction" : ""));
        lines.add("ON CONFLICT: "
                + (onConflictBatched
                        ? "reads batched by the server (yb_insert_on_conflict_read_batch_size > 1): flushes as a plain"
                                + " INSERT"
                        : "not batched: a multi-row INSERT ... ON CONFLICT flushes once per row"));
        lines.add("write pipelining: "
                + (writePipelining
                        ? "on: flushes inside an explicit transaction wait for the tablet leaders only, its COMMIT"
                                + " waits for consensus; an autocommit statement waits for consensus once"
                        : "off: every flush waits for consensus"));
        return lines;
    }

    @Override
    public String toString() {
        return "YugabyteFlushModel[" + (release == null ? "" : "release=" + release + ", ")
                + "ysql_session_max_batch_size=" + sessionMaxBatchSize + ", ON CONFLICT "
                + (onConflictBatched ? "batched" : "per row")
                + (isolation == Isolation.UNKNOWN ? "" : ", isolation=" + isolation.setting())
                + ", write pipelining " + (writePipelining ? "on" : "off") + "]";
    }

    /** A short key for meters and the report ({@code 2025.2.8.0/read committed/on-conflict-batched/pipelining-off}). */
    public String key() {
        return (release == null ? "postgresql" : release.toString()) + "/" + isolation.setting() + "/"
                + (onConflictBatched ? "on-conflict-batched" : "on-conflict-per-row") + "/"
                + (writePipelining ? "pipelining-on" : "pipelining-off");
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof YugabyteFlushModel)) {
            return false;
        }
        YugabyteFlushModel m = (YugabyteFlushModel) o;
        return sessionMaxBatchSize == m.sessionMaxBatchSize
                && onConflictBatched == m.onConflictBatched
                && writePipelining == m.writePipelining
                && isolation == m.isolation
                && java.util.Objects.equals(release, m.release);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(release, sessionMaxBatchSize, onConflictBatched, isolation, writePipelining);
    }
}
