package dev.flushless.jdbc.yugabyte;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.junit.jupiter.api.Assumptions;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;

/**
 * A single-node YugabyteDB in a container (Testcontainers, {@code yugabyted start}), for the container tests of each
 * release. Where no Docker engine answers, {@link #start} prints why and the tests are skipped; with
 * {@code FLUSHLESS_REQUIRE_DOCKER=true} (the CI workflow) they fail instead, so that a run meant to test YugabyteDB
 * cannot pass by skipping.
 */
final class YugabyteContainer implements AutoCloseable {

    /** The releases the container tests pin (docs/semantics.md, "Estimated YugabyteDB flushes", has their sources). */
    static final String IMAGE_2024_1 = "yugabytedb/yugabyte:2024.1.3.0-b105";

    static final String IMAGE_2024_2 = "yugabytedb/yugabyte:2024.2.6.2-b2";
    static final String IMAGE_2025_2 = "yugabytedb/yugabyte:2025.2.8.0-b60";
    /** The newest release whose build the release notes confirmed when this was written (June 2026). */
    static final String IMAGE_NEWEST = "yugabytedb/yugabyte:2026.1.0.0-b118";

    private final String image;
    private final GenericContainer<?> container;
    /** Why the tests are skipped, or {@code null} when the container runs. */
    private final String skipped;

    private YugabyteContainer(String image, GenericContainer<?> container, String skipped) {
        this.image = image;
        this.container = container;
        this.skipped = skipped;
    }

    /** The image of {@code variable} if set (another build of the release), else {@code pinned}. */
    static String image(String variable, String pinned) {
        String value = System.getenv(variable);
        return value == null || value.isBlank() ? pinned : value.trim();
    }

    /**
     * Starts {@code image}, or, without a Docker engine, prints why the tests of {@code what} are skipped (and fails
     * with {@code FLUSHLESS_REQUIRE_DOCKER=true}).
     */
    static YugabyteContainer start(String image, String what) {
        boolean docker;
        String why = "";
        try {
            docker = DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            docker = false;
            why = " (" + e + ")";
        }
        if (!docker) {
            String missing =
                    "Docker is not available on this machine" + why + "; they need Docker to start " + image + ".";
            if (Boolean.parseBoolean(System.getenv("FLUSHLESS_REQUIRE_DOCKER"))) {
                throw new IllegalStateException(
                        what + " cannot run: " + missing + " (FLUSHLESS_REQUIRE_DOCKER=true: failing, not skipping)");
            }
            String reason = what + " skipped: " + missing;
            System.out.println(reason);
            return new YugabyteContainer(image, null, reason);
        }
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse(image))
                .withCommand("bin/yugabyted", "start", "--background=false")
                .withExposedPorts(5433)
                .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(4)));
        container.start();
        System.out.println("[flushless tests] " + what + " on " + image);
        return new YugabyteContainer(image, container, null);
    }

    /** Skips the calling test when the container could not start. */
    void assumeRunning() {
        Assumptions.assumeTrue(skipped == null, skipped);
    }

    String image() {
        return image;
    }

    /** {@code jdbc:flushless:postgresql://host:port/yugabyte?parameters}. */
    String flushlessUrl(String parameters) {
        return "jdbc:flushless:postgresql://" + container.getHost() + ":" + container.getMappedPort(5433) + "/yugabyte"
                + (parameters == null || parameters.isEmpty() ? "" : "?" + parameters);
    }

    /** A bare pgjdbc connection ({@code parameters == null}) or a Flushless one with {@code parameters}. */
    Connection connect(String parameters) throws SQLException {
        Properties credentials = new Properties();
        credentials.setProperty("user", "yugabyte");
        credentials.setProperty("password", "yugabyte");
        String url = parameters == null
                ? "jdbc:" + flushlessUrl("").substring("jdbc:flushless:".length())
                : flushlessUrl(parameters);
        SQLException last = null;
        for (int attempt = 0; attempt < 90; attempt++) { // YSQL accepts connections a little after the port opens
            try {
                return DriverManager.getConnection(url, credentials);
            } catch (SQLException e) {
                last = e;
                try {
                    Thread.sleep(1000);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw last;
    }

    @Override
    public void close() {
        if (container != null) {
            container.stop();
        }
    }
}
