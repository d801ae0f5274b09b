package dev.flushless.jdbc.testing;

/**
 * Public access to the tests' PostgreSQL server for code outside JUnit (the JMH benchmarks in
 * {@code benchmarks/}): starts the embedded PostgreSQL (zonky, {@code pg_stat_statements} preloaded) or
 * reaches the server named by {@code FLUSHLESS_TEST_URL}, exactly as the tests do, once per JVM.
 */
public final class BenchmarkServer {

    private BenchmarkServer() {}

    /**
     * A {@code jdbc:postgresql://host:port/<admin database>} URL of the server with its credentials in the
     * query string, starting the embedded server first if needed (it stops when the JVM exits).
     */
    public static String adminUrl() {
        TestServer server = TestServer.get();
        StringBuilder url =
                new StringBuilder(server.baseUrl).append(server.adminDatabase).append(server.query);
        for (String name : server.credentials.stringPropertyNames()) {
            url.append(url.indexOf("?") < 0 ? '?' : '&')
                    .append(name)
                    .append('=')
                    .append(java.net.URLEncoder.encode(
                            server.credentials.getProperty(name), java.nio.charset.StandardCharsets.UTF_8));
        }
        return url.toString();
    }

    /**
     * A human-readable description of the server: its version and where it runs ("PostgreSQL 18.6, embedded on
     * port 12345", or the URL's host and database).
     */
    public static String description() {
        return TestServer.get().description;
    }

    /** Whether the server has {@code pg_stat_statements} preloaded (and the extension created). */
    public static boolean hasStatementStats() {
        return TestServer.get().hasStatementStats();
    }
}
