package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.beans.BeanInfo;
import java.beans.Introspector;
import java.beans.PropertyDescriptor;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * {@link FlushlessDataSource} as a wrapper, as a URL-configured bean and under HikariCP; a setter and getter for
 * every {@link FlushlessProperty} (as pgjdbc's {@code PGPropertyTest} checks {@code PGSimpleDataSource}); COPY
 * through unwrap.
 */
@ExtendWith(PostgresExtension.class)
class FlushlessDataSourceTest {

    @Test
    void wrapsAnyDataSource(TestDatabase db) throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setURL(db.pgjdbcUrl());
        if (db.credentials().getProperty("user") != null) { // else the URL's user (setUser(null) would drop it)
            pg.setUser(db.credentials().getProperty("user"));
        }
        FlushlessDataSource ds = new FlushlessDataSource(pg);
        try (Connection c = ds.getConnection()) {
            assertEquals(
                    FlushlessConfig.Mode.BATCH,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            assertEquals(1, queryInt(c, "SELECT 1"));
        }
        assertSame(pg, ds.unwrap(PGSimpleDataSource.class));
        assertTrue(ds.isWrapperFor(PGSimpleDataSource.class));

        Properties settings = new Properties();
        settings.setProperty("flushless.mode", "off");
        try (Connection c = new FlushlessDataSource(pg, settings).getConnection()) {
            assertEquals(
                    FlushlessConfig.Mode.OFF,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
        }
        settings.setProperty("flushless.mode", "fast");
        SQLException bad = assertThrows(SQLException.class, () -> new FlushlessDataSource(pg, settings));
        assertEquals("22023", bad.getSQLState());
        assertTrue(bad.getMessage().contains("'fast'"), bad.getMessage());
    }

    @Test
    void configuredByUrl(TestDatabase db) throws SQLException {
        FlushlessDataSource ds = new FlushlessDataSource();
        ds.setUrl(db.flushlessUrl("flushless.mode=off"));
        ds.setUser(db.credentials().getProperty("user"));
        try (Connection c = ds.getConnection()) {
            assertEquals(
                    FlushlessConfig.Mode.OFF,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            assertEquals(2, queryInt(c, "SELECT 2"));
        }
    }

    @Test
    void missingOrForeignUrlIsAClearError() {
        FlushlessDataSource ds = new FlushlessDataSource();
        SQLException none = assertThrows(SQLException.class, ds::getConnection);
        assertTrue(none.getMessage().contains("setUrl"), none.getMessage());
        ds.setUrl("jdbc:postgresql://localhost/db");
        SQLException foreign = assertThrows(SQLException.class, ds::getConnection);
        assertTrue(foreign.getMessage().contains("must start with jdbc:flushless:"), foreign.getMessage());
    }

    @Test
    void hikariDataSourceClassName(TestDatabase db) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setDataSourceClassName(FlushlessDataSource.class.getName());
        config.addDataSourceProperty("url", db.flushlessUrl());
        if (db.credentials().getProperty("user") != null) {
            config.addDataSourceProperty("user", db.credentials().getProperty("user"));
        }
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config);
                Connection c = pool.getConnection()) {
            assertTrue(c.isWrapperFor(FlushlessConnection.class));
            assertInstanceOf(PGConnection.class, c.unwrap(PGConnection.class));
            assertEquals(3, queryInt(c, "SELECT 3"));
        }
    }

    @Test
    void hikariJdbcUrl(TestDatabase db) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(db.flushlessUrl("flushless.mode=off"));
        config.setDataSourceProperties(db.credentials());
        config.setMaximumPoolSize(2);
        try (HikariDataSource pool = new HikariDataSource(config);
                Connection c = pool.getConnection()) {
            assertEquals(
                    FlushlessConfig.Mode.OFF,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            assertEquals(4, queryInt(c, "SELECT 4"));
        }
    }

    @Test
    void copyManagerCopiesRowsInThroughAFlushlessConnection(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE copy_target (id int PRIMARY KEY, name text)");
        try (Connection c = db.flushless("batch")) {
            long copied = c.unwrap(PGConnection.class)
                    .getCopyAPI()
                    .copyIn("COPY copy_target FROM STDIN", new StringReader("1\tone\n2\ttwo\n3\tthree\n"));
            assertEquals(3, copied);
        }
        assertEquals(
                java.util.List.of(java.util.List.of("3", "one,three,two")),
                db.rows("SELECT count(*), string_agg(name, ',' ORDER BY name) FROM copy_target"));
    }

    /** The data source's bean properties, by name. */
    private static Map<String, PropertyDescriptor> beanProperties() throws Exception {
        BeanInfo info = Introspector.getBeanInfo(FlushlessDataSource.class);
        Map<String, PropertyDescriptor> properties = new TreeMap<>();
        for (PropertyDescriptor descriptor : info.getPropertyDescriptors()) {
            properties.put(descriptor.getName(), descriptor);
        }
        return properties;
    }

    @Test
    void everyPropertyHasASetterAndAGetter() throws Exception {
        Map<String, PropertyDescriptor> beans = beanProperties();
        for (FlushlessProperty property : FlushlessProperty.values()) {
            String name = property.beanName();
            PropertyDescriptor bean = beans.get(name);
            assertNotNull(bean, "FlushlessDataSource has no bean property " + name + " for " + property.key());
            assertNotNull(bean.getWriteMethod(), "FlushlessDataSource has no setter for " + property.key());
            assertNotNull(bean.getReadMethod(), "FlushlessDataSource has no getter for " + property.key());
            assertEquals(property.beanType(), bean.getPropertyType(), property.key());
        }
        assertEquals("mode", FlushlessProperty.MODE.beanName());
        assertEquals("groupCommitMaxDelayMicros", FlushlessProperty.GROUP_COMMIT_MAX_DELAY_MICROS.beanName());
        assertEquals(
                "setGroupCommitMaxRows",
                beans.get(FlushlessProperty.GROUP_COMMIT_MAX_ROWS.beanName())
                        .getWriteMethod()
                        .getName());
    }

    /**
     * A valid value of {@code property} other than its default, as the text a URL would carry (parseCacheSize 2049
     * sizes the driver-wide cache if this happens to be the JVM's first connection: harmless).
     */
    private static String otherValue(FlushlessProperty property) throws SQLException {
        for (String choice : property.choices()) {
            if (!choice.equals(property.defaultValue())) {
                return choice;
            }
        }
        if (property.isText()) {
            return "127.0.0.1:1"; // flushless.replicas: a replica that cannot be reached is skipped with a warning
        }
        int base = Integer.parseInt(property.defaultValue());
        for (int candidate : new int[] {base + 1, base - 1}) {
            try {
                return property.validate(Integer.toString(candidate));
            } catch (SQLException outOfRange) {
                // try the other side
            }
        }
        throw new AssertionError("no value other than the default for " + property.key());
    }

    private static Object asBeanValue(FlushlessProperty property, String text) {
        if (property.beanType() == int.class) {
            return Integer.parseInt(text);
        }
        return property.beanType() == boolean.class ? (Object) Boolean.parseBoolean(text) : text;
    }

    /** Sets every property to a value other than its default through its setter, checking the getter. */
    private static Properties setEveryProperty(FlushlessDataSource ds) throws Exception {
        Map<String, PropertyDescriptor> beans = beanProperties();
        Properties expected = new Properties();
        for (FlushlessProperty property : FlushlessProperty.values()) {
            PropertyDescriptor bean = beans.get(property.beanName());
            Object before = bean.getReadMethod().invoke(ds);
            assertEquals(asBeanValue(property, property.defaultValue()), before, "default of " + property.key());
            String text = otherValue(property);
            bean.getWriteMethod().invoke(ds, asBeanValue(property, text));
            assertEquals(asBeanValue(property, text), bean.getReadMethod().invoke(ds), property.key());
            expected.setProperty(property.key(), text);
        }
        return expected;
    }

    private static void assertConfigured(Properties expected, Connection c) throws SQLException {
        FlushlessConfig config = c.unwrap(FlushlessConnection.class).flushlessConfig();
        FlushlessConfig wanted = FlushlessConfig.from(expected);
        for (FlushlessProperty property : FlushlessProperty.values()) {
            assertEquals(wanted.value(property), config.value(property), property.key());
            assertNotEquals(FlushlessConfig.defaults().value(property), config.value(property), property.key());
        }
    }

    @Test
    void everySetterReachesTheConnectionsConfiguration(TestDatabase db) throws Exception {
        FlushlessDataSource byUrl = new FlushlessDataSource();
        byUrl.setUrl(db.flushlessDefaultsUrl()); // the URL wins over setters: no pinned settings in it
        byUrl.setUser(db.credentials().getProperty("user"));
        Properties expected = setEveryProperty(byUrl);
        try (Connection c = byUrl.getConnection()) {
            assertConfigured(expected, c);
            assertEquals(5, queryInt(c, "SELECT 5"));
        }

        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setURL(db.pgjdbcUrl());
        if (db.credentials().getProperty("user") != null) {
            pg.setUser(db.credentials().getProperty("user"));
        }
        FlushlessDataSource wrapping = new FlushlessDataSource(pg);
        try (Connection c = wrapping.getConnection()) {
            assertEquals(
                    FlushlessConfig.Mode.BATCH,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
        }
        assertEquals(expected, setEveryProperty(wrapping));
        try (Connection c = wrapping.getConnection()) {
            assertConfigured(expected, c);
        }
    }

    @Test
    void settersAfterWrappingWithPropertiesAndBadValues(TestDatabase db) throws SQLException {
        PGSimpleDataSource pg = new PGSimpleDataSource();
        pg.setURL(db.pgjdbcUrl());
        if (db.credentials().getProperty("user") != null) {
            pg.setUser(db.credentials().getProperty("user"));
        }
        Properties settings = new Properties();
        settings.setProperty("flushless.mode", " OFF ");
        settings.setProperty("flushless.maxRowsPerStatement", " 17 ");
        FlushlessDataSource ds = new FlushlessDataSource(pg, settings);
        assertEquals("off", ds.getMode());
        assertEquals(17, ds.getMaxRowsPerStatement());
        ds.setMode("transaction");
        try (Connection c = ds.getConnection()) {
            FlushlessConfig config = c.unwrap(FlushlessConnection.class).flushlessConfig();
            assertEquals(FlushlessConfig.Mode.TRANSACTION, config.mode());
            assertEquals(17, config.maxRowsPerStatement());
        }
        ds.setMode(null);
        assertEquals("batch", ds.getMode(), "null resets to the default");

        ds.setMaxRowsPerStatement(0);
        SQLException bad = assertThrows(SQLException.class, ds::getConnection);
        assertEquals("22023", bad.getSQLState());
        assertTrue(
                bad.getMessage().contains("flushless.maxRowsPerStatement")
                        && bad.getMessage().contains("'0'"),
                bad.getMessage());
        ds.setMaxRowsPerStatement(100);
        try (Connection c = ds.getConnection(db.credentials().getProperty("user"), null)) {
            assertEquals(
                    100, c.unwrap(FlushlessConnection.class).flushlessConfig().maxRowsPerStatement());
        }

        FlushlessDataSource byUrl = new FlushlessDataSource();
        byUrl.setUrl(db.flushlessDefaultsUrl()); // the URL wins over setters: no pinned settings in it
        byUrl.setUser(db.credentials().getProperty("user"));
        byUrl.setOnConflict("sometimes");
        SQLException badChoice = assertThrows(SQLException.class, byUrl::getConnection);
        assertEquals("22023", badChoice.getSQLState());
        assertTrue(badChoice.getMessage().contains("'sometimes'"), badChoice.getMessage());
    }

    @Test
    void urlSettingWinsOverTheSetter(TestDatabase db) throws SQLException {
        FlushlessDataSource ds = new FlushlessDataSource();
        ds.setUrl(db.flushlessUrl("flushless.mode=off"));
        ds.setUser(db.credentials().getProperty("user"));
        ds.setMode("transaction");
        ds.setMaxRowsPerStatement(33);
        try (Connection c = ds.getConnection()) {
            FlushlessConfig config = c.unwrap(FlushlessConnection.class).flushlessConfig();
            assertEquals(FlushlessConfig.Mode.OFF, config.mode());
            assertEquals(33, config.maxRowsPerStatement());
        }
    }

    @Test
    void hikariDataSourcePropertiesCallTheSetters(TestDatabase db) throws SQLException {
        HikariConfig config = new HikariConfig();
        config.setDataSourceClassName(FlushlessDataSource.class.getName());
        config.addDataSourceProperty("url", db.flushlessUrl());
        if (db.credentials().getProperty("user") != null) {
            config.addDataSourceProperty("user", db.credentials().getProperty("user"));
        }
        config.addDataSourceProperty("mode", "transaction");
        config.addDataSourceProperty("maxRowsPerStatement", "250");
        config.addDataSourceProperty("trustTriggers", "true");
        config.setMaximumPoolSize(1);
        try (HikariDataSource pool = new HikariDataSource(config);
                Connection c = pool.getConnection()) {
            FlushlessConfig flushless = c.unwrap(FlushlessConnection.class).flushlessConfig();
            assertEquals(FlushlessConfig.Mode.TRANSACTION, flushless.mode());
            assertEquals(250, flushless.maxRowsPerStatement());
            assertTrue(flushless.trustTriggers());
        }
    }

    private static int queryInt(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
