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
