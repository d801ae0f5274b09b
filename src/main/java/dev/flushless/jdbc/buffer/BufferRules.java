package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.List;

/**
 * Every decision of {@code flushless.mode=transaction}, as pure functions: what may be buffered, what must send the
 * buffer first, what may ride along, when a size bound sends it, and when {@code rollback()} sends it. The driver
 * ({@link TransactionBuffering}) and {@code explain} both decide with these, so what explain predicts is what the
 * driver does.
 */
public final class BufferRules {

    /** Reads a table's catalog facts by the name a statement uses (the connection's catalog, or explain's). */
    @FunctionalInterface
    public interface Tables {
        TableInfo lookup(String name) throws SQLException;
    }

    /** Why a statement that is not buffered must send the buffer before it runs. */
    public enum Flush {
        /** It runs without sending the buffer: a read that provably reads none of the tables the buffer wrote. */
        NONE,
        /** A read the analysis cannot bound (a view or user function, a locking clause, text it does not parse). */
        UNANALYSABLE_READ,
        /** A read of a table the buffered INSERTs write (inheritance children and partitions count as the parent). */
        READ_OF_WRITTEN_TABLE,
        /**
         * A sequence function while a buffered INSERT may draw from a sequence: {@code currval} must see the INSERT's
         * id, and a {@code nextval} must not take the id the INSERT would have drawn before it.
         */
        SEQUENCE_CALL,
        /** A write (it rides along with the buffer where {@link BufferRules#whyNotRideable} allows, else after it). */
        WRITE,
        /** DDL, {@code SET}, {@code DO}, {@code CALL}: anything that is neither a SELECT nor a write. */
        OTHER_STATEMENT
    }

    private BufferRules() {}

    /**
     * The first-write rule ({@code flushless.bufferFirstWrite=false}, the default): a connection's first write of fewer
     * than {@code flushless.minBatchRows} rows into a table whose catalog facts it has not read runs as sent
     * ({@link dev.flushless.jdbc.FallbackReason#FIRST_WRITE}). Buffering needs the facts (triggers, rules, row-level
     * security, sequences), and reading them is a query of about 3-20 ms on a fresh server session: more than the
     * round trip that buffering one write saves. A connection that writes a table once (a short-lived connection, a
     * migration tool's history row) never reads them; the second write into the table does.
     *
     * @param firstUnread true, and remembers the table, when the table's facts are not read and it was not written
     *     before on the connection ({@code TableCatalog.firstWriteUnread})
     */
    public static boolean firstWriteAsSent(
            FlushlessConfig config,
            boolean yugabyte,
            String table,
            int rows,
            java.util.function.Predicate<String> firstUnread) {
        return !config.bufferFirstWrite()
                && table != null
                && rows < config.minBatchRows(yugabyte)
                && firstUnread.test(table);
    }

    /**
     * Why {@code rows} of {@code statement} cannot be buffered, or {@code null}: only a plain
     * {@code INSERT ... VALUES (tuple)} (one statement, no RETURNING or ON CONFLICT) has a count known in advance, one
     * per row, and only with every parameter set (pgjdbc reports an unset one itself).
     *
     * @param plainStatement the text runs through a plain {@code Statement}, where a {@code ?} is an operator
     */
    public static String whyNotBufferable(StatementDescription statement, List<Bind[]> rows, boolean plainStatement) {
        if (statement.kind() != StatementDescription.Kind.INSERT) {
            return "not an INSERT";
        }
        if (!statement.isSingleStatement()) {
            return "not a single statement";
        }
        if (!statement.isCoalescable()) {
            return statement.fallbackReason();
        }
        if (statement.onConflict() != StatementDescription.OnConflict.NONE) {
            return "ON CONFLICT: its update count is not known in advance";
        }
        if (statement.hasReturning()) {
            return "RETURNING: its rows are read";
        }
        if (statement.tupleStart() < 0) {
            return "not a single VALUES tuple";
        }
        int parameters = statement.parameterCount();
        if (plainStatement && parameters > 0) {
            return "a ? in a Statement's text is an operator, not a parameter";
        }
        for (Bind[] row : rows) {
            if (row.length < parameters) {
                return "a parameter is not set";
            }
            for (int p = 0; p < parameters; p++) {
                if (row[p] == null) {
                    return "a parameter is not set";
                }
            }
        }
        return null;
    }

    /**
     * Whether a query that must send the buffer first ({@link #beforeStatement}) carries it in its own round trip: one
     * statement, and for a plain Statement's text no {@code ?} (an operator there, while the writes it carries bind
     * parameters). The driver also needs the statement's result set fetched whole, forward-only and read-only (its own
     * settings); {@code explain} assumes a statement with the defaults.
     */
    public static boolean queryCarriesBuffer(StatementDescription query, boolean plainStatement) {
        return query.isSingleStatement()
                && query.kind() == StatementDescription.Kind.SELECT
                && !(plainStatement && query.sql().indexOf('?') >= 0);
    }

