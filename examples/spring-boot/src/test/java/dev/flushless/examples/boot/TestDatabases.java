package dev.flushless.examples.boot;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fresh databases for the tests: on an embedded PostgreSQL (zonky, started once per JVM, with
 * pg_stat_statements preloaded), or on the server of {@code FLUSHLESS_TEST_URL}
 * ({@code jdbc:postgresql://host:5432/postgres?user=...}, a role that may create databases).
 */
final class TestDatabases {

    private static final AtomicInteger COUNTER = new AtomicInteger();
    private static String adminUrl;

    private TestDatabases() {}

    /** A new, empty database named after {@code hint}; returns its {@code jdbc:postgresql:} URL. */
    static synchronized String create(String hint) {
        String admin = adminUrl();
        String name = "shop_" + hint.toLowerCase().replaceAll("[^a-z0-9]", "_") + "_" + COUNTER.incrementAndGet();
        try (Connection c = DriverManager.getConnection(admin);
                Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS " + name);
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + name + ": " + e.getMessage(), e);
        }
        int slash = admin.lastIndexOf('/');
        int query = admin.indexOf('?', slash);
        return admin.substring(0, slash + 1) + name + (query < 0 ? "" : admin.substring(query));
    }

    /** {@code jdbc:postgresql://...} as {@code jdbc:flushless:postgresql://...}, with {@code parameters} added. */
    static String flushless(String pgjdbcUrl, String parameters) {
        String url = "jdbc:flushless:" + pgjdbcUrl.substring("jdbc:".length());
        return parameters.isEmpty() ? url : url + (url.contains("?") ? "&" : "?") + parameters;
    }

    /** The {@code user} parameter of {@code url}'s query string, or {@code null}. */
    static String user(String url) {
        int query = url.indexOf('?');
        if (query >= 0) {
            for (String parameter : url.substring(query + 1).split("&")) {
                if (parameter.startsWith("user=")) {
                    return parameter.substring("user=".length());
                }
            }
        }
        return null;
    }

    private static String adminUrl() {
        if (adminUrl == null) {
            String given = System.getenv("FLUSHLESS_TEST_URL");
            if (given != null && !given.isBlank()) {
                adminUrl = given;
            } else {
                try {
                    EmbeddedPostgres server = EmbeddedPostgres.builder()
                            .setServerConfig("shared_preload_libraries", "pg_stat_statements")
                            .setServerConfig("max_connections", "200")
                            .start();
                    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                        try {
                            server.close();
                        } catch (IOException e) {
                            // the JVM is going away
                        }
                    }));
                    adminUrl = server.getJdbcUrl("postgres", "postgres");
                } catch (IOException e) {
                    throw new UncheckedIOException("could not start the embedded PostgreSQL", e);
                }
            }
        }
        return adminUrl;
    }
}
