package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.List;

/**
 * Decides how a batch of one prepared statement runs: as chunks of a multi-row INSERT ({@link InsertPlanner}), as
 * multi-row ON CONFLICT statements ({@link UpsertPlanner}) or their anti-join form ({@link AntiJoinPlanner}), as
 * waves of UPDATE/DELETE joined to their rows ({@link KeyedPlanner}), or as sent (with the reason). This class checks
 * what every form needs and dispatches by statement kind. Pure: no I/O.
 */
public final class BatchPlanner {

    /** The protocol's limit on bind parameters in one statement (an unsigned 16-bit count). */
    public static final int MAX_BIND_PARAMETERS = 65535;

    /**
     * Inputs that do not come from the batch itself: {@code flushless.maxRowsPerStatement},
     * {@code flushless.trustTriggers} and {@code flushless.exactSequences} from the connection's configuration
     * ({@link #of}), pgjdbc's session settings, and whether ON CONFLICT batches take the anti-join form
     * ({@link #withAntiJoin}). Immutable once handed out (each with-method changes only a fresh copy); every value is set by name.
     */
    public static final class Settings {
        private final int maxRowsPerStatement;
        private final boolean trustTriggers;
        private final boolean exactSequences;
        private final SessionFacts session;
        // Set only by the with-methods, on a copy not yet handed out (see #duplicate).
        private boolean antiJoin;
        private ConflictFacts conflictFacts;
        private int unnestMinRows = KeyedPlanner.UNNEST_MIN_ROWS;
        private CopyChoice copy = CopyChoice.NEVER;
        private boolean guarded;
        private int uniqueUpdateMinRows;

        private Settings(int maxRowsPerStatement, boolean trustTriggers, boolean exactSequences, SessionFacts session) {
            this.maxRowsPerStatement = maxRowsPerStatement;
            this.trustTriggers = trustTriggers;
            this.exactSequences = exactSequences;
            this.session = session;
        }

        /**
         * A copy of these settings with {@code maxRowsPerStatement} rows per statement, the rest as they are: the one
         * place that copies, so that each with-method names the one value it changes.
         */
        private Settings duplicate(int maxRowsPerStatement) {
            Settings to = new Settings(maxRowsPerStatement, trustTriggers, exactSequences, session);
            to.antiJoin = antiJoin;
            to.conflictFacts = conflictFacts;
            to.unnestMinRows = unnestMinRows;
            to.copy = copy;
            to.guarded = guarded;
            to.uniqueUpdateMinRows = uniqueUpdateMinRows;
            return to;
        }

        private Settings duplicate() {
            return duplicate(maxRowsPerStatement);
        }

        /** The settings of a connection configured by {@code config} whose pgjdbc session is {@code session}; native ON CONFLICT. */
        public static Settings of(FlushlessConfig config, SessionFacts session) {
            return new Settings(config.maxRowsPerStatement(), config.trustTriggers(), config.exactSequences(), session);
        }

        /** These settings with at most {@code rows} rows per statement instead of the configured number. */
        public Settings withMaxRowsPerStatement(int rows) {
            return duplicate(rows);
        }

        /**
         * These settings with plain INSERT batches sent as COPY where {@code copy} says it pays and COPY stores what the
         * INSERTs would ({@link CopyForm}); {@link CopyChoice#NEVER} keeps the INSERT forms.
         */
        public Settings withCopy(CopyChoice copy) {
            Settings to = duplicate();
            to.copy = copy;
            return to;
        }

        /**
         * These settings for a batch that runs inside an open transaction, where {@code BatchExecutor} brackets the plan
         * with its guard savepoint: a plain INSERT checks its row count by its update count ({@link
         * BatchPlan.Decoding#COUNTED}), since a wrong count can be undone to the guard, instead of inside the
         * statement. Without it (autocommit, {@code explain}) the check stays in the statement, where a wrong count
         * fails the implicit transaction before it commits.
         */
        public Settings withGuard() {
            Settings to = duplicate();
            to.guarded = true;
            return to;
        }

        /** Whether the batch runs inside the guard savepoint ({@link #withGuard}). */
        public boolean guarded() {
            return guarded;
        }

        /** When plain INSERT batches are sent as COPY. */
        public CopyChoice copy() {
            return copy;
        }

        /**
         * These settings with ON CONFLICT batches coalesced in the anti-join form where it is exact (else natively,
         * with the reason as the plan's note), which needs the target table's {@code conflictFacts} ({@code null} when
         * they could not be read).
         */
        public Settings withAntiJoin(ConflictFacts conflictFacts) {
            Settings to = duplicate();
            to.antiJoin = true;
            to.conflictFacts = conflictFacts;
            return to;
        }

        /**
         * These settings with keyed UPDATE and DELETE batches of {@code rows} rows or more joined to unnested arrays
         * (instead of {@link KeyedPlanner#UNNEST_MIN_ROWS}); for tests of the array form's SQL.
         */
        public Settings withUnnestMinRows(int rows) {
            Settings to = duplicate();
            to.unnestMinRows = rows;
            return to;
        }

        /**
         * These settings with keyed UPDATE batches that set a column of a unique key coalesced only from {@code rows}
         * rows ({@code flushless.uniqueUpdateMinRows} as the connection resolves it; 0, the default, coalesces any).
         */
        public Settings withUniqueUpdateMinRows(int rows) {
            Settings to = duplicate();
            to.uniqueUpdateMinRows = rows;
            return to;
        }

        /** Fewest rows of a keyed UPDATE batch setting a column of a unique key that is coalesced. */
        public int uniqueUpdateMinRows() {
            return uniqueUpdateMinRows;
        }