    /** Functions whose value depends on when (or how often) a statement runs; an UPDATE calling them is not buffered. */
    private static final List<String> TIME_OR_SEQUENCE_FUNCTIONS = List.of(
            "clock_timestamp", "statement_timestamp", "timeofday", "nextval", "currval", "lastval", "setval", "random");

    /**
     * Why {@code update} cannot be buffered, or {@code null}: its update count must be known in advance
     * and sending it later must not change what it does or what it waits for. That holds for an UPDATE of one row that
     * the transaction holds locked ({@code locks}) at a strength covering the UPDATE:
     * <ul>
     *   <li>one UPDATE without RETURNING whose WHERE clause is only {@code column = ?} conjuncts, covering an enforced
     *       unique key (valid, not partial, immediate) of a table without inheritance children, with every parameter
     *       set and no key value NULL: it matches at most one row;</li>
     *   <li>a locking read of this transaction returned that row by the same values (bound alike), at
     *       {@code FOR UPDATE} or {@code FOR NO KEY UPDATE}: the row exists, matches, and nobody else can change,
     *       delete or lock it against this UPDATE until the transaction ends, so the count is 1 and the UPDATE takes no
     *       lock the transaction does not hold (PostgreSQL's row locks);</li>
     *   <li>it sets no column of a unique key (a changed key takes new index entries, which can wait for other
     *       transactions, and a stronger row lock) and no column of a foreign key either way (a foreign-key check
     *       locks the referenced row);</li>
     *   <li>the table has no triggers, rules or row-level security (even with {@code flushless.trustTriggers}: a
     *       trigger or policy can change the count), no unique index on an expression nor exclusion constraint;</li>
     *   <li>its SET list calls nothing whose value depends on when it runs ({@code clock_timestamp},
     *       {@code statement_timestamp}, {@code random}) or that draws from a sequence.</li>
     * </ul>
     * An error it raises when sent (a CHECK constraint, a value out of range) surfaces later, as with a buffered
     * INSERT (documented deviation 1).
     *
     * <p>This is the part that depends on the statement and its table only: the same answer for every execution of
     * one statement into one table's facts, so the driver keeps it ({@code LockedUpdates}). The row's part (every
     * parameter set, no key NULL, the row held locked) is {@link #whyNotBufferableUpdateRow}.
     */
    public static String whyNotBufferableUpdate(StatementDescription update, TableInfo table) {
        if (update.kind() != StatementDescription.Kind.UPDATE) {
            return "not an UPDATE";
        }
        if (!update.isSingleStatement() || !update.isCoalescable()) {
            return "not a single keyed UPDATE";
        }
        if (update.hasReturning()) {
            return "RETURNING: its rows are read";
        }
        String lower = update.sql().toLowerCase(java.util.Locale.ROOT);
        for (String function : TIME_OR_SEQUENCE_FUNCTIONS) {
            if (lower.contains(function)) {
                return "it calls " + function;
            }
        }
        if (table.kindProblem() != null || table.userCode() != null || table.uniquenessNotModelled() != null) {
            return "the table is not a plain table without triggers, rules, row-level security or unmodelled uniqueness";
        }
        List<String> keyColumns = new java.util.ArrayList<>();
        for (StatementDescription.KeyColumn key : update.keys()) {
            keyColumns.add(key.column());
        }
        if (!table.atMostOneRow(keyColumns)) {
            return "the WHERE columns do not cover an enforced unique key";
        }
        List<String> set = new java.util.ArrayList<>();
        for (StatementDescription.Assignment assignment : update.assignments()) {
            set.add(assignment.column());
        }
        if (!table.uniqueKeysTouching(set).isEmpty()) {
            return "it sets a column of a unique key";
        }
        for (dev.flushless.jdbc.session.TableCatalog.ForeignKey fk : table.references()) {
            if (fk.columns().stream().anyMatch(set::contains)) {
                return "it sets a column of a foreign key";
            }
        }
        for (dev.flushless.jdbc.session.TableCatalog.ForeignKey fk : table.referencedBy()) {
            if (fk.columns().stream().anyMatch(set::contains)) {
                return "it sets a column another table's foreign key references";
            }
        }
        return null;
    }

    /**
     * Why {@code row} of {@code update} cannot be buffered, for a statement {@link #whyNotBufferableUpdate} found
     * nothing against: every parameter set, no key value NULL, the row held locked ({@code locks}).
     */
    public static String whyNotBufferableUpdateRow(
            StatementDescription update, Bind[] row, TableInfo table, LockedRows locks) {
        int parameters = update.parameterCount();
        if (row == null || row.length < parameters) {
            return "a parameter is not set";
        }
        for (int p = 0; p < parameters; p++) {
            if (row[p] == null) {
                return "a parameter is not set";
            }
        }
        for (StatementDescription.KeyColumn key : update.keys()) {
            if (row[key.parameter()].isNull()) {
                return "a key value is NULL";
            }
        }
        if (!locks.holdsForUpdate(table.oid(), keyValues(update.keys(), row))) {
            return "the row is not locked by this transaction";
        }
        return null;
    }

