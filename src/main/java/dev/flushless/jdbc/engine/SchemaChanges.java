package dev.flushless.jdbc.engine;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.buffer.TransactionBuffering;
import dev.flushless.jdbc.session.TableCatalog;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * The catalog facts of one {@link Engine}'s connection as schema and session changes affect them: which facts it
 * shares with the driver's other connections ({@link TableCatalog#shared}), and what DDL or a session change drops,
 * keeps to this connection until its transaction ends, or detaches for good.
 */
final class SchemaChanges {

    private final Engine engine;
    private final TableCatalog catalog;
    private final TransactionBuffering transactions;

    SchemaChanges(Engine engine, TableCatalog catalog, TransactionBuffering transactions) {
        this.engine = engine;
        this.catalog = catalog;
        this.transactions = transactions;
    }

    /** Statement kinds after which the cached catalog facts may be stale (DDL, session changes, anything unknown). */
    static boolean invalidatesCatalog(StatementDescription.Kind kind) {
        return kind == StatementDescription.Kind.DDL
                || kind == StatementDescription.Kind.SESSION
                || kind == StatementDescription.Kind.OTHER;
    }

    /**
     * DDL words after which a table's facts (columns, triggers, rules, keys, ...) may differ: {@code CREATE},
     * {@code ALTER}, {@code DROP}, {@code SECURITY LABEL}, {@code IMPORT}; statements of unknown kind ({@code DO},
     * {@code CALL}, ...) may run any of them. {@code TRUNCATE}, {@code LOCK}, {@code VACUUM}, {@code GRANT} and the
     * like change no fact the driver reads.
     */
    static boolean mayChangeSchema(StatementDescription.Kind kind, String sql) {
        if (kind == StatementDescription.Kind.OTHER) {
            return true;
        }
        if (kind != StatementDescription.Kind.DDL) {
            return false;
        }
        switch (SqlAnalyzer.leadingWord(sql)) {
            case "create":
            case "alter":
            case "drop":
            case "security":
            case "import":
                return true;
            default:
                return false;
        }
    }

    /**
     * Session statements after which this connection resolves table names otherwise than a fresh one: a
     * {@code search_path} or role change, {@code RESET}/{@code DISCARD} (which may undo one), and DDL that creates a
     * temporary object (a temporary table hides a table of the same name for this session only).
     */
    static boolean leavesSharedNames(StatementDescription.Kind kind, String sql) {
        String lower = sql.toLowerCase(java.util.Locale.ROOT);
        if (kind == StatementDescription.Kind.SESSION) {
            return !SqlAnalyzer.leadingWord(sql).equals("set")
                    || lower.contains("search_path")
                    || lower.contains("role")
                    || lower.contains("authorization")
                    || lower.contains("schema");
        }
        return kind == StatementDescription.Kind.DDL && lower.contains("temp");
    }

    /** A schema change of this connection whose transaction has not ended yet (see {@link #settleSchemaChange}). */
    private boolean schemaChanging;

    /**
     * Before the application's {@code sql} of {@code kind} runs: after DDL or a statement that may run DDL, the catalog
     * facts shared with other connections are dropped now and again once the statement's transaction ended (what other
     * connections read meanwhile may predate the change), and this connection keeps what it reads to itself until then;
     * after a session change, the session fingerprint is read again, and a connection whose table names now resolve
     * otherwise keeps facts of its own from now on.
     */
    void invalidateAfter(StatementDescription.Kind kind, String sql) {
        settleSchemaChange();
        if (!invalidatesCatalog(kind)) {
            return;
        }
        engine.sessionChanged();
        if (leavesSharedNames(kind, sql)) {
            catalog.detach();
        }
        if (mayChangeSchema(kind, sql)) {
            catalog.clear();
            catalog.isolate();
            schemaChanging = true;
        }
    }

    /**
     * Ends a schema change once its transaction has ended: in autocommit at the next call after the statement, else at
     * {@link #transactionEnded}.
     */
    void settleSchemaChange() {
        if (schemaChanging) {
            boolean autoCommit;
            try {
                autoCommit = transactions.getAutoCommit();
            } catch (SQLException e) {
                autoCommit = true; // a closed connection: its change, if any, has ended
            }
            if (autoCommit) {
                transactionEnded();
            }
        }
    }

    /** The application's transaction ended (commit, rollback, close): a schema change of it is now visible, or gone. */
    void transactionEnded() {
        if (schemaChanging) {
            schemaChanging = false;
            catalog.rejoin();
        }
    }

    /**
     * The catalog facts of a pgjdbc connection, shared with every connection of the driver that was opened with the
     * same pgjdbc URL (host, port, database, {@code currentSchema}, {@code options}) and user: their sessions start
     * alike and resolve table names alike ({@link TableCatalog#shared}). A connection of another driver keeps its
     * own.
     */
    static TableCatalog catalogOf(Connection delegate, int maxAgeSeconds) {
        try {
            if (delegate.isWrapperFor(org.postgresql.PGConnection.class)) {
                java.sql.DatabaseMetaData meta = delegate.getMetaData(); // pgjdbc answers both without a round trip
                return TableCatalog.shared(meta.getURL() + '\u0000' + meta.getUserName(), maxAgeSeconds);
            }
        } catch (SQLException | RuntimeException e) {
            // fall through: facts of its own
        }
        return new TableCatalog();
    }
}
