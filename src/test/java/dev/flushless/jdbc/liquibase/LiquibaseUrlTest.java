package dev.flushless.jdbc.liquibase;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.FlushlessDriver;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.SchemaSnapshot;
import dev.flushless.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.DriverManager;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.core.PostgresDatabase;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Liquibase configured by URL (a {@code CommandScope} "update" with {@code url}, the path of the command line and
 * the Maven/Gradle plugins) with a {@code jdbc:flushless:postgresql:} URL and no driver setting: a real changelog
 * (createTable, single-row inserts, a loadData batch, dollar-quoted functions and triggers, a DO block, addColumn
 * and update, {@code dbms="postgresql"} changesets, a formatted-SQL include) in every mode, compared with the same
 * changelog run through bare pgjdbc: DATABASECHANGELOG (without its timestamp and deployment id), the schema and
 * every row.
 *
 * <p>Runs with the project's Liquibase ({@code liquibase.version}, 4.31, Spring Boot 3.5's).
 */
class LiquibaseUrlTest {

    private static final String CHANGELOG = "liquibase/shop/changelog.xml";
    private static final String HISTORY =
            "SELECT id, author, filename, orderexecuted::text, exectype, md5sum, description,"
                    + " comments, tag, liquibase, contexts, labels FROM databasechangelog ORDER BY orderexecuted";

    private static final List<TestDatabase> DATABASES = new ArrayList<>();
    private static Run bare;

    record Run(List<List<String>> history, Map<String, List<List<String>>> schema, Delta driver) {}

    /** The driver-wide report's change over one run (test classes run one at a time). */
    record Delta(long issued, long sent, long roundTrips, long coalesced, long buffered) {
        static Delta between(FlushlessReport before, FlushlessReport after) {
            long buffered = after.rewrites().getOrDefault("transaction-buffer", 0L)
                    - before.rewrites().getOrDefault("transaction-buffer", 0L);
            long rewritten = after.rewrites().values().stream()
                            .mapToLong(Long::longValue)
                            .sum()
                    - before.rewrites().values().stream()
                            .mapToLong(Long::longValue)
                            .sum();
            return new Delta(
                    after.statementsIssued() - before.statementsIssued(),
                    after.statementsSent() - before.statementsSent(),
                    after.roundTrips() - before.roundTrips(),
                    rewritten - buffered,
                    buffered);
        }
    }

    @BeforeAll
    static void updateBare() throws Exception {
        // Liquibase 4.30+ may report anonymous usage over the network; tests stay offline.
        System.setProperty("liquibase.analytics.enabled", "false");
        TestDatabase db = database("liquibase_bare");
        bare = update(db, db.pgjdbcUrl());
        Map<String, List<List<String>>> schema = bare.schema();
        assertEquals(12, bare.history().size(), "10 changesets of the XML changelog, 2 of its SQL include");
        assertEquals(40, schema.get("rows of price_history").size());
        assertEquals(20, schema.get("rows of country").size());
        assertEquals(60, schema.get("rows of product").size());
        assertEquals(15, schema.get("rows of customer").size());
        assertEquals(60, schema.get("rows of stock").size());
        assertTrue(schema.get("rows of audit_log").size() > 15, "the audit trigger fired");
        assertEquals(2, schema.get("triggers").size(), "the dbms=\"postgresql\" changeset ran");
    }

    @AfterAll
    static void dropDatabases() throws Exception {
        for (TestDatabase db : DATABASES) {
            db.close();
        }
    }

    private static TestDatabase database(String hint) {
        TestDatabase db = PostgresExtension.createDatabase(hint);
        DATABASES.add(db);
        return db;
    }

