package dev.flushless.jdbc.spring;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Spring Boot integration costs applications without Spring nothing: only classes of
 * {@code dev.flushless.jdbc.spring} refer to Spring, and the driver loads (through {@code ServiceLoader}, as
 * {@code DriverManager} finds it) and connects with nothing but its own classes, pgjdbc and JSqlParser.
 */
@ExtendWith(PostgresExtension.class)
class DriverWithoutSpringTest {

    private static Path locationOf(Class<?> type) throws Exception {
        return Paths.get(
                type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    @Test
    void onlyTheSpringPackageRefersToSpring() throws Exception {
        Path classes = locationOf(FlushlessDriver.class);
        List<String> offenders = new ArrayList<>();
        List<String> springPackage = new ArrayList<>();
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String name = classes.relativize(file).toString().replace('\\', '/');
                // Class files name the types they use in their constant pool as org/springframework/...
                boolean refersToSpring = new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1)
                        .contains("org/springframework/");
                if (name.startsWith("dev/flushless/jdbc/spring/")) {
                    springPackage.add(name);
                } else if (refersToSpring) {
                    offenders.add(name);
                }
            }
        }
        assertTrue(offenders.isEmpty(), "classes outside dev.flushless.jdbc.spring refer to Spring: " + offenders);
        assertTrue(springPackage.size() >= 4, "the spring package was not found in " + classes);
    }

    @Test
    void loadsAndConnectsWithoutSpring(TestDatabase db) throws Exception {
        URL[] path = {
            locationOf(FlushlessDriver.class).toUri().toURL(),
            locationOf(org.postgresql.Driver.class).toUri().toURL(),
            locationOf(net.sf.jsqlparser.parser.CCJSqlParserUtil.class).toUri().toURL(),
        };
        try (URLClassLoader loader = new URLClassLoader("no-spring", path, ClassLoader.getPlatformClassLoader())) {
            assertThrows(
                    ClassNotFoundException.class,
                    () -> loader.loadClass("org.springframework.core.env.PropertySource"));
            Driver flushless = null;
            for (Driver driver : ServiceLoader.load(Driver.class, loader)) {
                if (driver.getClass().getName().equals(FlushlessDriver.class.getName())) {
                    flushless = driver;
                }
            }
            assertTrue(flushless != null, "FlushlessDriver is not registered through META-INF/services");
            assertTrue(flushless.getClass().getClassLoader() == loader);
            try (Connection c = flushless.connect(db.flushlessUrl(), db.credentials());
                    Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 7")) {
                assertTrue(rs.next());
                assertEquals(7, rs.getInt(1));
                assertEquals(
                        "dev.flushless.jdbc.wrapper.WrappedConnection",
                        c.getClass().getName());
                // A batch, so that the SQL analysis (JSqlParser) runs too.
                s.execute("CREATE TEMP TABLE no_spring (id int PRIMARY KEY)");
                try (PreparedStatement insert = c.prepareStatement("INSERT INTO no_spring (id) VALUES (?)")) {
                    for (int id = 1; id <= 3; id++) {
                        insert.setInt(1, id);
                        insert.addBatch();
                    }
                    assertArrayEquals(new int[] {1, 1, 1}, insert.executeBatch());
                }
            }
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
