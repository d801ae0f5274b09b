package dev.flushless.jdbc.flyway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDataSource;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.SchemaSnapshot;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;
import org.flywaydb.core.api.callback.BaseCallback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.output.MigrateResult;
import org.flywaydb.core.internal.database.DatabaseTypeRegister;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Flyway configured by URL ({@code Flyway.configure().dataSource(url, user, password)}, the path of the command
 * line, the Maven/Gradle plugins and {@code spring.flyway.url}) with a {@code jdbc:flushless:postgresql:} URL: real
 * migrations (dollar-quoted functions, triggers, a DO block, single-row seed INSERTs, ALTER TABLE, COPY, semicolons
 * inside strings and comments, a repeatable migration) in every mode, compared with the same migrations run
 * through bare pgjdbc: the schema history (without timestamps and durations), the schema and every row.
 *
 * <p>Runs with the project's Flyway ({@code flyway.version}, 13.x); {@code -Dflyway.version=11.7.2} runs it with
 * Spring Boot 3.5's.
 */
class FlywayUrlTest {

    private static final String LOCATION = "classpath:flyway/shop";
    private static final String HISTORY = "SELECT installed_rank::text, version, description, type, script,"
            + " checksum::text, installed_by, success::text FROM flyway_schema_history ORDER BY installed_rank";
    private static final String PG_TYPE = "org.flywaydb.database.postgresql.PostgreSQLDatabaseType";

    private static final List<TestDatabase> DATABASES = new ArrayList<>();
    private static Run bare;

    /** What Flyway's own connection showed, seen from a callback after the migration. */
    static final class Seen extends BaseCallback {
        boolean flushless;
        String url;
        String databaseType;

        @Override
        public boolean supports(Event event, Context context) {
            return event == Event.AFTER_MIGRATE;
        }

        @Override
        public boolean canHandleInTransaction(Event event, Context context) {
            return true;
        }

