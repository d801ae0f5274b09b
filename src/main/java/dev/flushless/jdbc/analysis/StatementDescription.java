package dev.flushless.jdbc.analysis;

import java.util.List;

/**
 * What the analysis learned about one SQL text (immutable, shared by every connection): the statement's
 * kind, its target table, where its parameters are, and the shape of its VALUES tuple, SET list and WHERE
 * clause. When a batch of the statement cannot be coalesced, {@link #fallbackReason()} says why.
 *
 * <p>Offsets are character positions in {@link #sql()}; rewrites splice the application's own text at
 * these positions rather than re-printing a syntax tree.
 */
public final class StatementDescription {

    /** The kind of statement, by its leading keyword and parse tree. */
    public enum Kind {
        INSERT,
        UPDATE,
        DELETE,
        SELECT,
        DDL,
        SESSION,
        OTHER;

        /** True for INSERT, UPDATE and DELETE. */
        public boolean isWrite() {
            return this == INSERT || this == UPDATE || this == DELETE;
        }
    }

    /**
     * An assignment of an UPDATE: {@code column = ?}, {@code column = <expression without parameters>}, or
     * {@code column = <operand> <op> ?} (arithmetic or concatenation with one parameter, {@link #inExpression()}).
     */
    public record Assignment(String column, int parameter, boolean inExpression) {
        public Assignment(String column, int parameter) {
            this(column, parameter, false);
        }

        /** True when the value contains one parameter ({@link #parameter()} is its 0-based index). */
        public boolean isParameter() {
            return parameter >= 0;
        }
    }

    /** What an INSERT does on a unique conflict. */
    public enum OnConflict {
        NONE,
        DO_NOTHING,
        DO_UPDATE
    }

    /** A WHERE conjunct {@code column = ?}: the column and the 0-based index of its parameter. */
    public record KeyColumn(String column, int parameter) {}

    /**
     * A reference {@code EXCLUDED.column} in an ON CONFLICT DO UPDATE clause: its text span {@code [start, end)}
     * and the column (folded as PostgreSQL folds it).
     */
    public record ExcludedReference(int start, int end, String column) {}

    /**
     * The ON CONFLICT DO UPDATE action as text: its SET list {@code [setStart, setEnd)}, its WHERE condition
     * {@code [whereStart, end)} ({@code whereStart} -1 when none), and its {@code EXCLUDED.column} references
     * ({@code null} when {@code EXCLUDED} is used otherwise, e.g. as a whole row).
     */
    public record ConflictAction(int setStart, int setEnd, int whereStart, int end, List<ExcludedReference> excluded) {}

    /** The row lock a {@code SELECT ... FOR ...} takes on the rows it returns, as PostgreSQL names the strengths. */
    public enum LockStrength {
        UPDATE,
        NO_KEY_UPDATE,
        SHARE,
        KEY_SHARE;

        /**
         * Whether holding this lock on a row means an UPDATE of it that changes no key column takes no further lock:
         * such an UPDATE needs {@code FOR NO KEY UPDATE}, which {@code FOR UPDATE} includes.
         */
        public boolean coversNonKeyUpdate() {
            return this == UPDATE || this == NO_KEY_UPDATE;
        }
    }

    /**
     * A {@code SELECT ... FROM table [alias] WHERE ... FOR UPDATE|NO KEY UPDATE|SHARE|KEY SHARE} of one table (no join,
     * subquery, grouping or set operation): the table as written, and its top-level {@code column = ?} conjuncts. Every
     * row it returns has those values in those columns and is locked with {@code strength} until the transaction ends
     * (or a savepoint taken before it is rolled back to).
     */
    public record LockingRead(String table, List<KeyColumn> keys, LockStrength strength) {}

    private final String sql;
    private final Kind kind;
    private final dev.flushless.jdbc.Fallback fallback;
    private final String targetTable;
    private final String targetAlias;
    private final int parameterCount;
    private final int[] parameterOffsets;
    private final List<String> insertColumns;
    private final int tupleStart;
    private final int tupleEnd;
    private final int whereStart;
    private final int textEnd;
    private final boolean returning;
    private final List<Assignment> assignments;
    private final List<KeyColumn> keys;
    private final dev.flushless.jdbc.Fallback chainReason;
    private final boolean singleStatement;
    private final OnConflict onConflict;
    private final List<KeyColumn> conflictKeys;
    private final List<String> conflictUpdatedColumns;
    private final int rowParameterCount;
    private final int valuesStart;
    private final List<String> parameterColumns;
    private final boolean positionalTuple;
    private final List<String> tablesRead;
    private final boolean callsSequenceFunctions;
    private final boolean sessionBound;
    private final ConflictAction conflictAction;
    private final LockingRead lockingRead;

