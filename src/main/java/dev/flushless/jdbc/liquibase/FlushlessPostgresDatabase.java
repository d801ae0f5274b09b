package dev.flushless.jdbc.liquibase;

import dev.flushless.jdbc.FlushlessDriver;
import java.util.List;
import liquibase.database.DatabaseConnection;
import liquibase.database.core.PostgresDatabase;

/**
 * Liquibase database plugin that names the Flushless driver for {@code jdbc:flushless:postgresql:},
 * {@code jdbc:flushless:yugabytedb:} and {@code jdbc:flushless:tc:postgresql:} (Testcontainers) URLs, so that Liquibase configured by URL (the command line, the Maven and
 * Gradle plugins, {@code CommandScope} with {@code url}) connects through {@link FlushlessDriver} without a
 * {@code driver} setting.
 *
 * <p>Liquibase chooses the JDBC driver from the URL ({@code DatabaseFactory.findDefaultDriver}: the first
 * registered database whose {@code getDefaultDriver(url)} answers) and the database implementation from the
 * opened connection ({@code isCorrectDatabaseImplementation}: product name and, for CockroachDB and EnterpriseDB,
 * the connection's URL and {@code select version()}). This class takes part only in the first. It never claims a
 * connection, so a Flushless connection gets Liquibase's {@code PostgresDatabase} (short name {@code postgresql},
 * so {@code dbms="postgresql"} changesets run), or whatever Liquibase would choose through pgjdbc. Its own short
 * name is {@code flushless}, so that it does not replace {@code PostgresDatabase} (Liquibase keeps one database per
 * short name).
 *
 * <p>Registered in {@code META-INF/services/liquibase.database.Database}; only Liquibase loads it, so the driver
 * needs no Liquibase on the classpath. Compiled against Liquibase 4.31; tested with 4.31 and 5.0.
 */
public class FlushlessPostgresDatabase extends PostgresDatabase {

    /** This plugin's short name (never the name of a connection's database). */
    public static final String SHORT_NAME = "flushless";

    /** The URL prefixes this plugin names the Flushless driver for. */
    static final List<String> URL_PREFIXES = List.of(
            FlushlessDriver.URL_PREFIX + "postgresql:",
            FlushlessDriver.URL_PREFIX + "yugabytedb:",
            FlushlessDriver.URL_PREFIX + "tc:postgresql:");

    @Override
    public String getDefaultDriver(String url) {
        if (url != null) {
            for (String prefix : URL_PREFIXES) {
                if (url.startsWith(prefix)) {
                    return FlushlessDriver.class.getName();
                }
            }
        }
        return null;
    }

    /** Never: connections, Flushless ones included, get the database Liquibase would choose through pgjdbc. */
    @Override
    public boolean isCorrectDatabaseImplementation(DatabaseConnection conn) {
        return false;
    }

    @Override
    public String getShortName() {
        return SHORT_NAME;
    }

    @Override
    protected String getDefaultDatabaseProductName() {
        return "PostgreSQL (Flushless)";
    }
}
