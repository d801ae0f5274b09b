package dev.flushless.demo;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * The PostgreSQL server the demo writes to: an embedded PostgreSQL (zonky) with {@code pg_stat_statements}
 * preloaded, or any server named by a {@code jdbc:postgresql://} URL. Each run gets its own database, or its
 * own schema when the role may not create databases.
 */
final class Server implements AutoCloseable {

    /** Where one run writes: a database of its own, or a schema of its own in the server's database. */
    record Space(String label, String database, String schema) {
        String qualified(String table) {
            return schema == null ? table : schema + "." + table;
        }
    }

    /** {@code jdbc:postgresql://host:port/} */
    private final String baseUrl;

    private final String adminDatabase;
    /** The URL's query string with its leading '?', or "". */
    private final String query;

    private final Properties credentials;
    private final EmbeddedPostgres embedded;
    final String description;
    /** Whether pg_stat_statements can be read (preloaded and the extension created in the admin database). */
    final boolean statementStats;

    private Boolean databasesAllowed;

    private Server(
            String baseUrl,
            String adminDatabase,
            String query,
            Properties credentials,
            EmbeddedPostgres embedded,
            String description)
            throws SQLException {
        this.baseUrl = baseUrl;
        this.adminDatabase = adminDatabase;
        this.query = query;
        this.credentials = credentials;
        this.embedded = embedded;
        this.description = description;
        this.statementStats = enableStatementStats();
    }

    static Server embedded() throws IOException, SQLException {
        EmbeddedPostgres pg = EmbeddedPostgres.builder()
                .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                .setServerConfig("pg_stat_statements.max", "10000")
                .setServerConfig("pg_stat_statements.track_utility", "on")
                .setServerConfig("fsync", "off")
                .setServerConfig("synchronous_commit", "off")
                .setServerConfig("full_page_writes", "off")
                .start();
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            try {
                                pg.close();
                            } catch (IOException ignored) {
                                // exiting anyway
                            }
                        },
                        "embedded-postgres-stop"));
        Properties credentials = new Properties();
        credentials.setProperty("user", "postgres");
        return new Server(
                "jdbc:postgresql://localhost:" + pg.getPort() + "/",
                "postgres",
                "",
                credentials,
                pg,
                "embedded PostgreSQL on port " + pg.getPort());
    }

    /** A server named by {@code jdbc:postgresql://host[:port]/[database][?query]}; checked by the caller. */
    static Server fromUrl(String url) throws SQLException {
        int hostStart = "jdbc:postgresql://".length();
        int question = url.indexOf('?');
        String withoutQuery = question < 0 ? url : url.substring(0, question);
        int slash = withoutQuery.indexOf('/', hostStart);
        String base = slash < 0 ? withoutQuery + "/" : withoutQuery.substring(0, slash + 1);
        String database = slash < 0 ? "" : withoutQuery.substring(slash + 1);
        String query = question < 0 ? "" : url.substring(question);
        return new Server(
                base,
                database.isEmpty() ? "postgres" : database,
                query,
                new Properties(),
                null,
                "--url " + base + (database.isEmpty() ? "postgres" : database));
    }

    /** The bare pgjdbc URL of a space. */
    String url(Space space) {
        return baseUrl + space.database() + query;
    }

    Properties credentials() {
        return (Properties) credentials.clone();
    }

    Connection connect(String database) throws SQLException {
        Connection c = DriverManager.getConnection(baseUrl + database + query, credentials);
        c.setAutoCommit(true);
        return c;
    }

    Connection admin() throws SQLException {
        return connect(adminDatabase);
    }

    Connection connect(Space space) throws SQLException {
        Connection c = connect(space.database());
        if (space.schema() != null) {
            try (Statement s = c.createStatement()) {
                s.execute("SET search_path TO " + space.schema());
            }
        }
        return c;
    }

    /** A fresh, empty space named {@code name}: a new database, or a new schema when CREATE DATABASE is refused. */
    Space create(String label, String name) throws SQLException {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            if (databasesAllowed == null || databasesAllowed) {
                try {
                    s.execute("DROP DATABASE IF EXISTS " + name);
                    s.execute("CREATE DATABASE " + name);
                    databasesAllowed = true;
                    return new Space(label, name, null);
                } catch (SQLException e) {
                    if (databasesAllowed != null) {
                        throw e;
                    }
                    databasesAllowed = false;
                    System.out.println("[demo] CREATE DATABASE refused ("
                            + e.getMessage().lines().findFirst().orElse("") + "): using schemas in database "
                            + adminDatabase);
                }
            }
            s.execute("DROP SCHEMA IF EXISTS " + name + " CASCADE");
            s.execute("CREATE SCHEMA " + name);
            return new Space(label, adminDatabase, name);
        }
    }

    void drop(Space space) throws SQLException {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            if (space.schema() == null) {
                s.execute("DROP DATABASE IF EXISTS " + space.database());
            } else {
                s.execute("DROP SCHEMA IF EXISTS " + space.schema() + " CASCADE");
            }
        }
    }

    /** Server-side statement counts of one database so far, or null without pg_stat_statements. */
    StatementCounts statementCounts(String database) throws SQLException {
        if (!statementStats) {
            return null;
        }
        String firstWord = "lower(substring(query from '^\\s*(?:/\\*.*?\\*/\\s*)*([A-Za-z]+)'))";
        String sql = "SELECT coalesce(sum(calls), 0),"
                + " coalesce(sum(calls) FILTER (WHERE " + firstWord + " IN ('insert', 'update', 'delete', 'merge')"
                + "   OR (" + firstWord + " = 'with' AND query ~* '\\m(insert|update|delete|merge)\\M')), 0)"
                + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ?)"
                + " AND query NOT ILIKE '%pg_stat_statements%' AND query NOT ILIKE '%string_agg(t::text%'";
        try (Connection c = admin();
                var ps = c.prepareStatement(sql)) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new StatementCounts(rs.getLong(1), rs.getLong(2));
            }
        }
    }

    /** Prints the statement texts the server ran most often in a database (FLUSHLESS_DEMO_DEBUG=1). */
    void dumpStatements(String database) throws SQLException {
        try (Connection c = admin();
                var ps = c.prepareStatement("SELECT calls, left(regexp_replace(query, '\\s+', ' ', 'g'), 150)"
                        + " FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = ?)"
                        + " ORDER BY calls DESC LIMIT 40")) {
            ps.setString(1, database);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    System.out.println("    " + rs.getLong(1) + " | " + rs.getString(2));
                }
            }
        }
    }

    /**
     * Statements the server ran: all, and INSERT/UPDATE/DELETE (CTE chains of them included). COMMITs are not
     * taken from here: pg_stat_statements counts a COMMIT that pgjdbc sends as a prepared statement only once.
     */
    record StatementCounts(long statements, long writes) {
        StatementCounts minus(StatementCounts before) {
            return new StatementCounts(statements - before.statements, writes - before.writes);
        }
    }

    private boolean enableStatementStats() throws SQLException {
        try (Connection c = admin();
                Statement s = c.createStatement()) {
            try (ResultSet rs = s.executeQuery("SELECT current_setting('shared_preload_libraries')")) {
                rs.next();
                if (!rs.getString(1).contains("pg_stat_statements")) {
                    return false;
                }
            }
            try {
                s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                s.executeQuery("SELECT count(*) FROM pg_stat_statements").close();
                return true;
            } catch (SQLException e) {
                return false;
            }
        }
    }

    @Override
    public void close() throws IOException {
        if (embedded != null) {
            embedded.close();
        }
    }
}
