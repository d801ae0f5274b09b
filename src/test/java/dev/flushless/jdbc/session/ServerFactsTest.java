package dev.flushless.jdbc.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConfig.OnConflict;
import dev.flushless.jdbc.FlushlessConfig.WritePipelining;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import dev.flushless.jdbc.stats.YugabyteFlushModel.Isolation;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The server facts a YugabyteDB connection reports, release by release, and what the driver makes of them: the
 * {@code flushless.onConflict=auto} choice and the flush model. No server: a connection that answers like one (its
 * version, and the one settings query) stands in, and counts what it was sent.
 */
class ServerFactsTest {

    /** A connection reporting {@code version} whose settings query answers {@code row}; records what it is sent. */
    private static final class Reporting {
        final List<String> sent = new ArrayList<>();
        final Connection connection;

        Reporting(String version, String... row) {
            connection = (Connection) Proxy.newProxyInstance(
                    getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                        switch (method.getName()) {
                            case "getMetaData":
                                return proxy(DatabaseMetaData.class, (p, m, a) -> {
                                    if (m.getName().equals("getDatabaseProductVersion")) {
                                        return version;
                                    }
                                    throw new UnsupportedOperationException(m.getName());
                                });
                            case "getAutoCommit":
                                return true;
                            case "createStatement":
                                return proxy(Statement.class, (p, m, a) -> {
                                    switch (m.getName()) {
                                        case "executeQuery":
                                            sent.add((String) a[0]);
                                            return resultSet(row);
                                        case "close":
                                            return null;
                                        default:
                                            throw new UnsupportedOperationException(m.getName());
                                    }
                                });
                            default:
                                throw new UnsupportedOperationException(method.getName());
                        }
                    });
        }

        private static ResultSet resultSet(String[] row) {
            boolean[] read = {false};
            return proxy(ResultSet.class, (p, m, a) -> {
                switch (m.getName()) {
                    case "next":
                        boolean first = !read[0];
                        read[0] = true;
                        return first;
                    case "getString":
                        return row[(Integer) a[0] - 1];
                    case "close":
                        return null;
                    default:
                        throw new UnsupportedOperationException(m.getName());
                }
            });
        }

