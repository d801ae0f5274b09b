package dev.flushless.benchmarks;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;

/**
 * Entry point of {@code benchmarks.jar}: picks the target, then runs JMH with the remaining arguments.
 *
 * <pre>
 * java -jar benchmarks.jar [--url jdbc:postgresql://host:port/db?user=..] [--testcontainers postgres|yugabytedb]
 *                          [--counts FILE] [JMH options, e.g. -rf json -rff out.json W1 W2]
 * </pre>
 *
 * Default target: the embedded PostgreSQL 18 of the root project's tests ({@code pg_stat_statements}
 * preloaded), started once in this JVM; the forks reach it by URL. {@code --url}: any server, used as given
 * (the benchmarks create and drop their own tables there; server statements are counted when
 * {@code pg_stat_statements} is preloaded and the role may reset it). {@code --testcontainers}: a container,
 * when a Docker engine is reachable (YugabyteDB's image: {@code FLUSHLESS_YUGABYTE_IMAGE}, see
 * {@link #yugabyteImage()}); otherwise the run is skipped with the reason and exits 0, or 1 with
 * {@code FLUSHLESS_REQUIRE_DOCKER=true} (CI).
 */
public final class BenchMain {

    private BenchMain() {}

    public static void main(String[] args) throws Exception {
        String url = null;
        String container = null;
        String counts = null;
        List<String> jmh = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--url" -> url = args[++i];
                case "--testcontainers" -> container = args[++i];
                case "--counts" -> counts = args[++i];
                default -> jmh.add(args[i]);
            }
        }
        CommandLineOptions listing = new CommandLineOptions(jmh.toArray(new String[0]));
        if (listing.shouldHelp()
                || listing.shouldList()
                || listing.shouldListWithParams()
                || listing.shouldListProfilers()
                || listing.shouldListResultFormats()) {
            org.openjdk.jmh.Main.main(jmh.toArray(new String[0])); // -h, -l, -lp, -lprof, -lrf: no server, no run
            return;
        }
        GenericContainer<?> started = null;
        if (container != null) {
            String reason = dockerUnavailableReason();
            if (reason != null) {
                System.out.println("[flushless bench] SKIPPED --testcontainers " + container + ": " + reason);
                if (Boolean.parseBoolean(System.getenv("FLUSHLESS_REQUIRE_DOCKER"))) {
                    System.out.println("[flushless bench] FLUSHLESS_REQUIRE_DOCKER=true: failing, not skipping");
                    System.exit(1);
                }
                return;
            }
            started = startContainer(container);
            url = containerUrl(container, started);
        }
        if (url == null) {
            url = Targets.embedded();
        } else {
            System.out.println("[flushless bench] target: " + redact(url));
        }
        System.setProperty(Harness.URL_PROPERTY, url);
        if (counts == null) {
            counts = Path.of("benchmarks", "results", "counts.jsonl").toString();
        }
        System.setProperty(Harness.COUNTS_PROPERTY, counts);
        CommandLineOptions cmd = new CommandLineOptions(jmh.toArray(new String[0]));
        List<String> forkArgs = new ArrayList<>(List.of(
                "-D" + Harness.URL_PROPERTY + "=" + url,
                "-D" + Harness.COUNTS_PROPERTY + "=" + counts,
                "-Djava.awt.headless=true"));
        forkArgs.addAll(cmd.getJvmArgsAppend().orElse(List.of())); // the caller's -jvmArgsAppend (e.g. JFR) kept
        Options options = new OptionsBuilder()
                .parent(cmd)
                .jvmArgsAppend(forkArgs.toArray(new String[0]))
                .build();
        try {
            new Runner(options).run();
        } finally {
            if (started != null) {
                started.stop();
            }
        }
    }

    /** Null when Testcontainers can reach a Docker engine, else why not. */
    static String dockerUnavailableReason() {
        try {
            if (DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            return "no Docker engine is reachable (Testcontainers found no working DOCKER_HOST, socket or context);"
                    + " run against the embedded server (default) or --url instead";
        } catch (Throwable e) {
            return "no Docker engine is reachable (" + e + ")";
        }
    }

    private static GenericContainer<?> startContainer(String kind) {
        GenericContainer<?> c;
        switch (kind) {
            case "postgres" -> {
                c = new GenericContainer<>(System.getProperty("flushless.bench.postgresImage", "postgres:18"))
                        .withEnv("POSTGRES_PASSWORD", "postgres")
                        .withCommand(
                                "postgres",
                                "-c",
                                "shared_preload_libraries=pg_stat_statements",
                                "-c",
                                "max_connections=200")
                        .withExposedPorts(5432)
                        .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\n", 2));
            }
            case "yugabytedb" -> {
                c = new GenericContainer<>(yugabyteImage())
                        .withCommand("bin/yugabyted", "start", "--background=false")
                        .withExposedPorts(5433)
                        .waitingFor(Wait.forListeningPort().withStartupTimeout(Duration.ofMinutes(3)));
            }
            default -> throw new IllegalArgumentException("--testcontainers takes postgres or yugabytedb, not " + kind);
        }
        c.start();
        return c;
    }

    /**
     * The YugabyteDB image: {@code FLUSHLESS_YUGABYTE_IMAGE}, else {@code -Dflushless.bench.yugabyteImage}, else the
     * newest release the driver's container tests pin (YugabyteContainer.IMAGE_NEWEST in the driver's tests).
     */
    static String yugabyteImage() {
        String image = System.getenv("FLUSHLESS_YUGABYTE_IMAGE");
        if (image != null && !image.isBlank()) {
            return image.trim();
        }
        return System.getProperty("flushless.bench.yugabyteImage", "yugabytedb/yugabyte:2026.1.0.0-b118");
    }

    private static String containerUrl(String kind, GenericContainer<?> c) throws Exception {
        boolean pg = kind.equals("postgres");
        String admin = "jdbc:postgresql://" + c.getHost() + ":" + c.getMappedPort(pg ? 5432 : 5433) + "/"
                + (pg ? "postgres?user=postgres&password=postgres" : "yugabyte?user=yugabyte");
        try (Connection conn = DriverManager.getConnection(admin);
                Statement s = conn.createStatement()) {
            s.execute("CREATE DATABASE " + Targets.DATABASE);
        }
        return Targets.withDatabase(admin, Targets.DATABASE);
    }

    private static String redact(String url) {
        return url.replaceAll("(?i)(password=)[^&]*", "$1***");
    }
}
