package dev.flushless.jdbc.replica;

/**
 * Where one read runs: the pure decision, from facts the connection knows without a round trip. The driver asks it
 * for every query of a connection with {@code flushless.replicas}, and {@code explain} for every statement of a
 * script; it is unit-tested without a server.
 *
 * <p>The rules, in order:
 * <ol>
 *   <li>A statement that is not a query ({@code SELECT}, {@code WITH}, {@code VALUES}, {@code TABLE}, {@code SHOW},
 *       {@code EXPLAIN}) runs on the primary: it is not a read (no reason counted).</li>
 *   <li>Inside a read-only transaction that already runs on a replica, every query runs there too: one transaction,
 *       one server, one snapshot.</li>
 *   <li>In autocommit, a query runs on a replica only when the analysis proves it read-only and free of session
 *       state ({@code StatementDescription.provenReadOnlyForReplica}).</li>
 *   <li>With autocommit off, only a read-only transaction ({@code setReadOnly(true)}) that has sent nothing to the
 *       primary yet moves to a replica (the server then refuses any write, on the replica as on the primary).</li>
 *   <li>Then, in both cases: not after a session change, not SERIALIZABLE, not with an updatable result set, not
 *       while the position of a recent write is unknown, and only with a replica up.</li>
 * </ol>
 */
public final class ReplicaDecision {

    private ReplicaDecision() {}

    /** What the decision reads. */
    public record Facts(
            boolean query,
            boolean autoCommit,
            boolean readOnly,
            boolean transactionOnReplica,
            boolean transactionOnPrimary,
            boolean provenReadOnly,
            boolean sessionChanged,
            boolean serializable,
            boolean statementSettingOk,
            boolean positionPending,
            boolean replicaUp) {

        /** The facts of an autocommit query (explain's default). */
        public static Facts autocommitQuery(boolean provenReadOnly) {
            return new Facts(true, true, false, false, false, provenReadOnly, false, false, true, false, true);
        }
    }

    /** The outcome: on a replica, or on the primary with the reason (none for statements that are not reads). */
    public record Outcome(boolean replica, PrimaryReason reason) {
        static final Outcome REPLICA = new Outcome(true, null);
        static final Outcome NOT_A_READ = new Outcome(false, null);

        static Outcome primary(PrimaryReason reason) {
            return new Outcome(false, reason);
        }
    }

    /** Where a query with these facts runs. */
    public static Outcome decide(Facts f) {
        if (!f.query()) {
            return Outcome.NOT_A_READ;
        }
        if (f.transactionOnReplica()) {
            return Outcome.REPLICA;
        }
        if (f.autoCommit()) {
            if (!f.provenReadOnly()) {
                return Outcome.primary(PrimaryReason.NOT_PROVEN);
            }
        } else {
            if (!f.readOnly()) {
                return Outcome.primary(PrimaryReason.READ_WRITE_TRANSACTION);
            }
            if (f.transactionOnPrimary()) {
                return Outcome.primary(PrimaryReason.TRANSACTION_ON_PRIMARY);
            }
        }
        if (f.sessionChanged()) {
            return Outcome.primary(PrimaryReason.SESSION_STATE);
        }
        if (f.serializable()) {
            return Outcome.primary(PrimaryReason.SERIALIZABLE);
        }
        if (!f.statementSettingOk()) {
            return Outcome.primary(PrimaryReason.STATEMENT_SETTING);
        }
        if (f.positionPending()) {
            return Outcome.primary(PrimaryReason.POSITION_PENDING);
        }
        if (!f.replicaUp()) {
            return Outcome.primary(PrimaryReason.NO_REPLICA);
        }
        return Outcome.REPLICA;
    }

    /**
     * Whether a replica that reports {@code inRecovery} and replayed {@code replayed} can serve a read that must see
     * {@code floor}: it must still be a standby (a promoted one has left this primary's timeline) and have replayed
     * at least the floor.
     */
    public static boolean caughtUp(boolean inRecovery, long replayed, long floor) {
        return inRecovery && Lsn.atLeast(replayed, floor);
    }
}