        /** Fewest rows of a keyed UPDATE or DELETE batch joined to unnested arrays rather than a VALUES list. */
        public int unnestMinRows() {
            return unnestMinRows;
        }

        public int maxRowsPerStatement() {
            return maxRowsPerStatement;
        }

        public boolean trustTriggers() {
            return trustTriggers;
        }

        public boolean exactSequences() {
            return exactSequences;
        }

        public SessionFacts session() {
            return session;
        }

        public boolean antiJoin() {
            return antiJoin;
        }

        public ConflictFacts conflictFacts() {
            return conflictFacts;
        }
    }

    private BatchPlanner() {}

    /**
     * Plans {@code rows} (each the recorded setters of one {@code addBatch()}, index = parameter - 1).
     *
     * @param returningSuffix {@code null} when the application did not ask for generated keys, else the text
     *     pgjdbc would append for them (empty when the statement has its own RETURNING)
     */
    public static BatchPlan plan(
            StatementDescription statement,
            List<Bind[]> rows,
            TableInfo table,
            String returningSuffix,
            Settings settings) {
        Fallback reason = commonFallback(statement, rows, table, settings);
        if (reason != null) {
            return BatchPlan.fallback(reason);
        }
        switch (statement.kind()) {
            case INSERT:
                return statement.onConflict() == StatementDescription.OnConflict.NONE
                        ? InsertPlanner.plan(statement, rows, table, returningSuffix, settings)
                        : planUpsert(statement, rows, table, returningSuffix, settings);
            case UPDATE:
            case DELETE:
                if (returningSuffix != null) {
                    return BatchPlan.fallback(FallbackReason.KEYS_FOR_UPDATE_OR_DELETE);
                }
                return KeyedPlanner.plan(statement, rows, table, settings);
            default:
                return BatchPlan.fallback(FallbackReason.NOT_A_WRITE);
        }
    }

    /** Why no form applies, whatever the statement's kind, or {@code null}. */
    private static Fallback commonFallback(
            StatementDescription statement, List<Bind[]> rows, TableInfo table, Settings settings) {
        if (!statement.isCoalescable()) {
            return statement.fallback();
        }
        if (!settings.session().standardConformingStrings()) {
            return FallbackReason.STANDARD_CONFORMING_STRINGS_OFF.get();
        }
        int parameters = statement.parameterCount();
        for (Bind[] row : rows) {
            if (row.length < parameters) {
                return FallbackReason.MISSING_PARAMETER.get();
            }
            for (int p = 0; p < parameters; p++) {
                if (row[p] == null) {
                    return FallbackReason.MISSING_PARAMETER.get();
                }
            }
        }
        Fallback barrier = statement.kind() == StatementDescription.Kind.INSERT
                ? table.insertBarrier(settings.trustTriggers(), settings.exactSequences())
                : table.barrier(settings.trustTriggers());
        if (barrier != null) {
            return barrier;
        }
        return statement.kind() == StatementDescription.Kind.INSERT
                ? ForeignKeyOrder.insertReason(statement, rows, table)
                : ForeignKeyOrder.keyedReason(statement, table);
    }

    /** The anti-join form where it was asked for and applies, else the native form (noting why not the anti-join). */
    private static BatchPlan planUpsert(
            StatementDescription insert,
            List<Bind[]> rows,
            TableInfo table,
            String returningSuffix,
            Settings settings) {
        if (!settings.antiJoin()) {
            return UpsertPlanner.plan(insert, rows, table, returningSuffix, settings);
        }
        BatchPlan antiJoin = AntiJoinPlanner.plan(insert, rows, table, returningSuffix, settings);
        if (!antiJoin.isFallback()) {
            return antiJoin;
        }
        BatchPlan nativePlan = UpsertPlanner.plan(insert, rows, table, returningSuffix, settings);
        return nativePlan.isFallback()
                ? nativePlan
                : nativePlan.withNote(FallbackReason.ANTI_JOIN_NOT_APPLIED.because(antiJoin.fallbackReason()));
    }

    /**
     * One write of a chain (an INSERT, or a buffered keyed UPDATE): its text (no RETURNING), its parameters in text
     * order, and how many rows it writes.
     */
    public record InsertMember(String sql, List<Bind> parameters, int rows) {}

    /**
     * A buffered keyed UPDATE ({@code flushless.mode=transaction}, rows the transaction holds locked) executed with
     * {@code rows} as chain members: the keyed join form where the rows can be joined, else the application's text once
     * per row. Each member changes every row at most once. Pure: no I/O.
     */
    public static List<InsertMember> updateMembers(
            StatementDescription update, List<Bind[]> rows, TableInfo table, SessionFacts session, int maxRows) {
        List<InsertMember> members = KeyedPlanner.members(update, rows, table, session, maxRows);
        if (!members.isEmpty()) {
            return members;
        }
        List<InsertMember> single = new java.util.ArrayList<>(rows.size());
        for (Bind[] row : rows) {
            single.addAll(KeyedPlanner.members(update, List.<Bind[]>of(row), table, session, maxRows));
        }
        return single;
    }

    /**
     * A plain {@code INSERT ... VALUES (tuple)} executed with {@code rows} as chain members of at most
     * {@code maxRows} rows each: the application's own text for one row; for more, the unnest form when every
     * parameter's type is known (one SQL text for any row count), else the tuple repeated within the
     * bind-parameter limit. Pure: no I/O.
     */
    public static List<InsertMember> insertMembers(
            StatementDescription insert, List<Bind[]> rows, TableInfo table, SessionFacts session, int maxRows) {
        return InsertPlanner.members(insert, rows, table, session, maxRows);
    }
}