        @SuppressWarnings("unchecked")
        private static <T> T proxy(Class<T> type, java.lang.reflect.InvocationHandler handler) {
            return (T) Proxy.newProxyInstance(ServerFactsTest.class.getClassLoader(), new Class<?>[] {type}, handler);
        }
    }

    private static final String PG11_2024_1 = "11.2-YB-2024.1.3.0-b0";
    private static final String PG11_2024_2 = "11.2-YB-2024.2.6.2-b0";
    private static final String PG15_2025_1 = "15.12-YB-2025.1.3.0-b0";
    private static final String PG15_2025_2 = "15.12-YB-2025.2.8.0-b0";
    private static final String PG15_MAIN = "15.12-YB-2.31.0.0-b0";

    private static boolean auto(String version, String batchSize) {
        Reporting server = new Reporting(version, batchSize, "repeatable read", "read committed");
        ServerFacts facts = ServerFacts.of(server.connection);
        return facts.antiJoin(OnConflict.AUTO, server.connection);
    }

    @Test
    void autoTakesTheAntiJoinExactlyWhereTheServerDoesNotBatchOnConflict() {
        assertTrue(auto(PG11_2024_1, null), "2024.1: no yb_insert_on_conflict_read_batch_size");
        assertTrue(auto(PG11_2024_2, "0"), "2024.2: the setting exists, off");
        assertTrue(auto(PG11_2024_2, "1"), "the first builds' off");
        assertFalse(auto(PG11_2024_2, "1024"), "2024.2 with batching turned on");
        assertFalse(auto(PG15_2025_1, "1024"), "2025.1: on by default");
        assertFalse(auto(PG15_2025_2, "1024"), "2025.2");
        assertTrue(auto(PG15_2025_2, "0"), "2025.2 with batching turned off");
        assertFalse(auto(PG15_MAIN, "1024"), "main");
    }

    @Test
    void nativeAndAntiJoinAreTaken() {
        Reporting server = new Reporting(PG11_2024_1, (String) null, null, null);
        ServerFacts facts = ServerFacts.of(server.connection);
        assertTrue(facts.antiJoin(OnConflict.ANTIJOIN, server.connection));
        assertFalse(facts.antiJoin(OnConflict.NATIVE, server.connection));
        assertEquals(List.of(), server.sent, "a forced form asks nothing");
    }

    @Test
    void onPostgresqlNothingIsSent() {
        Reporting server = new Reporting("18.1", "1024", "read committed", "read committed");
        ServerFacts facts = ServerFacts.of(server.connection);
        assertFalse(facts.yugabyte());
        assertNull(facts.release());
        assertFalse(facts.antiJoin(OnConflict.AUTO, server.connection));
        assertNull(facts.settings(server.connection));
        assertEquals(YugabyteFlushModel.UNBATCHED_ON_CONFLICT, facts.flushModel(server.connection));
        assertEquals(List.of(), server.sent);
    }

    @Test
    void onYugabyteTheSettingsAreAskedOnceInOneQueryThatReadsNoTable() {
        Reporting server = new Reporting(PG15_2025_2, "1024", "read committed", "read committed");
        ServerFacts facts = ServerFacts.of(server.connection);
        assertEquals(List.of(), server.sent, "nothing at connect");
        assertEquals(Isolation.UNKNOWN, facts.flushModel().isolation(), "not asked yet");
        facts.antiJoin(OnConflict.AUTO, server.connection);
        facts.flushModel(server.connection);
        facts.settings(server.connection);
        assertEquals(List.of(ServerFacts.SETTINGS_QUERY), server.sent);
        assertFalse(
                ServerFacts.SETTINGS_QUERY.toUpperCase(java.util.Locale.ROOT).contains(" FROM "));
        YugabyteFlushModel model = facts.flushModel();
        assertEquals("2025.2.8.0", model.release().toString());
        assertEquals(Isolation.READ_COMMITTED, model.isolation());
        assertTrue(model.onConflictBatched());
        assertFalse(model.writePipelining(), "2025.2: off by default");
    }

    @Test
    void aFailedSettingsQueryIsAskedAgain() throws SQLException {
        int[] calls = {0};
        Connection failing = (Connection) Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                    if (method.getName().equals("createStatement")) {
                        calls[0]++;
                        throw new SQLException("current transaction is aborted", "25P02");
                    }
                    throw new UnsupportedOperationException(method.getName());
                });
        ServerFacts facts = ServerFacts.ofVersion(PG11_2024_1);
        assertNull(facts.settings(failing));
        assertTrue(facts.antiJoin(OnConflict.AUTO, failing), "unknown counts as not batched");
        assertEquals(2, calls[0]);
    }

    @Test
    void theEffectiveIsolationIsTheServers() {
        ServerFacts.Settings rc = new ServerFacts.Settings("1024", "read committed", "read committed");
        ServerFacts.Settings fallsBack = new ServerFacts.Settings("1024", "repeatable read", "read committed");
        ServerFacts.Settings old = new ServerFacts.Settings(null, null, "read committed");
        ServerFacts.Settings serializable = new ServerFacts.Settings(null, null, "serializable");
        var y2025 = dev.flushless.jdbc.stats.YugabyteRelease.of("2025.2.8.0");
        var y2024 = dev.flushless.jdbc.stats.YugabyteRelease.of("2024.1.3.0");
        assertEquals(Isolation.READ_COMMITTED, rc.isolation(y2024));
        assertEquals(Isolation.SNAPSHOT, fallsBack.isolation(y2025), "Read Committed not enabled: snapshot");
        assertEquals(Isolation.SNAPSHOT, old.isolation(y2024), "no effective setting, RC not on by default");
        assertEquals(Isolation.READ_COMMITTED, old.isolation(y2025));
        assertEquals(Isolation.SERIALIZABLE, serializable.isolation(y2024));
    }

    @Test
    void writePipeliningIsTheReleasesDefaultUnlessSet() {
        assertFalse(ServerFacts.ofVersion(PG15_2025_2).writePipelining());
        assertTrue(ServerFacts.ofVersion(PG15_MAIN).writePipelining());
        assertFalse(ServerFacts.ofVersion("18.1").writePipelining());
        assertTrue(ServerFacts.reported(PG15_2025_2, null, WritePipelining.ON).writePipelining());
        assertFalse(ServerFacts.reported(PG15_MAIN, null, WritePipelining.OFF).writePipelining());
        assertTrue(ServerFacts.reported(PG15_2025_2, null, WritePipelining.ON)
                .flushModel()
                .writePipelining());
    }

    @Test
    void releaseDefaultSettingsStandForAnUnaskedServer() {
        var y2025 = dev.flushless.jdbc.stats.YugabyteRelease.parse(PG15_2025_2);
        ServerFacts facts = ServerFacts.reported(PG15_2025_2, ServerFacts.Settings.releaseDefaults(y2025), null);
        assertFalse(facts.antiJoin(OnConflict.AUTO, null), "known settings: nothing is asked");
        assertEquals(YugabyteFlushModel.releaseDefaults(y2025), facts.flushModel());
        var y2024 = dev.flushless.jdbc.stats.YugabyteRelease.of("2024.1.3.0");
        ServerFacts old = ServerFacts.reported(PG11_2024_1, ServerFacts.Settings.releaseDefaults(y2024), null);
        assertTrue(old.antiJoin(OnConflict.AUTO, null));
        assertNull(ServerFacts.Settings.releaseDefaults(y2024).onConflictReadBatchSize());
    }
}
