package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.PGStatement;

/** The driver's URL handling, settings, delegation and wrapper identities. */
@ExtendWith(PostgresExtension.class)
class FlushlessDriverTest {

    @Test
    void registeredWithDriverManagerAndAcceptsOnlyItsPrefix() throws SQLException {
        Driver driver = DriverManager.getDriver("jdbc:flushless:postgresql://localhost/x");
        assertInstanceOf(FlushlessDriver.class, driver);
        assertTrue(driver.acceptsURL("jdbc:flushless:postgresql://h/db"));
        assertFalse(driver.acceptsURL("jdbc:postgresql://h/db"));
        assertFalse(driver.acceptsURL(null));
    }

    @Test
    void connectReturnsNullForOtherUrls() throws SQLException {
        assertNull(new FlushlessDriver().connect("jdbc:postgresql://localhost/x", new Properties()));
        assertNull(new FlushlessDriver().connect("jdbc:mysql://localhost/x", new Properties()));
    }

    @Test
    void unknownSubprotocolNamesTheUrlAndTheRegisteredDrivers() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection("jdbc:flushless:nosuchdb://localhost/x?password=secret"));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("jdbc:nosuchdb://localhost/x"), e.getMessage());
        assertTrue(e.getMessage().contains("org.postgresql.Driver"), e.getMessage());
        assertTrue(e.getMessage().contains("dev.flushless.jdbc.FlushlessDriver"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), "the message must not leak the query string");
    }

    @Test
    void badModeValueNamesKeyValueAndChoices(TestDatabase db) {
        SQLException e = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(db.flushlessUrl("flushless.mode=turbo"), db.credentials()));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("flushless.mode"), e.getMessage());
        assertTrue(e.getMessage().contains("'turbo'"), e.getMessage());
        assertTrue(e.getMessage().contains("off, batch, transaction"), e.getMessage());
    }

    @Test
    void wholeNumberSettingsAreValidatedWithTheirRange(TestDatabase db) {
        for (String value : new String[] {"0", "70000", "many"}) {
            SQLException e = assertThrows(
                    SQLException.class,
                    () -> DriverManager.getConnection(
                            db.flushlessUrl("flushless.maxRowsPerStatement=" + value), db.credentials()));
            assertEquals("22023", e.getSQLState());
            assertTrue(e.getMessage().contains("flushless.maxRowsPerStatement"), e.getMessage());
            assertTrue(e.getMessage().contains("'" + value + "'"), e.getMessage());
            assertTrue(e.getMessage().contains("whole numbers from 1 to 65535"), e.getMessage());
        }
        SQLException bool = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(db.flushlessUrl("flushless.trustTriggers=yes"), db.credentials()));
        assertTrue(bool.getMessage().contains("true, false"), bool.getMessage());
        SQLException exact = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(db.flushlessUrl("flushless.exactSequences=1"), db.credentials()));
        assertEquals("22023", exact.getSQLState());
        assertTrue(
                exact.getMessage().contains("flushless.exactSequences")
                        && exact.getMessage().contains("'1'")
                        && exact.getMessage().contains("true, false"),
                exact.getMessage());
    }

    @Test
    void unknownFlushlessKeyIsAnErrorNamingIt(TestDatabase db) {
        Properties properties = db.credentials();
        properties.setProperty("flushless.mdoe", "off");
        SQLException e =
                assertThrows(SQLException.class, () -> DriverManager.getConnection(db.flushlessUrl(), properties));
        assertEquals("22023", e.getSQLState());
        assertTrue(e.getMessage().contains("'flushless.mdoe'"), e.getMessage());
        assertTrue(e.getMessage().contains("value 'off'"), e.getMessage());
        assertTrue(e.getMessage().contains("flushless.mode"), e.getMessage());

        SQLException fromUrl = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(db.flushlessUrl("flushless.batchsize=3"), db.credentials()));
        assertTrue(fromUrl.getMessage().contains("'flushless.batchsize'"), fromUrl.getMessage());
    }

    @Test
    void settingsFromPropertiesAndUrlWithUrlWinning(TestDatabase db) throws SQLException {
        Properties properties = db.credentials();
        properties.setProperty("flushless.mode", "off");
        try (Connection c = DriverManager.getConnection(db.flushlessUrl(), properties)) {
            assertEquals(
                    FlushlessConfig.Mode.OFF,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
        }
        try (Connection c = DriverManager.getConnection(db.flushlessUrl("flushless.mode=TRANSACTION"), properties)) {
            assertEquals(
                    FlushlessConfig.Mode.TRANSACTION,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
        }
        try (Connection c = DriverManager.getConnection(db.flushlessUrl(), db.credentials())) {
            assertEquals(
                    FlushlessConfig.Mode.BATCH,
                    c.unwrap(FlushlessConnection.class).flushlessConfig().mode(),
                    "batch is the default");
        }
    }

    @Test
    void flushlessKeysAreStrippedBeforeTheDelegateSeesThem(TestDatabase db) throws SQLException {
        Properties properties = db.credentials();
        properties.setProperty("flushless.mode", "off");
        properties.setProperty("ApplicationName", "from-properties");
        String url = db.flushlessUrl("flushless.mode=batch&options=-c%20statement_timeout%3D12345");
        try (Connection c = DriverManager.getConnection(url, properties)) {
            String pgUrl = c.getMetaData().getURL();
            assertFalse(pgUrl.contains("flushless."), "delegate saw a flushless key: " + pgUrl);
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery(
                            "SELECT current_setting('statement_timeout'), current_setting('application_name')")) {
                rs.next();
                assertEquals("12345ms", rs.getString(1), "other URL parameters must reach pgjdbc untouched");
                assertEquals("from-properties", rs.getString(2), "other properties must reach pgjdbc untouched");
            }
        }
    }

    @Test
    void prefixIsStrippedByPositionNotByReplace() throws SQLException {
        ConnectionTarget target = ConnectionTarget.parse(
                "jdbc:flushless:postgresql://h/jdbc:flushless:db?ApplicationName=jdbc:flushless:&flushless.mode=off&x=1",
                new Properties());
        assertEquals("jdbc:postgresql://h/jdbc:flushless:db?ApplicationName=jdbc:flushless:&x=1", target.delegateUrl);
        assertEquals(FlushlessConfig.Mode.OFF, target.config.mode());
        assertEquals(
                "jdbc:postgresql://h/db",
                ConnectionTarget.parse("jdbc:flushless:postgresql://h/db?flushless.mode=off", null).delegateUrl);
    }

    @Test
    void propertiesWithoutFlushlessKeysPassThroughAsTheSameObject() throws SQLException {
        Properties info = new Properties();
        info.setProperty("user", "u");
        assertSame(info, ConnectionTarget.parse("jdbc:flushless:postgresql://h/db", info).delegateProperties);
        info.setProperty("flushless.mode", "off");
        Properties stripped = ConnectionTarget.parse("jdbc:flushless:postgresql://h/db", info).delegateProperties;
        assertEquals("u", stripped.getProperty("user"));
        assertNull(stripped.getProperty("flushless.mode"));
        assertEquals("off", info.getProperty("flushless.mode"), "the caller's Properties must not be modified");
    }

    @Test
    void propertyInfoListsFlushlessAndPgjdbcProperties() throws SQLException {
        DriverPropertyInfo[] infos = new FlushlessDriver().getPropertyInfo("jdbc:flushless:postgresql://h/db", null);
        DriverPropertyInfo mode = Arrays.stream(infos)
                .filter(i -> i.name.equals("flushless.mode"))
                .findFirst()
                .orElseThrow();
        assertEquals("batch", mode.value);
        assertEquals(Arrays.asList("off", "batch", "transaction"), Arrays.asList(mode.choices));
        assertTrue(
                Arrays.stream(infos).anyMatch(i -> i.name.equals("reWriteBatchedInserts")), "pgjdbc's properties too");
        assertEquals(0, new FlushlessDriver().getPropertyInfo("jdbc:postgresql://h/db", null).length);
    }

    @Test
    void wrappersLeadBackToEachOtherAndUnwrapReachesPgjdbc(TestDatabase db) throws SQLException {
        try (Connection c = DriverManager.getConnection(db.flushlessUrl(), db.credentials())) {
            assertTrue(c.toString().startsWith("Flushless[mode=batch] wrapping "), c.toString());
            assertTrue(c.isWrapperFor(PGConnection.class));
            assertInstanceOf(PGConnection.class, c.unwrap(PGConnection.class));
            assertSame(c, c.unwrap(Connection.class));
            assertSame(c, c.unwrap(FlushlessConnection.class));
            DatabaseMetaData md = c.getMetaData();
            assertSame(c, md.getConnection());
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT 1")) {
                assertSame(c, s.getConnection());
                assertSame(s, rs.getStatement());
                assertSame(rs, s.getResultSet());
                assertInstanceOf(PGStatement.class, s.unwrap(PGStatement.class));
                assertEquals(s.unwrap(PGStatement.class).toString(), s.toString(), "pgjdbc's own rendering");
            }
            try (PreparedStatement ps = c.prepareStatement("SELECT ?::int", Statement.RETURN_GENERATED_KEYS)) {
                ps.setInt(1, 5);
                try (ResultSet rs = ps.executeQuery()) {
                    assertSame(ps, rs.getStatement());
                    assertSame(c, ps.getConnection());
                }
                assertTrue(ps.toString().contains("SELECT"), ps.toString());
            }
            try (var cs = c.prepareCall("{? = call upper(?)}")) {
                cs.registerOutParameter(1, java.sql.Types.VARCHAR);
                cs.setString(2, "abc");
                cs.execute();
                assertEquals("ABC", cs.getString(1));
                assertSame(c, cs.getConnection());
            }
        }
    }
}
