package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.postgresql.PGConnection;
import org.postgresql.ds.PGSimpleDataSource;

/** {@link FlushlessDataSource} as a wrapper, as a URL-configured bean and under HikariCP; COPY through unwrap. */
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
            assertEquals(FlushlessConfig.Mode.BATCH, c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            assertEquals(1, queryInt(c, "SELECT 1"));
        }
        assertSame(pg, ds.unwrap(PGSimpleDataSource.class));
        assertTrue(ds.isWrapperFor(PGSimpleDataSource.class));

        Properties settings = new Properties();
        settings.setProperty("flushless.mode", "off");
        try (Connection c = new FlushlessDataSource(pg, settings).getConnection()) {
            assertEquals(FlushlessConfig.Mode.OFF, c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
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
            assertEquals(FlushlessConfig.Mode.OFF, c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
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
        try (HikariDataSource pool = new HikariDataSource(config); Connection c = pool.getConnection()) {
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
        try (HikariDataSource pool = new HikariDataSource(config); Connection c = pool.getConnection()) {
            assertEquals(FlushlessConfig.Mode.OFF, c.unwrap(FlushlessConnection.class).flushlessConfig().mode());
            assertEquals(4, queryInt(c, "SELECT 4"));
        }
    }

    @Test
    void copyManagerCopiesRowsInThroughAFlushlessConnection(TestDatabase db) throws Exception {
        db.execute("CREATE TABLE copy_target (id int PRIMARY KEY, name text)");
        try (Connection c = db.flushless("batch")) {
            long copied = c.unwrap(PGConnection.class).getCopyAPI()
                    .copyIn("COPY copy_target FROM STDIN", new StringReader("1\tone\n2\ttwo\n3\tthree\n"));
            assertEquals(3, copied);
        }
        assertEquals(java.util.List.of(java.util.List.of("3", "one,three,two")),
                db.rows("SELECT count(*), string_agg(name, ',' ORDER BY name) FROM copy_target"));
    }

    private static int queryInt(Connection c, String sql) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }
}