    private StatementDescription(Builder b) {
        this.sql = b.sql;
        this.kind = b.kind;
        this.fallback = b.fallback;
        this.targetTable = b.targetTable;
        this.targetAlias = b.targetAlias;
        this.parameterCount = b.parameterOffsets.length;
        this.parameterOffsets = b.parameterOffsets;
        this.insertColumns = List.copyOf(b.insertColumns);
        this.tupleStart = b.tupleStart;
        this.tupleEnd = b.tupleEnd;
        this.whereStart = b.whereStart;
        this.textEnd = b.textEnd;
        this.returning = b.returning;
        this.assignments = List.copyOf(b.assignments);
        this.keys = List.copyOf(b.keys);
        this.singleStatement = b.singleStatement;
        this.onConflict = b.onConflict;
        this.conflictKeys = List.copyOf(b.conflictKeys);
        this.conflictUpdatedColumns = List.copyOf(b.conflictUpdatedColumns);
        this.rowParameterCount = b.rowParameterCount < 0 ? b.parameterOffsets.length : b.rowParameterCount;
        this.valuesStart = b.valuesStart;
        this.parameterColumns = b.parameterColumns == null
                ? null
                : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(b.parameterColumns));
        this.positionalTuple = b.positionalTuple;
        this.tablesRead = b.tablesRead == null ? null : List.copyOf(b.tablesRead);
        this.callsSequenceFunctions = b.callsSequenceFunctions;
        this.sessionBound = b.sessionBound;
        this.conflictAction = b.conflictAction;
        this.lockingRead = b.lockingRead;
        this.chainReason = b.chainSet
                ? b.chainReason
                : b.fallback != null ? b.fallback : dev.flushless.jdbc.FallbackReason.NOT_ANALYSED_FOR_CHAINING.get();
    }

    /**
     * Why this statement, as a member of a {@code Statement} batch, cannot become part of a CTE chain, or
     * {@code null} when it can: a parameterless INSERT ... VALUES, UPDATE or DELETE that reads no table but
     * its target (no subqueries, only allow-listed functions), without RETURNING, ON CONFLICT or WITH.
     */
    public dev.flushless.jdbc.Fallback chainReason() {
        return chainReason;
    }

    /**
     * For a query: the tables (and views) it reads, as written, when the analysis is sure that it reads
     * nothing else and changes nothing: one SELECT without data-modifying parts, locking clauses or
     * {@code INTO}, calling only functions that read no table. {@code null} otherwise (and for every other
     * kind of statement): the statement must be assumed to read and write anything.
     */
    public List<String> tablesRead() {
        return tablesRead;
    }

    /**
     * For a query: whether it calls {@code nextval}, {@code currval}, {@code lastval} or {@code setval}, whose
     * results depend on which INSERTs (drawing ids from sequences) ran before it.
     */
    public boolean callsSequenceFunctions() {
        return callsSequenceFunctions;
    }

    /** For a query that locks the rows it reads by key, what it locks ({@link LockingRead}); else {@code null}. */
    public LockingRead lockingRead() {
        return lockingRead;
    }

    /**
     * For a query: whether it calls a function whose answer belongs to this server session or this server (sequence
     * functions, {@code current_setting}, {@code pg_backend_pid}, transaction ids), so that another session, on a
     * replica, would answer differently or fail.
     */
    public boolean sessionBound() {
        return sessionBound;
    }

    /**
     * Whether the analysis proves this statement can run on a hot standby in a fresh session with the same answer:
     * one SELECT that reads only tables ({@link #tablesRead()} known: no locking clause, {@code INTO}, data-modifying
     * CTE, function outside the allow-list), calling no session-bound function ({@link #sessionBound()}).
     * Temporary tables are the connection's business: a connection that created one never routes.
     */
    public boolean provenReadOnlyForReplica() {
        return kind == Kind.SELECT && tablesRead != null && !sessionBound;
    }

    /** INSERT: what happens on a unique conflict. */
    public OnConflict onConflict() {
        return onConflict;
    }

    /** INSERT ... ON CONFLICT (columns): each conflict-target column and the parameter that supplies it. */
    public List<KeyColumn> conflictKeys() {
        return conflictKeys;
    }

    /**
     * INSERT ... ON CONFLICT DO UPDATE: where its SET list, WHERE condition and EXCLUDED references are in the
     * text; {@code null} for other statements or when the text could not be located with certainty.
     */
    public ConflictAction conflictAction() {
        return conflictAction;
    }

    /** INSERT ... ON CONFLICT DO UPDATE: the columns its SET list changes. */
    public List<String> conflictUpdatedColumns() {
        return conflictUpdatedColumns;
    }

    /**
     * INSERT: parameters inside the VALUES tuple (bound once per row); the remaining ones, after the tuple in
     * an ON CONFLICT DO UPDATE clause, are bound once per statement.
     */
    public int rowParameterCount() {
        return rowParameterCount;
    }

    /** INSERT: offset of the {@code VALUES} keyword. */
    public int valuesStart() {
        return valuesStart;
    }

    /**
     * INSERT whose VALUES tuple is nothing but parameters, in a named column list: for each tuple parameter,
     * the column it fills. {@code null} for any other statement (then only the VALUES form applies).
     */
    public List<String> parameterColumns() {
        return parameterColumns;
    }

    /**
     * INSERT without a column list whose VALUES tuple is nothing but parameters ({@code VALUES (?, ?, ...)}): its
     * parameters fill the table's first columns in their order, which only the catalog tells.
     */
    public boolean positionalTuple() {
        return positionalTuple;
    }

    /** True when the text was split with certainty and holds exactly one statement. */
    public boolean isSingleStatement() {
        return singleStatement;
    }

    public String sql() {
        return sql;
    }

    public Kind kind() {
        return kind;
    }

    /** Why a batch of this statement is not coalesced, or {@code null} when it can be. */
    public dev.flushless.jdbc.Fallback fallback() {
        return fallback;
    }

    /** The text of {@link #fallback()} (may quote the SQL), or {@code null}. */
    public String fallbackReason() {
        return fallback == null ? null : fallback.text();
    }

    public boolean isCoalescable() {
        return fallback == null;
    }

    /** The target table as written in the SQL (quotes and schema kept), for {@code to_regclass}. */
    public String targetTable() {
        return targetTable;
    }

    /** The target's alias in INSERT, UPDATE or DELETE, or {@code null}. */
    public String targetAlias() {
        return targetAlias;
    }

    public int parameterCount() {
        return parameterCount;
    }

    /** Character offset of the {@code i}-th (0-based) {@code ?} in {@link #sql()}. */
    public int parameterOffset(int i) {
        return parameterOffsets[i];
    }

    /** INSERT: the columns named after the table (folded as PostgreSQL folds them), empty when none are named. */
    public List<String> insertColumns() {
        return insertColumns;
    }

    /** INSERT: offset of the {@code (} opening the single VALUES tuple. */
    public int tupleStart() {
        return tupleStart;
    }

    /** INSERT: offset just after the {@code )} closing the VALUES tuple. */
    public int tupleEnd() {
        return tupleEnd;
    }

    /** UPDATE/DELETE: offset of the {@code WHERE} keyword. */
    public int whereStart() {
        return whereStart;
    }

    /** Offset where the statement's text ends (before trailing whitespace, comments and {@code ;}). */
    public int textEnd() {
        return textEnd;
    }

    /** The statement's text up to {@link #textEnd}; one string for the description's life (a benign race). */
    private String text;

    /** {@code sql().substring(0, textEnd())}, built once: flushes and rides use it as a member's text. */
    public String text() {
        String t = text;
        if (t == null) {
            t = textEnd == sql().length() ? sql() : sql().substring(0, textEnd);
            text = t;
        }
        return t;
    }

    /** True when the statement has its own RETURNING clause. */
    public boolean hasReturning() {
        return returning;
    }

    /** UPDATE: the SET list in order. */
    public List<Assignment> assignments() {
        return assignments;
    }

    /** UPDATE/DELETE: the {@code column = ?} conjuncts of the WHERE clause, in order. */
    public List<KeyColumn> keys() {
        return keys;
    }

    @Override
    public String toString() {
        return kind + (targetTable == null ? "" : " " + targetTable) + " params=" + parameterCount
                + (fallback == null ? " coalescable" : " fallback: " + fallback.text());
    }

    static Builder builder(String sql, Kind kind) {
        return new Builder(sql, kind);
    }

    /** Mutable builder used only by {@link SqlAnalyzer}. */
    static final class Builder {
        private final String sql;
        private final Kind kind;
        private dev.flushless.jdbc.Fallback fallback;
        private String targetTable;
        private String targetAlias;
        private int[] parameterOffsets = new int[0];
        private List<String> insertColumns = List.of();
        private int tupleStart = -1;
        private int tupleEnd = -1;
        private int whereStart = -1;
        private int textEnd;
        private boolean returning;
        private List<Assignment> assignments = List.of();
        private List<KeyColumn> keys = List.of();
        private dev.flushless.jdbc.Fallback chainReason;
        private boolean chainSet;
        private boolean singleStatement;
        private OnConflict onConflict = OnConflict.NONE;
        private List<KeyColumn> conflictKeys = List.of();
        private List<String> conflictUpdatedColumns = List.of();
        private int rowParameterCount = -1;
        private int valuesStart = -1;
        private List<String> parameterColumns;
        private boolean positionalTuple;
        private List<String> tablesRead;
        private boolean sessionBound;
        private boolean callsSequenceFunctions;
        private ConflictAction conflictAction;
        private LockingRead lockingRead;

        private Builder(String sql, Kind kind) {
            this.sql = sql;
            this.kind = kind;
            this.textEnd = sql.length();
        }

        Builder fallback(dev.flushless.jdbc.FallbackReason reason, Object... details) {
            return fallback(reason.because(details));
        }

        Builder fallback(dev.flushless.jdbc.Fallback reason) {
            if (fallback == null) {
                fallback = reason;
            }
            return this;
        }

        boolean failed() {
            return fallback != null;
        }

        Builder target(String table, String alias) {
            this.targetTable = table;
            this.targetAlias = alias;
            return this;
        }

        Builder parameterOffsets(int[] offsets) {
            this.parameterOffsets = offsets;
            return this;
        }

        Builder insertColumns(List<String> columns) {
            this.insertColumns = columns;
            return this;
        }

        Builder tuple(int start, int end) {
            this.tupleStart = start;
            this.tupleEnd = end;
            return this;
        }

        Builder whereStart(int offset) {
            this.whereStart = offset;
            return this;
        }

        Builder textEnd(int offset) {
            this.textEnd = offset;
            return this;
        }

        Builder returning(boolean returning) {
            this.returning = returning;
            return this;
        }

        Builder assignments(List<Assignment> assignments) {
            this.assignments = assignments;
            return this;
        }

        Builder keys(List<KeyColumn> keys) {
            this.keys = keys;
            return this;
        }

        Builder onConflict(OnConflict action, List<KeyColumn> keys, List<String> updated) {
            this.onConflict = action;
            this.conflictKeys = keys;
            this.conflictUpdatedColumns = updated;
            return this;
        }

        Builder conflictAction(ConflictAction action) {
            this.conflictAction = action;
            return this;
        }

        Builder valuesStart(int offset) {
            this.valuesStart = offset;
            return this;
        }

        Builder parameterColumns(List<String> columns) {
            this.parameterColumns = columns;
            return this;
        }

        Builder positionalTuple() {
            this.positionalTuple = true;
            return this;
        }

        Builder rowParameterCount(int count) {
            this.rowParameterCount = count;
            return this;
        }

        Builder tablesRead(List<String> tables, boolean callsSequenceFunctions) {
            this.tablesRead = tables;
            this.callsSequenceFunctions = callsSequenceFunctions;
            return this;
        }

        Builder lockingRead(LockingRead read) {
            this.lockingRead = read;
            return this;
        }

        Builder sessionBound(boolean sessionBound) {
            this.sessionBound = sessionBound;
            return this;
        }

        Builder singleStatement() {
            this.singleStatement = true;
            return this;
        }

        Builder chainReason(dev.flushless.jdbc.Fallback reason) {
            this.chainReason = reason;
            this.chainSet = true;
            return this;
        }

        StatementDescription build() {
            return new StatementDescription(this);
        }
    }
}
