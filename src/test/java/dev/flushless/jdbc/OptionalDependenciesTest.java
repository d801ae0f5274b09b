package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.File;
import java.net.URL;
import java.net.URLClassLoader;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The driver works without any of its optional companions: Flyway, Liquibase and Micrometer are absent from a
 * class loader holding only this project's classes, pgjdbc and JSqlParser, and the driver, found through
 * {@code META-INF/services/java.sql.Driver}, still connects and coalesces a batch. (The Flyway and Liquibase
 * plugins in the same jar are loaded only by those tools' own ServiceLoaders.)
 */
@ExtendWith(PostgresExtension.class)
class OptionalDependenciesTest {

    /** The project's classes and its two required dependencies, from the test classpath. */
    private static URL[] runtimeClasspath() throws Exception {
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : classpath.split(File.pathSeparator)) {
            String normalised = entry.replace('\\', '/');
            boolean mainClasses = normalised.endsWith("/target/classes") || normalised.endsWith("/target/classes/");
            boolean required = normalised.contains("/org/postgresql/postgresql/")
                    || normalised.contains("/com/github/jsqlparser/");
            if (mainClasses || required) {
                urls.add(new File(entry).toURI().toURL());
            }
        }
        assertEquals(3, urls.size(), "target/classes, pgjdbc and JSqlParser in " + classpath);
        return urls.toArray(new URL[0]);
    }

    @Test
    void connectsAndCoalescesWithoutFlywayLiquibaseOrMicrometer(TestDatabase db) throws Exception {
        try (URLClassLoader loader = new URLClassLoader(runtimeClasspath(), ClassLoader.getPlatformClassLoader())) {
            for (String absent : new String[] {
                "org.flywaydb.core.Flyway",
                "liquibase.database.Database",
                "io.micrometer.core.instrument.MeterRegistry",
                "org.testcontainers.jdbc.ContainerDatabaseDriver"
            }) {
                assertThrows(ClassNotFoundException.class, () -> Class.forName(absent, false, loader), absent);
            }
            Driver flushless = null;
            for (Driver driver : ServiceLoader.load(Driver.class, loader)) {
                if (driver.getClass().getName().equals(FlushlessDriver.class.getName())) {
                    flushless = driver;
                }
            }
            assertTrue(
                    flushless != null && flushless.getClass().getClassLoader() == loader,
                    "FlushlessDriver from the isolated class loader");
            try (Connection connection = flushless.connect(db.flushlessUrl("flushless.mode=batch"), db.credentials());
                    Statement statement = connection.createStatement()) {
                statement.execute("CREATE TABLE optional_deps (id int PRIMARY KEY)");
                try (PreparedStatement insert = connection.prepareStatement("INSERT INTO optional_deps VALUES (?)")) {
                    for (int i = 1; i <= 100; i++) {
                        insert.setInt(1, i);
                        insert.addBatch();
                    }
                    insert.executeBatch();
                }
                try (ResultSet rs = statement.executeQuery("SELECT count(*) FROM optional_deps")) {
                    rs.next();
                    assertEquals(100, rs.getInt(1));
                }
                Object report = connection.getClass().getMethod("report").invoke(connection);
                assertTrue(
                        report.toString().contains("rewrites={")
                                && !report.toString().contains("rewrites={}"),
                        "the batch was coalesced: " + report);
            }
        }
    }
}
