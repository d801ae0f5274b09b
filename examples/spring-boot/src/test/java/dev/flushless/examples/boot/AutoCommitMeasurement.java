package dev.flushless.examples.boot;

import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Not part of the suite (no Test suffix): measures what the old example's tip
 * ({@code spring.datasource.hikari.auto-commit=false} with Hibernate's
 * {@code provider_disables_autocommit=true}) changes for the shop's workload, in client round trips (counted on
 * pgjdbc's socket) and server statements (pg_stat_statements), on bare pgjdbc and Flushless's modes. Run with
 * {@code mvn -B -f examples/spring-boot/pom.xml test -Dtest=AutoCommitMeasurement}.
 *
 * <p>Measured (embedded PostgreSQL 18, Boot 3.5.16, pool of 2 opened before counting; round trips, statements):
 * bare pgjdbc 347, 671 by default and 347, 670 with the tip; off 346, 671 / 347, 670; batch 349, 385 / 349, 384;
 * transaction 288, 354 / 288, 353. The tip saves no round trip (pgjdbc's {@code setAutoCommit} sends nothing: BEGIN
 * goes with the first statement, and switching back after COMMIT finds no open transaction) and one statement in
 * the whole workload, so the example no longer recommends it.
 */
class AutoCommitMeasurement {

    @Test
    void measure() throws Exception {
        List<String> lines = new ArrayList<>();
        for (String mode : List.of("bare", "off", "batch", "transaction")) {
            for (boolean tip : List.of(false, true)) {
                lines.add(measure(mode, tip));
            }
        }
        System.out.println("mode, auto-commit tip: round trips, server statements (calls)");
        lines.forEach(System.out::println);
    }

    private static String measure(String mode, boolean tip) throws Exception {
        String database = TestDatabases.create("ac_" + mode + (tip ? "_tip" : ""));
        String counter = mode + "-" + tip;
        String socket =
                "socketFactory=" + RoundTripCountingSocketFactory.class.getName() + "&socketFactoryArg=" + counter;
        String url = mode.equals("bare")
                ? database + "&" + socket
                : TestDatabases.flushless(database, "flushless.mode=" + mode + "&" + socket);
        try (Connection c = DriverManager.getConnection(database);
                Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
        }
        List<String> args = new ArrayList<>(List.of(
                "--server.port=0",
                "--spring.datasource.url=" + url,
                "--spring.datasource.username=" + TestDatabases.user(database),
                // A fixed pool, opened before counting: connection start-ups are not the workload's.
                "--spring.datasource.hikari.maximum-pool-size=2",
                "--spring.datasource.hikari.minimum-idle=2"));
        if (tip) {
            args.add("--spring.datasource.hikari.auto-commit=false");
            args.add("--spring.jpa.properties.hibernate.connection.provider_disables_autocommit=true");
        }
        try (ConfigurableApplicationContext context =
                new SpringApplicationBuilder(ShopApplication.class).run(args.toArray(String[]::new))) {
            javax.sql.DataSource pool = context.getBean(javax.sql.DataSource.class);
            try (Connection first = pool.getConnection();
                    Connection second = pool.getConnection()) {
                first.isValid(1);
                second.isValid(1);
            }
            long callsBefore = calls(database);
            long tripsBefore = RoundTripCountingSocketFactory.counter(counter).roundTrips();
            Workload.run(context);
            long trips = RoundTripCountingSocketFactory.counter(counter).roundTrips() - tripsBefore;
            long calls = calls(database) - callsBefore;
            return mode + ", " + (tip ? "auto-commit=false" : "default") + ": " + trips + ", " + calls;
        }
    }

    /** Statements the server ran in {@code database} so far (pg_stat_statements counts BEGIN and COMMIT too). */
    private static long calls(String database) throws SQLException {
        try (Connection c = DriverManager.getConnection(database);
                Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(sum(calls), 0) FROM pg_stat_statements"
                        + " WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())"
                        + " AND query NOT LIKE '%pg_stat_statements%'")) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
