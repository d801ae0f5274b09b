package dev.flushless.jdbc.session;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.RoundTripCountingSocketFactory;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Catalog facts are shared by the driver's connections with the same URL and user: a connection's first batch into a
 * table another connection already read sends no catalog query, and DDL through any of them (or
 * {@link FlushlessDriver#schemaChanged}) makes every one read again, while what a connection reads inside its own
 * uncommitted DDL, or under another search_path, stays its own.
 */
@ExtendWith(PostgresExtension.class)
class CatalogSharingTest {

    /** The catalog lookup's text, as pg_stat_statements shows it. */
    private static final String LOOKUP = "%to_regclass%";

    private TestDatabase db;

    @BeforeEach
    void schema(TestDatabase db) throws SQLException {
        this.db = db;
        db.execute(
                "DROP SCHEMA IF EXISTS other CASCADE",
                "DROP TABLE IF EXISTS shared_t",
                "CREATE TABLE shared_t (id int PRIMARY KEY, v text)",
                "CREATE SCHEMA other",
                "CREATE TABLE other.shared_t (id int PRIMARY KEY, v text)",
                "CREATE FUNCTION other.keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                "CREATE TRIGGER kept BEFORE INSERT ON other.shared_t FOR EACH ROW EXECUTE FUNCTION other.keep()");
    }

    private Connection open(String settings, String counterKey) throws SQLException {
        Properties properties = db.credentials();
        if (counterKey != null) {
            properties.putAll(RoundTripCountingSocketFactory.properties(counterKey));
        }
        return DriverManager.getConnection(
                db.flushlessUrl("flushless.mode=batch" + (settings.isEmpty() ? "" : "&" + settings)), properties);
    }

    private static int nextId = 1;

    private static void batch(Connection c, int rows) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO shared_t (id, v) VALUES (?, ?)")) {
            for (int i = 0; i < rows; i++) {
                ps.setInt(1, nextId++);
                ps.setString(2, "v");
                ps.addBatch();
            }
            int[] expected = new int[rows];
            java.util.Arrays.fill(expected, 1);
            assertArrayEquals(expected, ps.executeBatch());
        }
    }

    private static Map<String, Long> fallbacks(Connection c) throws SQLException {
        return c.unwrap(FlushlessConnection.class).report().fallbacks();
    }

    @Test
    void aSecondConnectionsFirstBatchReadsNoCatalogAndTakesBaresRoundTrips() throws SQLException {
        db.assumeStatementStats();
        db.resetStatementCounts();
        try (Connection first = open("", null)) {
            batch(first, 3);
        }
        assertEquals(1, db.statementCount(LOOKUP));
        String key = "sharing-" + UUID.randomUUID();
        try (Connection second = open("", key)) {
            RoundTripCountingSocketFactory.Counter socket = RoundTripCountingSocketFactory.counter(key);
            socket.reset();
            batch(second, 3);
            assertEquals(1, socket.roundTrips(), "the coalesced batch only, as bare pgjdbc's batch");
        }
        assertEquals(1, db.statementCount(LOOKUP), "the second connection used the first one's facts");
        try (Connection own = open("flushless.catalogCacheSeconds=0", null)) {
            batch(own, 3);
        }
        assertEquals(2, db.statementCount(LOOKUP), "catalogCacheSeconds=0: facts of its own");
        FlushlessDriver.schemaChanged();
        try (Connection after = open("", null)) {
            batch(after, 3);
        }
        assertEquals(3, db.statementCount(LOOKUP), "schemaChanged(): read again");
    }

    @Test
    void ddlThroughAnyConnectionIsSeenByTheOthers() throws SQLException {
        try (Connection a = open("", null);
                Connection b = open("", null)) {
            batch(a, 3);
            assertTrue(fallbacks(a).isEmpty());
            try (Statement s = b.createStatement()) {
                s.execute("CREATE FUNCTION public_keep() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN RETURN NEW; END $$");
                s.execute("CREATE TRIGGER kept BEFORE INSERT ON shared_t FOR EACH ROW EXECUTE FUNCTION public_keep()");
            }
            batch(a, 3);
            assertEquals(Map.of("triggers", 3L), fallbacks(a), "a saw b's trigger at once");
        }
    }

    @Test
    void whatAConnectionReadsInsideItsOwnUncommittedDdlStaysItsOwn() throws SQLException {
        try (Connection a = open("", null);
                Connection b = open("", null)) {
            b.setAutoCommit(false);
            try (Statement s = b.createStatement()) {
                s.execute("CREATE FUNCTION public_keep2() RETURNS trigger LANGUAGE plpgsql AS"
                        + " $$ BEGIN RETURN NEW; END $$");
                s.execute(
                        "CREATE TRIGGER kept2 BEFORE INSERT ON shared_t FOR EACH ROW EXECUTE FUNCTION public_keep2()");
            }
            batch(b, 3);
            assertEquals(Map.of("triggers", 3L), fallbacks(b), "b sees its own trigger");
            b.rollback();
            batch(a, 3);
            assertTrue(fallbacks(a).isEmpty(), "the trigger never existed for a: " + fallbacks(a));
            batch(b, 3);
            assertEquals(
                    Map.of("triggers", 3L), fallbacks(b), "after its rollback b coalesces again (no new fallback)");
        }
    }

    @Test
    void aConnectionWhoseNamesResolveOtherwiseKeepsFactsOfItsOwn() throws SQLException {
        try (Connection a = open("", null);
                Connection b = open("", null)) {
            batch(a, 3);
            try (Statement s = b.createStatement()) {
                s.execute("SET search_path = other, public");
            }
            batch(b, 3); // other.shared_t, with a trigger
            assertEquals(Map.of("triggers", 3L), fallbacks(b));
            batch(a, 3); // public.shared_t, without one
            assertTrue(fallbacks(a).isEmpty(), fallbacks(a).toString());
            try (Statement s = a.createStatement()) {
                s.execute("CREATE TEMPORARY TABLE shared_t (id int PRIMARY KEY, v text, extra int DEFAULT 7)");
            }
            batch(a, 3); // the temporary table hides public.shared_t for a only
            try (Connection c = open("", null)) {
                batch(c, 3);
                assertTrue(fallbacks(c).isEmpty());
            }
        }
        assertEquals(java.util.List.of(java.util.List.of("9")), db.rows("SELECT count(*) FROM public.shared_t"));
    }
}
