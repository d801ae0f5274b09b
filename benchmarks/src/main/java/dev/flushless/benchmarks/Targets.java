package dev.flushless.benchmarks;

import dev.flushless.jdbc.testing.BenchmarkServer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/** Where the benchmarks run: a database on the embedded PostgreSQL (default) or on a server given by URL. */
public final class Targets {

    /** The database the benchmarks create on the embedded server (dropped and created per run). */
    public static final String DATABASE = "flushless_bench";

    private Targets() {}

    /**
     * The {@code jdbc:postgresql://} URL of the benchmark database: the {@value Harness#URL_PROPERTY}
     * system property when set (by {@link BenchMain} for its forks, or by the user), else a fresh database
     * on the embedded PostgreSQL started in this JVM.
     */
    public static synchronized String benchmarkUrl() throws SQLException {
        String url = System.getProperty(Harness.URL_PROPERTY);
        if (url == null || url.isBlank()) {
            url = embedded();
            System.setProperty(Harness.URL_PROPERTY, url);
        }
        return url;
    }

    /** Starts the embedded PostgreSQL (pg_stat_statements preloaded) and creates {@value #DATABASE} on it. */
    public static String embedded() throws SQLException {
        String admin = BenchmarkServer.adminUrl();
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + DATABASE + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + DATABASE);
        }
        System.out.println("[flushless bench] target: " + BenchmarkServer.description() + ", database " + DATABASE);
        return withDatabase(admin, DATABASE);
    }

    /** {@code url} ({@code jdbc:postgresql://host:port/db?query}) with its database replaced. */
    static String withDatabase(String url, String database) {
        int hostStart = url.indexOf("//") + 2;
        int slash = url.indexOf('/', hostStart);
        int question = url.indexOf('?');
        String query = question < 0 ? "" : url.substring(question);
        String base = slash < 0 ? (question < 0 ? url : url.substring(0, question)) : url.substring(0, slash);
        return base + "/" + database + query;
    }
}
