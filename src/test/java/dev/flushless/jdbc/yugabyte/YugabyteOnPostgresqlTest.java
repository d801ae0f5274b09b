package dev.flushless.jdbc.yugabyte;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The YugabyteDB features where only PostgreSQL is at hand: detection from the reported version, follower reads
 * ignored on PostgreSQL (one warning, nothing sent), the follower-read settings' mechanism (read the previous
 * values and set new ones in one round trip, restore them) exercised with settings PostgreSQL has, and the
 * {@code jdbc:flushless:yugabytedb:} URL with and without a driver for it.
 */
@ExtendWith(PostgresExtension.class)
class YugabyteOnPostgresqlTest {

    @Test
    void yugabyteIsRecognisedByItsVersionString() {
        assertTrue(ServerFacts.isYugabyteVersion("11.2-YB-2024.1.2.0-b0"));
        assertTrue(ServerFacts.isYugabyteVersion("15.2-YB-2.25.1.0-b0"));
        assertFalse(ServerFacts.isYugabyteVersion("18.1"));
        assertFalse(ServerFacts.isYugabyteVersion(null));
        assertFalse(ServerFacts.ofVersion("16.4 (Debian 16.4-1)").yugabyte());
        assertTrue(ServerFacts.ofVersion("11.2-YB-2024.1.2.0-b0").yugabyte());
    }

    @Test
    void onConflictBatchingNeedsABatchOfMoreThanOneRow() {
        assertFalse(ServerFacts.batchesOnConflict(null), "release without the setting");
        assertFalse(ServerFacts.batchesOnConflict(""));
        assertFalse(ServerFacts.batchesOnConflict("0"), "turned off");
        assertFalse(ServerFacts.batchesOnConflict("1"), "the first releases' default: off");
        assertTrue(ServerFacts.batchesOnConflict("1024"));
        assertFalse(ServerFacts.batchesOnConflict("many"));
    }

    @Test
    void onPostgresqlAutoIsNativeAndNothingIsAsked(TestDatabase db) throws Exception {
        try (Connection c = db.flushless("batch")) {
            ServerFacts facts = ServerFacts.of((Connection) c.unwrap(org.postgresql.PGConnection.class));
            assertFalse(facts.yugabyte(), facts.toString());
            assertFalse(facts.autoAntiJoin(null), "on PostgreSQL nothing is sent (a null connection would fail)");
        }
    }

    @Test
    void followerReadsOnPostgresqlWarnOncePerConnectionAndSendNothing(TestDatabase db) throws Exception {
        db.assumeStatementStats();
        List<LogRecord> records = new ArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                synchronized (records) {
                    records.add(record);
                }
            }

            @Override
            public void flush() {}

