package dev.flushless.jdbc.testing;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

/**
 * A database of its own for one test class, on the run's {@link TestServer}, with helpers to connect bare
 * (pgjdbc) or through Flushless and to read exact server-side statement counts from
 * {@code pg_stat_statements}.
 */
public final class TestDatabase implements AutoCloseable {

    private final TestServer server;
    private final String name;

    TestDatabase(TestServer server, String name) {
        this.server = server;
        this.name = name;
    }

    /** The database's name. */
    public String name() {
        return name;
    }

    /** A {@code jdbc:postgresql:} URL of this database, credentials included. */
    public String pgjdbcUrl() {
        return server.baseUrl + name + server.query;
    }

    /**
     * The settings every test URL carries unless it asks for the defaults ({@link #flushlessDefaultsUrl}): batches of
     * two rows and more are coalesced, even a connection's first batch into a table inside a transaction
     * ({@code flushless.coalesceFirstBatch=true}) and one that sets a unique column ({@code
     * flushless.uniqueUpdateMinRows=2}), and the first write into a table is buffered, so that small test batches and
     * fresh test connections exercise the rewrites; INSERT batches keep the INSERT forms, whose statements the tests
     * count, where {@code flushless.copy=auto} would choose COPY by the round-trip time measured in the JVM; and
     * transaction mode buffers whatever the round trip ({@code flushless.bufferMinRoundTripMicros=0}: the embedded
     * server is on the same host, where the default runs a transaction's writes as sent). The size rule
     * ({@code flushless.minBatchRows}), the first-write rule ({@code flushless.bufferFirstWrite}), the first-batch rule
     * ({@code FirstBatchRuleTest}), the round-trip rule
     * ({@code NearServerTest}), the unique-update rule ({@code UniqueUpdateRuleTest}) and COPY ({@code CopyFormTest}, the conformance table's {@code *_copy} variants) have
     * tests of their own.
     */
    public static final String REWRITE_EVERYTHING =
            "flushless.minBatchRows=2&flushless.bufferFirstWrite=true&flushless.copy=off"
                    + "&flushless.bufferMinRoundTripMicros=0&flushless.coalesceFirstBatch=true"
                    + "&flushless.uniqueUpdateMinRows=2";

    /** The same database as a {@code jdbc:flushless:postgresql:} URL, with {@link #REWRITE_EVERYTHING}. */
    public String flushlessUrl() {
        return withParameters(flushlessDefaultsUrl(), REWRITE_EVERYTHING);
    }

    /** The same database as a {@code jdbc:flushless:postgresql:} URL with the driver's default settings. */
    public String flushlessDefaultsUrl() {
        return "jdbc:flushless:" + pgjdbcUrl().substring("jdbc:".length());
    }

    /** {@code url} with {@code parameters} added to its query string. */
    public static String withParameters(String url, String parameters) {
        return url + (url.contains("?") ? "&" : "?") + parameters;
    }

    /** The Flushless URL with {@code parameters} (e.g. {@code "flushless.mode=off"}) added to its query. */
    public String flushlessUrl(String parameters) {
        return withParameters(flushlessUrl(), parameters);
    }

    /** Credentials to pass as connection properties (may be empty when the URL carries them). */
    public Properties credentials() {
        return (Properties) server.credentials.clone();
    }

    /** A bare pgjdbc connection. */
    public Connection bare() throws SQLException {
        return DriverManager.getConnection(pgjdbcUrl(), credentials());
    }

    /** A bare pgjdbc connection with extra pgjdbc properties, e.g. {@code reWriteBatchedInserts}. */
    public Connection bare(Properties extra) throws SQLException {
        Properties properties = credentials();
        properties.putAll(extra);
        return DriverManager.getConnection(pgjdbcUrl(), properties);
    }

    /** A Flushless connection in {@code mode} ({@code off}, {@code batch} or {@code transaction}). */
    public Connection flushless(String mode) throws SQLException {
        return DriverManager.getConnection(flushlessUrl("flushless.mode=" + mode), credentials());
    }

    /**
     * Runs {@code sql} statements on a bare connection (setup), then tells the driver the schema changed outside it
     * ({@code FlushlessDriver.schemaChanged()}), as an application does after a migration run by another tool: tests
     * recreate tables of the same names, which catalog facts shared across connections would otherwise remember.
     */
    public void execute(String... sql) throws SQLException {
        try (Connection c = bare();
                Statement s = c.createStatement()) {
            for (String statement : sql) {
                s.execute(statement);
            }
        } finally {
            dev.flushless.jdbc.FlushlessDriver.schemaChanged();
        }
    }

