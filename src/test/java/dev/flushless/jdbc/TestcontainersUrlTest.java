package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.output.MigrateResult;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.DockerClientFactory;

/**
 * Testcontainers' JDBC URLs behind Flushless: {@code jdbc:flushless:tc:postgresql:16-alpine:///shop} opens
 * {@code jdbc:tc:postgresql:16-alpine:///shop} with Testcontainers' {@code ContainerDatabaseDriver} (registered
 * with DriverManager by {@code org.testcontainers:jdbc}, which {@code org.testcontainers:postgresql} brings), which
 * starts a PostgreSQL container and connects to it with pgjdbc. The driver choice is checked everywhere; the
 * connections need Docker and are skipped, with the reason printed, where it is missing.
 */
class TestcontainersUrlTest {

    private static final String TAG = System.getenv().getOrDefault("FLUSHLESS_TC_POSTGRES_TAG", "16-alpine");
    /** Why the Docker tests are skipped, or {@code null} when Docker is available. */
    private static String skipped;

    @BeforeAll
    static void checkDocker() {
        boolean docker;
        String why = "";
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            docker = false;
            why = " (" + e + ")";
        }
        if (!docker) {
            skipped =
                    "Testcontainers jdbc:flushless:tc: connection tests skipped: Docker is not available on this machine"
                            + why + "; they need Docker to start postgres:" + TAG + ".";
            System.out.println(skipped);
        }
    }

    @Test
    void aJdbcTcUrlIsOpenedByTestcontainersContainerDatabaseDriver() throws Exception {
        String url = "jdbc:flushless:tc:postgresql:" + TAG + ":///shop?flushless.mode=transaction";
        assertSame(FlushlessDriver.class, DriverManager.getDriver(url).getClass());
        assertEquals(
                "org.testcontainers.jdbc.ContainerDatabaseDriver",
                FlushlessDriver.delegateFor("jdbc:tc:postgresql:" + TAG + ":///shop")
                        .getClass()
                        .getName());
    }

    @Test
    void transactionModeThroughATestcontainersPostgres() throws Exception {
        Assumptions.assumeTrue(skipped == null, skipped);
        String url = "jdbc:flushless:tc:postgresql:" + TAG + ":///shop?flushless.mode=transaction";
        try (Connection connection = DriverManager.getConnection(url)) {
            // getURL() is the container's pgjdbc URL (ContainerDatabaseDriver connects with pgjdbc).
            assertTrue(
                    connection.getMetaData().getURL().startsWith("jdbc:postgresql://"),
                    connection.getMetaData().getURL());
            writeOneTransaction(connection);
        }
    }

    /** The Docker test's body, on the embedded server: what it asserts holds for a transaction-mode connection. */
    @Test
    @ExtendWith(PostgresExtension.class)
    void theSameTransactionOnTheEmbeddedServer(TestDatabase db) throws Exception {
        try (Connection connection = db.flushless("transaction")) {
            writeOneTransaction(connection);
        }
    }

    /** 50 single-row INSERTs in one transaction: one round trip in transaction mode, every row stored. */
    private static void writeOneTransaction(Connection connection) throws Exception {
        assertTrue(connection.isWrapperFor(FlushlessConnection.class));
        try (Statement s = connection.createStatement()) {
            s.execute("CREATE TABLE item (id int PRIMARY KEY, name text NOT NULL)");
        }
        FlushlessReport before = connection.unwrap(FlushlessConnection.class).report();
        connection.setAutoCommit(false);
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO item (id, name) VALUES (?, ?)")) {
            for (int i = 1; i <= 50; i++) {
                insert.setInt(1, i);
                insert.setString(2, "item " + i);
                assertEquals(1, insert.executeUpdate());
            }
        }
        connection.commit();
        FlushlessReport after = connection.unwrap(FlushlessConnection.class).report();
        assertEquals(1, after.roundTrips() - before.roundTrips(), "the whole transaction in one round trip");
        connection.setAutoCommit(true);
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT count(*), sum(id) FROM item")) {
            rs.next();
            assertEquals(50, rs.getInt(1));
            assertEquals(50 * 51 / 2, rs.getInt(2));
        }
    }

    @Test
    void flywayByATestcontainersFlushlessUrl() {
        Assumptions.assumeTrue(skipped == null, skipped);
        MigrateResult result = Flyway.configure()
                .dataSource("jdbc:flushless:tc:postgresql:" + TAG + ":///flyway?flushless.mode=transaction", null, null)
                .locations("classpath:flyway/shop")
                .load()
                .migrate();
        assertTrue(result.success);
        assertEquals(7, result.migrationsExecuted);
    }
}