            @Override
            public void close() {}
        };
        Logger logger = Logger.getLogger("dev.flushless.jdbc");
        logger.addHandler(capture);
        try {
            db.resetStatementCounts();
            Properties properties = db.credentials();
            properties.putAll(RoundTripCountingSocketFactory.properties("follower-reads"));
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter("follower-reads");
            try (Connection c =
                    DriverManager.getConnection(db.flushlessUrl("flushless.followerReads=5000"), properties)) {
                assertEquals(
                        5000,
                        c.unwrap(FlushlessConnection.class).flushlessConfig().followerReadsStalenessMs());
                socket.reset();
                c.setReadOnly(true);
                c.setReadOnly(false);
                c.setAutoCommit(false);
                c.setReadOnly(true);
                assertEquals(0, socket.roundTrips(), "setReadOnly sends nothing of its own");
                try (Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT 1")) {
                    rs.next();
                }
                c.commit();
                c.setReadOnly(false);
            }
            List<LogRecord> warnings = new ArrayList<>();
            synchronized (records) {
                for (LogRecord record : records) {
                    if (record.getLevel() == Level.WARNING
                            && record.getMessage().contains("flushless.followerReads")) {
                        warnings.add(record);
                    }
                }
            }
            assertEquals(1, warnings.size(), "one warning for the connection: " + warnings);
            assertTrue(
                    warnings.get(0).getMessage().contains("not YugabyteDB"),
                    warnings.get(0).getMessage());
            assertEquals(0, db.statementCount("%yb_%"), "no YugabyteDB setting was sent");
            assertEquals(0, db.statementCount("%set_config%"));
            assertEquals(0, db.statementCount("%default_transaction_read_only%"));
        } finally {
            logger.removeHandler(capture);
        }
    }

    @Test
    void followerReadsSetAndRestoreTheSessionSettingsInOneRoundTripEach(TestDatabase db) throws Exception {
        String[] names = {"application_name", "statement_timeout", "default_transaction_read_only"};
        FollowerReads settings = new FollowerReads(names, new String[] {"follower", "1234", "on"});
        Properties properties = db.credentials();
        properties.putAll(RoundTripCountingSocketFactory.properties("follower-settings"));
        RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter("follower-settings");
        try (Connection c = DriverManager.getConnection(db.pgjdbcUrl(), properties)) {
            try (Statement s = c.createStatement()) {
                s.execute("SET application_name = 'mine'");
            }
            c.setAutoCommit(false);
            socket.reset();
            settings.readOnlyChanged(c, true);
            assertEquals(1, socket.roundTrips());
            assertTrue(settings.enabled());
            assertFalse(c.getAutoCommit(), "the application's autocommit setting is kept");
            c.rollback(); // the settings were made outside the application's transactions: they stay
            assertEquals(List.of("follower", "1234ms", "on"), show(c, names));
            try (Statement s = c.createStatement()) {
                SQLException readOnly = assertThrows(SQLException.class, () -> s.execute("CREATE TABLE nope (i int)"));
                assertEquals("25006", readOnly.getSQLState());
            }
            c.rollback();
            socket.reset();
            settings.readOnlyChanged(c, false);
            assertEquals(1, socket.roundTrips());
            assertFalse(settings.enabled());
            assertEquals(List.of("mine", "0", "off"), show(c, names));
            c.rollback();
        }
    }

    private static List<String> show(Connection c, String[] names) throws SQLException {
        List<String> values = new ArrayList<>();
        try (Statement s = c.createStatement()) {
            for (String name : names) {
                try (ResultSet rs = s.executeQuery("SHOW " + name)) {
                    rs.next();
                    values.add(rs.getString(1));
                }
            }
        }
        return values;
    }

    @Test
    void yugabyteUrlWithoutTheSmartDriverNamesTheArtifactToAdd() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> DriverManager.getConnection(
                        "jdbc:flushless:yugabytedb://127.0.0.1:5433/yugabyte?password=secret"));
        assertEquals("08001", e.getSQLState());
        assertTrue(e.getMessage().contains("com.yugabyte:jdbc-yugabytedb"), e.getMessage());
        assertTrue(e.getMessage().contains("com.yugabyte.Driver"), e.getMessage());
        assertTrue(e.getMessage().contains("jdbc:flushless:postgresql://"), e.getMessage());
        assertFalse(e.getMessage().contains("secret"), "the query string is not shown: " + e.getMessage());
    }

    @Test
    void yugabyteUrlGoesToTheDriverThatAcceptsIt(TestDatabase db) throws Exception {
        // Stands in for com.yugabyte.Driver: accepts jdbc:yugabytedb: and connects to the test database with pgjdbc.
        Driver standIn = new Driver() {
            @Override
            public Connection connect(String url, Properties info) throws SQLException {
                return acceptsURL(url) ? DriverManager.getConnection(db.pgjdbcUrl(), info) : null;
            }

            @Override
            public boolean acceptsURL(String url) {
                return url != null && url.startsWith("jdbc:yugabytedb:");
            }

            @Override
            public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
                return new DriverPropertyInfo[0];
            }

            @Override
            public int getMajorVersion() {
                return 42;
            }

            @Override
            public int getMinorVersion() {
                return 0;
            }

            @Override
            public boolean jdbcCompliant() {
                return false;
            }

            @Override
            public java.util.logging.Logger getParentLogger() throws SQLFeatureNotSupportedException {
                throw new SQLFeatureNotSupportedException();
            }
        };
        DriverManager.registerDriver(standIn);
        try (Connection c = DriverManager.getConnection(
                "jdbc:flushless:yugabytedb://127.0.0.1:5433/yugabyte?flushless.mode=off", db.credentials())) {
            assertTrue(c.isWrapperFor(FlushlessConnection.class));
            try (Statement s = c.createStatement();
                    ResultSet rs = s.executeQuery("SELECT current_database()")) {
                rs.next();
                assertEquals(db.name(), rs.getString(1));
            }
        } finally {
            DriverManager.deregisterDriver(standIn);
        }
    }
}