    private static Run update(TestDatabase db, String url) throws Exception {
        Properties credentials = db.credentials();
        FlushlessReport before = FlushlessDriver.report();
        CommandScope update = new CommandScope(UpdateCommandStep.COMMAND_NAME)
                .addArgumentValue(DbUrlConnectionArgumentsCommandStep.URL_ARG, url)
                .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG);
        if (credentials.getProperty("user") != null) {
            update.addArgumentValue(DbUrlConnectionArgumentsCommandStep.USERNAME_ARG, credentials.getProperty("user"));
        }
        if (credentials.getProperty("password") != null) {
            update.addArgumentValue(
                    DbUrlConnectionArgumentsCommandStep.PASSWORD_ARG, credentials.getProperty("password"));
        }
        update.execute();
        Delta driver = Delta.between(before, FlushlessDriver.report());
        return new Run(
                db.rows(HISTORY), SchemaSnapshot.of(db, Set.of("databasechangelog", "databasechangeloglock")), driver);
    }

    @ParameterizedTest
    @ValueSource(strings = {"off", "batch", "transaction"})
    void updatesByUrlThroughFlushlessLikeBarePgjdbc(String mode) throws Exception {
        TestDatabase db = database("liquibase_" + mode);
        Run run = update(db, db.flushlessUrl("flushless.mode=" + mode));

        assertEquals(bare.history(), run.history(), "DATABASECHANGELOG (without dateexecuted, deployment_id)");
        assertEquals(bare.schema(), run.schema());

        Delta driver = run.driver();
        assertTrue(driver.issued() > 100, "Liquibase's statements went through Flushless: " + driver);
        if (mode.equals("transaction")) {
            // The single-row INSERTs (country, loadData's prepared rows, DATABASECHANGELOG) are buffered and sent
            // with the next statement that needs them.
            assertTrue(driver.buffered() > 60 && driver.roundTrips() < driver.issued(), driver.toString());
        } else {
            // Liquibase sends no JDBC batch to PostgreSQL (loadData with usePreparedStatements executes each row,
            // LoadDataChange: "we don't do batch updates for Postgres", LB-744): nothing for batch mode to coalesce.
            assertEquals(new Delta(driver.issued(), driver.issued(), driver.roundTrips(), 0, 0), driver);
            assertTrue(
                    driver.roundTrips() >= driver.issued(),
                    "a round trip per statement, and Liquibase's commits': " + driver);
        }
        System.out.println("[liquibase] mode " + mode + ": " + driver);
    }

    /** What Liquibase's URL path ({@code DatabaseFactory.openDatabase}) picks for a Flushless URL. */
    @Test
    void aFlushlessUrlOpensLiquibasesPostgresDatabaseThroughTheFlushlessDriver() throws Exception {
        TestDatabase db = database("liquibase_open");
        Properties credentials = db.credentials();
        String url = db.flushlessUrl("flushless.mode=transaction");
        assertEquals(
                FlushlessDriver.class.getName(), DatabaseFactory.getInstance().findDefaultDriver(url));
        assertEquals("org.postgresql.Driver", DatabaseFactory.getInstance().findDefaultDriver(db.pgjdbcUrl()));
        Database database = DatabaseFactory.getInstance()
                .openDatabase(
                        url,
                        credentials.getProperty("user"),
                        credentials.getProperty("password"),
                        null,
                        new ClassLoaderResourceAccessor());
        try {
            assertSame(PostgresDatabase.class, database.getClass());
            assertEquals("postgresql", database.getShortName());
            Connection jdbc = ((JdbcConnection) database.getConnection()).getUnderlyingConnection();
            assertTrue(jdbc.isWrapperFor(FlushlessConnection.class));
            // getURL() is pgjdbc's (see docs/semantics.md): what Liquibase logs, reports and sniffs (its CockroachDB
            // and EnterpriseDB checks run only for URLs starting with jdbc:postgres).
            // Liquibase's own getURL() strips user and password parameters from what the driver reports.
            assertEquals(db.pgjdbcUrl(), jdbc.getMetaData().getURL());
            assertTrue(
                    database.getConnection().getURL().startsWith("jdbc:postgresql:"),
                    database.getConnection().getURL());
        } finally {
            database.close();
        }
    }

    /** A Flushless Connection or DataSource (Spring's SpringLiquibase) needs no plugin: the product name decides. */
    @Test
    void aFlushlessConnectionIsLiquibasesPostgresDatabase() throws Exception {
        TestDatabase db = database("liquibase_connection");
        try (Connection connection = DriverManager.getConnection(db.flushlessUrl(), db.credentials())) {
            Database database =
                    DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
            assertSame(PostgresDatabase.class, database.getClass());
        }
    }

    @Test
    void pluginNamesTheDriverForFlushlessUrlsOnly() throws Exception {
        FlushlessPostgresDatabase plugin = new FlushlessPostgresDatabase();
        assertEquals(FlushlessDriver.class.getName(), plugin.getDefaultDriver("jdbc:flushless:postgresql://h/db"));
        assertEquals(FlushlessDriver.class.getName(), plugin.getDefaultDriver("jdbc:flushless:yugabytedb://h:5433/db"));
        assertEquals(FlushlessDriver.class.getName(), plugin.getDefaultDriver("jdbc:flushless:tc:postgresql:16:///db"));
        assertNull(plugin.getDefaultDriver("jdbc:postgresql://h/db"));
        assertNull(plugin.getDefaultDriver("jdbc:flushless:mysql://h/db"));
        assertFalse(plugin.isCorrectDatabaseImplementation(null));
        assertTrue(
                DatabaseFactory.getInstance().getImplementedDatabases().stream()
                        .anyMatch(database -> database instanceof FlushlessPostgresDatabase),
                "registered via ServiceLoader");
        assertSame(
                PostgresDatabase.class,
                DatabaseFactory.getInstance().getDatabase("postgresql").getClass(),
                "PostgresDatabase stays Liquibase's postgresql database");
    }
}
