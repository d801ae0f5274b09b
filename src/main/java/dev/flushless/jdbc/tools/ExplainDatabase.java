package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/**
 * The database of {@code --url}, read-only: a connection (pgjdbc's, underneath a Flushless one) in a read-only
 * transaction that is rolled back on close, the driver's own {@link TableCatalog} over it (lock-free catalog
 * queries), and the flushless.* settings of a {@code jdbc:flushless:} URL (else the defaults). Nothing is written.
 */
record ExplainDatabase(
        Connection opened, Connection connection, TableCatalog catalog, FlushlessConfig config, String description) {

    static ExplainDatabase open(String url) throws Explain.UsageException {
        try {
            DriverManager.getDriver(url);
        } catch (SQLException e) {
            // the URL is not repeated: it may hold a password
            throw new Explain.UsageException(
                    "no driver accepts the --url (it must start with jdbc:postgresql: or" + " jdbc:flushless:)");
        }
        Connection opened;
        try {
            opened = DriverManager.getConnection(url);
        } catch (SQLException e) {
            throw new Explain.UsageException("cannot connect to the --url database: " + e.getMessage());
        }
        try {
            FlushlessConfig config = opened.isWrapperFor(FlushlessConnection.class)
                    ? opened.unwrap(FlushlessConnection.class).flushlessConfig()
                    : FlushlessConfig.defaults();
            Connection connection = opened.isWrapperFor(org.postgresql.PGConnection.class)
                    ? (Connection) opened.unwrap(org.postgresql.PGConnection.class)
                    : opened;
            // pgjdbc then opens every transaction with BEGIN READ ONLY: the server refuses any write
            connection.setAutoCommit(false);
            connection.setReadOnly(true);
            String description = "database " + connection.getCatalog() + " (" + ServerFacts.of(connection) + ")";
            return new ExplainDatabase(opened, connection, new TableCatalog(), config, description);
        } catch (SQLException | RuntimeException e) {
            try {
                opened.close();
            } catch (SQLException ignored) {
                // reported below
            }
            throw new Explain.UsageException("cannot use the --url database: " + e.getMessage());
        }
    }

    TableInfo lookup(String table) throws SQLException {
        return catalog.lookup(connection, table);
    }

    /** Rolls the read-only transaction back and closes the connection. */
    void close() {
        try {
            connection.rollback();
        } catch (SQLException ignored) {
            // closing rolls back too
        }
        try {
            opened.close();
        } catch (SQLException ignored) {
            // nothing was written
        }
    }
}