    /** The rows of {@code query} on a bare connection, each row as a list of column values (as strings). */
    public List<List<String>> rows(String query) throws SQLException {
        try (Connection c = bare();
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(query)) {
            List<List<String>> rows = new ArrayList<>();
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                List<String> row = new ArrayList<>(columns);
                for (int i = 1; i <= columns; i++) {
                    row.add(rs.getString(i));
                }
                rows.add(row);
            }
            return rows;
        }
    }

    /** True when the server has pg_stat_statements preloaded (statement counts can be asserted). */
    public boolean hasStatementStats() {
        return server.hasStatementStats();
    }

    /** Skips the calling test, with the reason printed, when the server does not track statements. */
    public void assumeStatementStats() {
        assumeTrue(
                server.hasStatementStats(),
                "pg_stat_statements is not preloaded on " + server.description + ": statement counts unavailable");
    }

    /**
     * A new connection to the server's admin database, where {@code pg_stat_statements} is installed (for tests that
     * read it often); the caller closes it.
     */
    public Connection statisticsConnection() throws SQLException {
        assumeStatementStats();
        return server.connect(server.adminDatabase);
    }

    /** Forgets all statement statistics of the server (call before the measured part of a test). */
    public void resetStatementCounts() throws SQLException {
        assumeStatementStats();
        try (Connection c = server.connect(server.adminDatabase);
                Statement s = c.createStatement()) {
            s.execute("SELECT pg_stat_statements_reset()");
        }
    }

    /**
     * Executions counted by the server in this database since the last reset, of statements whose
     * normalised text matches the SQL {@code LIKE} pattern {@code likePattern} (case-insensitive).
     */
    public long statementCount(String likePattern) throws SQLException {
        assumeStatementStats();
        try (Connection c = server.connect(server.adminDatabase);
                PreparedStatement ps = c.prepareStatement("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements s"
                        + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ? AND s.query ILIKE ?")) {
            ps.setString(1, name);
            ps.setString(2, likePattern);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /** The server's {@code server_version_num}, e.g. 110022 for PostgreSQL 11.22. */
    public int serverVersionNum() {
        return server.versionNum;
    }

    /**
     * Makes {@code gen_random_uuid()} callable in this database: built in from PostgreSQL 13, from the
     * {@code pgcrypto} extension before (in zonky's binaries and PostgreSQL's contrib; created in {@code public}).
     * Skips the calling test, with the reason printed, when an older server does not have the extension.
     */
    public void enableGenRandomUuid() throws SQLException {
        if (server.versionNum >= 130000) {
            return;
        }
        boolean available = !rows("SELECT 1 FROM pg_available_extensions WHERE name = 'pgcrypto'")
                .isEmpty();
        assumeTrue(
                available,
                () -> print("gen_random_uuid() needs PostgreSQL 13 or the pgcrypto extension, which "
                        + server.description + " does not have"));
        execute("CREATE EXTENSION IF NOT EXISTS pgcrypto");
    }

    private static String print(String reason) {
        System.out.println("[flushless tests] skipped: " + reason);
        return reason;
    }

    /**
     * Drops the database when JUnit closes the run's store (after the last test), after terminating the sessions
     * still connected to it (what PostgreSQL 13's {@code DROP DATABASE ... WITH (FORCE)} does, written for every
     * release).
     */
    @Override
    public void close() throws SQLException {
        try (Connection c = server.connect(server.adminDatabase);
                Statement s = c.createStatement();
                PreparedStatement terminate = c.prepareStatement("SELECT count(pg_terminate_backend(pid))"
                        + " FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
            terminate.setString(1, name);
            for (int attempt = 1; ; attempt++) {
                terminate.executeQuery().close();
                try {
                    // waits up to 5 seconds for the terminated sessions to end
                    s.execute("DROP DATABASE IF EXISTS " + name);
                    return;
                } catch (SQLException e) {
                    // 55006: still in use (a session connected after the termination)
                    if (!"55006".equals(e.getSQLState()) || attempt == 3) {
                        throw e;
                    }
                }
            }
        }
    }

    @Override
    public String toString() {
        return name + " on " + server.description;
    }
}