    /** The key values of {@code row}: column to bind identity ({@code null} or NULL binds skipped). */
    public static java.util.Map<String, Object> keyValues(List<StatementDescription.KeyColumn> keys, Bind[] row) {
        java.util.Map<String, Object> values = new java.util.HashMap<>();
        for (StatementDescription.KeyColumn key : keys) {
            Bind bind = key.parameter() < row.length ? row[key.parameter()] : null;
            if (bind != null && !bind.isNull()) {
                values.put(key.column(), bind.identity());
            }
        }
        return values;
    }

    /**
     * Whether the statement {@code statement} (whose text begins with a statement of kind {@code lead}) must send a
     * non-empty {@code buffer} before it runs, and why. A read goes ahead only when the analysis proves what it reads:
     * one SELECT of plain tables none of which overlaps a written table, calling only functions that read no table.
     */
    public static Flush beforeStatement(
            StatementDescription.Kind lead, StatementDescription statement, TransactionBuffer buffer, Tables tables) {
        if (lead != StatementDescription.Kind.SELECT) {
            return lead.isWrite() ? Flush.WRITE : Flush.OTHER_STATEMENT;
        }
        List<String> read = statement.tablesRead();
        if (read == null) {
            return Flush.UNANALYSABLE_READ;
        }
        if (statement.callsSequenceFunctions() && buffer.drawsFromSequences()) {
            return Flush.SEQUENCE_CALL;
        }
        for (String name : read) {
            TableInfo table;
            try {
                table = tables.lookup(name);
            } catch (SQLException e) {
                return Flush.UNANALYSABLE_READ;
            }
            if (table.kindProblem() != null) {
                return Flush.UNANALYSABLE_READ; // a view or foreign table reads what it likes
            }
            if (buffer.wrote(table)) {
                return Flush.READ_OF_WRITTEN_TABLE;
            }
        }
        return Flush.NONE;
    }

    /**
     * Why a write whose update count the application needs cannot run in the same round trip as the buffered writes,
     * or {@code null}: it must be one write statement without RETURNING (its count is read from the shared round
     * trip) with every parameter set; with {@code flushless.exactSequences=true}, one that cannot draw from a sequence
     * (a failed round trip would draw twice).
     *
     * @param row the statement's parameters ({@code null} for a plain Statement, where {@code ?} is an operator)
     * @param mayDrawFromSequences whether the statement may draw a sequence value (asked only when it matters)
     */
    public static String whyNotRideable(
            StatementDescription statement,
            Bind[] row,
            boolean exactSequences,
            java.util.function.BooleanSupplier mayDrawFromSequences) {
        if (!statement.isSingleStatement()) {
            return "not a single statement";
        }
        if (statement.hasReturning()) {
            return "RETURNING: its rows are read";
        }
        int parameters = statement.parameterCount();
        if (row == null
                ? parameters > 0
                : row.length < parameters
                        || java.util.Arrays.asList(row).subList(0, parameters).contains(null)) {
            return row == null ? "a ? in a Statement's text is an operator, not a parameter" : "a parameter is not set";
        }
        if (exactSequences && mayDrawFromSequences.getAsBoolean()) {
            return "it may draw from a sequence and flushless.exactSequences=true";
        }
        return null;
    }

    /**
     * Whether {@code statement} may draw sequence values (asked by {@link #whyNotRideable} with
     * {@code flushless.exactSequences=true}, where a failed round trip it rode in would draw them twice): it calls a
     * sequence function, or it is an INSERT into a table that draws ids from a sequence, or whose table cannot be read.
     */
    public static boolean mayDrawFromSequences(StatementDescription statement, Tables tables) {
        if (statement.callsSequenceFunctions()) {
            return true;
        }
        if (statement.kind() != StatementDescription.Kind.INSERT) {
            return false;
        }
        try {
            return tables.lookup(statement.targetTable()).drawsFromSequences();
        } catch (SQLException | RuntimeException e) {
            return true;
        }
    }

    /**
     * Whether the buffer must be sent before a write of {@code rows} rows and {@code bytes} estimated bytes is added:
     * it holds something, and the write would take it past {@code flushless.maxBufferedRows} or
     * {@code flushless.maxBufferedBytes}.
     */
    public static boolean sendBeforeAdding(
            TransactionBuffer buffer, long rows, long bytes, long maxRows, long maxBytes) {
        return !buffer.isEmpty() && (buffer.rows() + rows > maxRows || buffer.bytes() + bytes > maxBytes);
    }

    /** Whether the buffer must be sent after a write was added: a single write larger than a bound is sent at once. */
    public static boolean sendAfterAdding(TransactionBuffer buffer, long maxRows, long maxBytes) {
        return buffer.rows() > maxRows || buffer.bytes() > maxBytes;
    }

    /**
     * Whether {@code rollback()} sends the buffer before it rolls back: when a buffered table draws ids from a sequence,
     * so that the values bare pgjdbc's INSERTs drew are drawn too (PostgreSQL never gives sequence values back). Not
     * after the transaction failed (nothing more runs in it).
     */
    public static boolean sendBeforeRollback(TransactionBuffer buffer, boolean failed) {
        return !failed && buffer.drawsFromSequences();
    }
}