        @Override
        public void handle(Event event, Context context) {
            try {
                Connection connection = context.getConnection();
                flushless = connection.isWrapperFor(FlushlessConnection.class);
                url = connection.getMetaData().getURL();
                databaseType = DatabaseTypeRegister.getDatabaseTypeForConnection(connection, context.getConfiguration())
                        .getClass()
                        .getName();
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** A run's outcome; {@code driver} is what the whole driver reported during it (test classes run one at a time). */
    record Run(
            MigrateResult result,
            List<List<String>> history,
            Map<String, List<List<String>>> schema,
            Seen seen,
            long countryInserts,
            Delta driver) {}

    /** The driver-wide report's change over one run. */
    record Delta(long issued, long sent, long roundTrips, long buffered) {
        static Delta between(FlushlessReport before, FlushlessReport after) {
            return new Delta(
                    after.statementsIssued() - before.statementsIssued(),
                    after.statementsSent() - before.statementsSent(),
                    after.roundTrips() - before.roundTrips(),
                    after.rewrites().getOrDefault("transaction-buffer", 0L)
                            - before.rewrites().getOrDefault("transaction-buffer", 0L));
        }
    }

    private static TestDatabase database(String hint) {
        TestDatabase db = PostgresExtension.createDatabase(hint);
        DATABASES.add(db);
        return db;
    }

    private static Run migrate(TestDatabase db, String url) throws SQLException {
        Properties credentials = db.credentials();
        Seen seen = new Seen();
        if (db.hasStatementStats()) {
            db.resetStatementCounts();
        }
        FlushlessReport before = FlushlessDriver.report();
        MigrateResult result = Flyway.configure()
                .dataSource(url, credentials.getProperty("user"), credentials.getProperty("password"))
                .locations(LOCATION)
                .callbacks(seen)
                .load()
                .migrate();
        return finish(db, result, seen, before);
    }

    private static Run finish(TestDatabase db, MigrateResult result, Seen seen, FlushlessReport before)
            throws SQLException {
        Delta driver = Delta.between(before, FlushlessDriver.report());
        long countryInserts = db.hasStatementStats() ? db.statementCount("%INSERT INTO country%") : -1;
        return new Run(
                result,
                db.rows(HISTORY),
                SchemaSnapshot.of(db, Set.of("flyway_schema_history")),
                seen,
                countryInserts,
                driver);
    }

    @BeforeAll
    static void migrateBare() throws SQLException {
        TestDatabase db = database("flyway_bare");
        bare = migrate(db, db.pgjdbcUrl());
        assertTrue(bare.result().success);
        assertEquals(7, bare.result().migrationsExecuted, "6 versioned migrations and 1 repeatable");
        assertFalse(bare.seen().flushless);
        assertEquals(PG_TYPE, bare.seen().databaseType);
        assertEquals(db.pgjdbcUrl(), bare.seen().url);
        // The comparison below has something to compare.
        Map<String, List<List<String>>> schema = bare.schema();
        assertEquals(40, schema.get("rows of country").size());
        assertEquals(42, schema.get("rows of product").size());
        assertEquals(25, schema.get("rows of customer").size());
        assertEquals(6, schema.get("rows of price_history").size());
        assertTrue(schema.get("rows of audit_log").size() > 25, "the audit trigger fired");
        assertEquals(2, schema.get("triggers").size());
        assertEquals(3, schema.get("functions").size());
        assertEquals(7, bare.history().size());
    }

    @AfterAll
    static void dropDatabases() throws SQLException {
        for (TestDatabase db : DATABASES) {
            db.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"off", "batch", "transaction"})
    void migratesByUrlThroughFlushlessLikeBarePgjdbc(String mode) throws SQLException {
        TestDatabase db = database("flyway_" + mode);
        Run run = migrate(db, db.flushlessUrl("flushless.mode=" + mode));

        assertTrue(run.result().success);
        assertEquals(bare.result().migrationsExecuted, run.result().migrationsExecuted);
        assertEquals(bare.result().targetSchemaVersion, run.result().targetSchemaVersion);
        assertEquals(bare.history(), run.history(), "flyway_schema_history (without installed_on, execution_time)");
        assertEquals(bare.schema(), run.schema());

        // Flyway connected through Flushless, and treats the connection as PostgreSQL, as through pgjdbc.
        assertTrue(run.seen().flushless, "Flyway's connection is a Flushless connection");
        assertEquals(PG_TYPE, run.seen().databaseType);
        // getURL() is pgjdbc's (see docs/semantics.md): the URL without "flushless:" and without flushless.* keys.
        assertEquals(db.pgjdbcUrl(), run.seen().url);

        Delta driver = run.driver();
        assertTrue(driver.issued() > 200, "Flyway's statements went through Flushless: " + driver);
        if (mode.equals("transaction")) {
            // V3's and V5's single-row INSERTs (tables without triggers) are buffered and sent with the next
            // statement that needs them: fewer round trips. Each has its own SQL text (literal values) and they
            // write the same table, so each stays a statement of its own (a table written twice in one statement
            // would lose the order of its rows): the server runs as many statements as through pgjdbc.
            assertTrue(driver.buffered() >= 90, driver.toString());
            // (round trips include Flyway's commits, which issue no statement)
            assertTrue(driver.roundTrips() < driver.issued() - 70, driver.toString());
        } else {
            // Flyway runs one statement at a time, never a JDBC batch: nothing for batch mode to coalesce.
            assertEquals(0, driver.buffered(), driver.toString());
            assertEquals(driver.issued(), driver.sent(), driver.toString());
            // one round trip per statement, and those of Flyway's commits
            assertTrue(driver.roundTrips() >= driver.issued(), driver.toString());
        }
        if (bare.countryInserts() >= 0) {
            assertEquals(40, bare.countryInserts(), "40 single-row INSERTs into country");
            assertEquals(bare.countryInserts(), run.countryInserts(), "INSERT INTO country statements the server ran");
        }
        System.out.println("[flyway] mode " + mode + ": " + driver + "; INSERT INTO country run by the server: "
                + run.countryInserts() + " (bare pgjdbc: " + bare.countryInserts() + ")");
    }

    @Test
    void dataSourceConfiguredFlywayNeedsNoPluginAndGetsTheSameResult() throws SQLException {
        TestDatabase db = database("flyway_datasource");
        FlushlessDataSource dataSource = new FlushlessDataSource();
        dataSource.setUrl(db.flushlessUrl("flushless.mode=transaction"));
        Properties credentials = db.credentials();
        dataSource.setUser(credentials.getProperty("user"));
        dataSource.setPassword(credentials.getProperty("password"));
        Seen seen = new Seen();
        FlushlessReport before = FlushlessDriver.report();
        MigrateResult result = Flyway.configure()
                .dataSource((DataSource) dataSource)
                .locations(LOCATION)
                .callbacks(seen)
                .load()
                .migrate();
        Run run = finish(db, result, seen, before);
        assertEquals(bare.history(), run.history());
        assertEquals(bare.schema(), run.schema());
        assertTrue(run.seen().flushless);
        assertEquals(PG_TYPE, run.seen().databaseType);
    }

    @Test
    void pluginTakesFlushlessUrlsOnly() {
        assertEquals(List.of(FlushlessDatabaseType.class), typesFor("jdbc:flushless:postgresql://db.example.com/shop"));
        assertEquals(
                List.of(FlushlessDatabaseType.class), typesFor("jdbc:flushless:yugabytedb://db.example.com:5433/yb"));
        assertEquals(List.of(FlushlessDatabaseType.class), typesFor("jdbc:flushless:tc:postgresql:16:///shop"));
        assertEquals(List.of(), typesFor("jdbc:flushless:mysql://db.example.com/shop"));
        List<String> postgres = typesFor("jdbc:postgresql://db.example.com/shop").stream()
                .map(Class::getName)
                .toList();
        assertFalse(postgres.contains(FlushlessDatabaseType.class.getName()), postgres.toString());
        assertTrue(postgres.contains(PG_TYPE), postgres.toString());

        FlushlessDatabaseType type = new FlushlessDatabaseType();
        assertTrue(type.isEnabled(), "Flyway's PostgreSQL type is on the test classpath");
        assertEquals(
                FlushlessDriver.class.getName(),
                type.getDriverClass(
                        "jdbc:flushless:postgresql://db.example.com/shop",
                        getClass().getClassLoader()));
        assertEquals("PostgreSQL", type.getName());
        assertEquals(List.of(), type.getSupportedEngines());
        assertFalse(type.handlesDatabaseProductNameAndVersion("PostgreSQL", "18.1", null));

        // The connection properties and credential redaction are Flyway's PostgreSQL ones.
        Properties defaults = new Properties();
        type.setDefaultConnectionProps("jdbc:flushless:postgresql://db.example.com/shop", defaults, null);
        assertTrue(
                defaults.stringPropertyNames().stream().anyMatch(key -> key.equalsIgnoreCase("applicationName")),
                defaults.toString());
        String redacted = DatabaseTypeRegister.redactJdbcUrl("jdbc:flushless:postgresql://h/db?user=u&password=secret");
        assertFalse(redacted.contains("secret"), redacted);
    }

    private static List<Class<?>> typesFor(String url) {
        List<Class<?>> types = new ArrayList<>();
        for (Object type : DatabaseTypeRegister.getDatabaseTypesForUrl(url, null)) {
            types.add(type.getClass());
        }
        return types;
    }
}
