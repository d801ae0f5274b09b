package dev.flushless.jdbc.replica;

/**
 * Why a read that could have run on a replica (or a YugabyteDB follower) ran on the primary (the leaders): a closed vocabulary with stable codes, like
 * {@link dev.flushless.jdbc.FallbackReason}. The report ({@code FlushlessReport.primaryReads()}) and the Micrometer
 * tag {@code flushless.replica.primary.reads{reason=...}} use the code only. Codes are never renamed or reused.
 */
public enum PrimaryReason {
    /** An autocommit SELECT the analysis could not prove read-only and free of session state. */
    NOT_PROVEN(
            "not-proven",
            "autocommit SELECT not proven read-only (locking clause, function outside the allow-list, sequence or"
                    + " session function, several statements, text not understood)"),
    /** A SELECT inside a transaction that is not read-only. */
    READ_WRITE_TRANSACTION("read-write-transaction", "inside a transaction that is not read-only"),
    /** The read-only transaction had already sent a statement to the primary; it stays there. */
    TRANSACTION_ON_PRIMARY("transaction-on-primary", "the read-only transaction already runs on the primary"),
    /** The connection changed session state that a replica session would not have. */
    SESSION_STATE(
            "session-state",
            "the connection changed session state a replica would not see (SET, DDL, temporary tables, setCatalog,"
                    + " PREPARE)"),
    /** SERIALIZABLE isolation, which a hot standby cannot run. */
    SERIALIZABLE("serializable", "SERIALIZABLE isolation (a hot standby cannot run it)"),
    /** An updatable result set, or another statement setting a replica cannot honour. */
    STATEMENT_SETTING("statement-setting", "an updatable result set or a parameter that cannot be re-applied"),
    /** No replica is up (all unreachable, lagging past the bound, promoted or refused). */
    NO_REPLICA("no-replica", "no replica is up"),
    /** The replica had not replayed what the read must see within {@code flushless.replicaMaxWaitMs}. */
    WAIT_TIMEOUT(
            "wait-timeout",
            "the replica had not replayed the writes the read must see within flushless.replicaMaxWaitMs"),
    /** The commit position of a recent autocommit write (or fused commit) is not known yet. */
    POSITION_PENDING(
            "position-pending", "the commit position of a recent autocommit write or fused commit is not known yet"),
    /** The replica failed before any result (recovery conflict, lost connection, shutdown, promotion). */
    REPLICA_FAILED(
            "replica-failed",
            "the replica failed before returning anything (recovery conflict, lost connection, shutdown, promotion);"
                    + " run again on the primary"),
    /**
     * YugabyteDB follower reads: a read-only period that could miss a write of this driver (within the staleness
     * plus the clock skew after it, or while it runs) reads from the leaders ({@link FollowerReadCausality}).
     */
    RECENT_WRITE(
            "recent-write",
            "YugabyteDB follower reads: a write of this driver ended within the staleness bound plus the clock skew, or"
                    + " is running; read from the leaders");

    private final String code;
    private final String meaning;

    PrimaryReason(String code, String meaning) {
        this.code = code;
        this.meaning = meaning;
    }

    /** The stable code (report keys, metric tags). */
    public String code() {
        return code;
    }

    /** What the code means. */
    public String meaning() {
        return meaning;
    }
}
