package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.Session;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The rows a {@code mode=transaction} transaction holds locked, learnt from its locking reads by key
 * ({@link LockedRows}), and the keyed UPDATEs of them that can be buffered: each updates one row the transaction holds
 * locked, so its count, 1, is known ({@link BufferRules#whyNotBufferableUpdate}).
 */
final class LockedUpdates {

    private final TransactionBuffering tx;
    private final Session session;
    /** Rows the open transaction holds locked, by key ({@link LockedRows}); their keyed UPDATEs can be buffered. */
    private final LockedRows locked = new LockedRows();

    LockedUpdates(TransactionBuffering tx) {
        this.tx = tx;
        this.session = tx.session;
    }

    /** Whether any locked row is known. */
    boolean any() {
        return !locked.isEmpty();
    }

    /** Forgets every lock known (a rollback to a savepoint, the end of the transaction, a write not followed). */
    void forget() {
        locked.forget();
    }

    /**
     * A write was buffered: a keyed UPDATE notes, for each locked row it updates, the columns it sets
     * ({@link LockedRows#updated}).
     */
    void buffered(StatementDescription statement, TableInfo table, List<Bind[]> rows) {
        if (statement.kind() == StatementDescription.Kind.UPDATE) {
            List<String> set = new ArrayList<>();
            for (StatementDescription.Assignment assignment : statement.assignments()) {
                set.add(assignment.column());
            }
            for (Bind[] row : rows) {
                locked.updated(table.oid(), BufferRules.keyValues(statement.keys(), row), set);
            }
        }
    }

    /**
     * The table of a keyed UPDATE whose {@code rows} may all be buffered ({@link BufferRules#whyNotBufferableUpdate}:
     * each updates one row the transaction holds locked, so its count, 1, is known), else {@code null}.
     */
    TableInfo bufferableUpdate(StatementDescription statement, List<Bind[]> rows) throws SQLException {
        if (!tx.buffering()
                || tx.failed != null
                || locked.isEmpty()
                || statement.kind() != StatementDescription.Kind.UPDATE
                || !statement.isCoalescable()
                || ServerTransaction.transactionFailed(tx.delegate())) {
            return null;
        }
        TableInfo table = tx.targetTable(statement);
        if (table == null) {
            return null;
        }
        if (!statementBufferable(statement, table)) {
            return null;
        }
        for (Bind[] row : rows) {
            if (BufferRules.whyNotBufferableUpdateRow(statement, row, table, locked) != null) {
                return null;
            }
        }
        return table;
    }

    /** Statement-level verdicts already reached, by statement; each holds for the table facts it was reached with. */
    private final java.util.Map<StatementDescription, Verdict> verdicts = new java.util.IdentityHashMap<>();

    private record Verdict(TableInfo table, boolean bufferable) {}

    /**
     * {@link BufferRules#whyNotBufferableUpdate(StatementDescription, TableInfo)}, kept per statement for as long as
     * the table's facts are the same object (new facts, after DDL or expiry, are judged again).
     */
    private boolean statementBufferable(StatementDescription statement, TableInfo table) {
        Verdict verdict = verdicts.get(statement);
        if (verdict == null || verdict.table() != table) {
            if (verdicts.size() >= 256) {
                verdicts.clear();
            }
            verdict = new Verdict(table, BufferRules.whyNotBufferableUpdate(statement, table) == null);
            verdicts.put(statement, verdict);
        }
        return verdict.bufferable();
    }

    /**
     * After a query ran as sent: a locking read of one table by key ({@link StatementDescription#lockingRead}) that
     * returned its row adds the row to the rows the transaction holds locked. Only while writes may be buffered (no
     * savepoint open: a rollback to it would release the lock).
     *
     * @param row the query's parameters as the application set them
     * @param rows its result, positioned before its first row
     */
    void queried(StatementDescription query, Bind[] row, java.sql.ResultSet rows) throws SQLException {
        StatementDescription.LockingRead read = query.lockingRead();
        if (read == null || row == null || rows == null || !tx.buffering() || tx.failed != null) {
            return;
        }
        java.util.Map<String, Object> values = BufferRules.keyValues(read.keys(), row);
        if (values.size() != read.keys().size() || !rows.isBeforeFirst()) {
            return; // a key value unset or NULL (it matches nothing), or no row returned
        }
        TableInfo table;
        try {
            table = session.catalog().lookup(tx.delegate(), read.table());
        } catch (SQLException e) {
            return;
        }
        if (table.kindProblem() == null && table.family().length == 1) {
            locked.locked(table.oid(), values, read.strength());
        }
    }

    /**
     * Before a statement runs as sent in the transaction: unless it is a read that changes nothing (a plain read, or
     * a locking read), it might delete a locked row or change its key, so the locks known are forgotten.
     */
    void forgetLocksUnlessRead(String sql) {
        if (locked.isEmpty()) {
            return;
        }
        if (dev.flushless.jdbc.analysis.SqlAnalyzer.leadingKind(sql) == StatementDescription.Kind.SELECT) {
            StatementDescription query = session.analyzer().describe(sql);
            if (query.tablesRead() != null || query.lockingRead() != null) {
                return;
            }
        }
        locked.forget();
    }
}
