package dev.flushless.jdbc.flyway;

import dev.flushless.jdbc.FlushlessDriver;
import java.sql.Connection;
import java.sql.Driver;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Pattern;
import org.flywaydb.core.api.ResourceProvider;
import org.flywaydb.core.api.callback.Event;
import org.flywaydb.core.api.configuration.Configuration;
import org.flywaydb.core.internal.callback.CallbackExecutor;
import org.flywaydb.core.internal.database.DatabaseExecutionStrategy;
import org.flywaydb.core.internal.database.DatabaseType;
import org.flywaydb.core.internal.database.base.BaseDatabaseType;
import org.flywaydb.core.internal.database.base.Database;
import org.flywaydb.core.internal.jdbc.ExecutionTemplate;
import org.flywaydb.core.internal.jdbc.JdbcConnectionFactory;
import org.flywaydb.core.internal.jdbc.StatementInterceptor;
import org.flywaydb.core.internal.parser.Parser;
import org.flywaydb.core.internal.parser.ParsingContext;
import org.flywaydb.core.internal.sqlscript.SqlScriptExecutorFactory;
import org.flywaydb.core.internal.sqlscript.SqlScriptFactory;

/**
 * Flyway database plugin for {@code jdbc:flushless:postgresql:}, {@code jdbc:flushless:yugabytedb:} and
 * {@code jdbc:flushless:tc:postgresql:} (Testcontainers) URLs, so
 * that Flyway configured by URL (the command line, the Maven and Gradle plugins, {@code spring.flyway.url},
 * {@code Flyway.configure().dataSource(url, user, password)}) connects through {@link FlushlessDriver}.
 *
 * <p>Flyway chooses a database type twice: by the configured URL, to pick the JDBC driver class and the default
 * connection properties ({@code DriverDataSource}), and by the opened connection's product name, for everything
 * else (SQL parser, schema history table, locking). This type takes part only in the first, like Flyway's own
 * {@code TestContainersDatabaseType} for {@code jdbc:tc:} URLs: it accepts the
 * Flushless URLs, names the Flushless driver, and leaves everything else to Flyway's own PostgreSQL type
 * (application name, pgpass, credential redaction, ...). It never claims a connection
 * ({@link #handlesDatabaseProductNameAndVersion} is {@code false}) nor an engine name, so every connection,
 * Flushless ones included, gets Flyway's PostgreSQL type (or another plugin's, such as the YugabyteDB community
 * plugin's, which recognises YugabyteDB by {@code select version()}), exactly as through pgjdbc.
 *
 * <p>Registered in {@code META-INF/services/org.flywaydb.core.extensibility.Plugin}; only Flyway loads it, so the
 * driver needs no Flyway on the classpath. It delegates to Flyway's PostgreSQL type instead of extending it, so
 * that it depends on {@code flyway-core} alone: Flyway loads every registered plugin when it starts, and a plugin
 * class whose superclass is missing would stop Flyway itself (Flyway 9, whose PostgreSQL type lives in
 * {@code flyway-core} under another name, or Flyway 10+ used for another database without
 * {@code flyway-database-postgresql}). Without a PostgreSQL type the plugin disables itself
 * ({@link #isEnabled()}), and a Flushless URL then fails as a {@code jdbc:postgresql:} URL would. Compiled
 * against Flyway 13; tested with Flyway 13 and 11.
 */
public class FlushlessDatabaseType extends BaseDatabaseType {

    /**
     * The URL prefixes this type accepts: Flushless in front of pgjdbc, the YugabyteDB smart driver, or Testcontainers'
     * PostgreSQL containers ({@code jdbc:tc:postgresql:}, which Flyway itself knows as {@code jdbc:tc:}).
     */
    static final List<String> URL_PREFIXES = List.of(
            FlushlessDriver.URL_PREFIX + "postgresql:",
            FlushlessDriver.URL_PREFIX + "yugabytedb:",
            FlushlessDriver.URL_PREFIX + "tc:postgresql:");

    /** Flyway's PostgreSQL type: flyway-database-postgresql (Flyway 10 and later), then flyway-core (Flyway 8, 9). */
    private static final List<String> POSTGRESQL_TYPES = List.of(
            "org.flywaydb.database.postgresql.PostgreSQLDatabaseType",
            "org.flywaydb.core.internal.database.postgresql.PostgreSQLDatabaseType");

    private final DatabaseType postgres = loadPostgresType();

    private static DatabaseType loadPostgresType() {
        for (String name : POSTGRESQL_TYPES) {
            for (ClassLoader loader : new ClassLoader[] {
                DatabaseType.class.getClassLoader(),
                FlushlessDatabaseType.class.getClassLoader(),
                Thread.currentThread().getContextClassLoader()
            }) {
                if (loader == null) {
                    continue;
                }
                try {
                    Class<?> type = Class.forName(name, true, loader);
                    if (DatabaseType.class.isAssignableFrom(type)) {
                        return (DatabaseType) type.getDeclaredConstructor().newInstance();
                    }
                } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                    // not there (or not usable) through this loader: try the next
                }
            }
        }
        return null;
    }

    /** Whether {@code url} is a Flushless URL this plugin serves. */
    static boolean isFlushlessUrl(String url) {
        if (url == null) {
            return false;
        }
        for (String prefix : URL_PREFIXES) {
            if (url.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** Only when Flyway's PostgreSQL type is on the classpath (Flyway instantiates plugins, then asks this). */
    @Override
    public boolean isEnabled() {
        return postgres != null;
    }

    @Override
    public boolean handlesJDBCUrl(String url) {
        return postgres != null && isFlushlessUrl(url);
    }

    @Override
    public String getDriverClass(String url, ClassLoader classLoader) {
        return FlushlessDriver.class.getName();
    }

    /** None: the Flushless driver is in this jar, there is nothing to fall back to. */
    @Override
    public String getBackupDriverClass(String url, ClassLoader classLoader) {
        return null;
    }

    /** Never: connections are Flyway's PostgreSQL type's (or another plugin's), as through pgjdbc. */
    @Override
    public boolean handlesDatabaseProductNameAndVersion(
            String databaseProductName, String databaseProductVersion, Connection connection) {
        return false;
    }

    /** None: a lookup by engine name ("PostgreSQL", "YugabyteDb", ...) must find Flyway's own types. */
    @Override
    public List<String> getSupportedEngines() {
        return List.of();
    }

    // ---- everything else is Flyway's PostgreSQL type's ----

    @Override
    public String getName() {
        return postgres == null ? "PostgreSQL (Flushless)" : postgres.getName();
    }

    @Override
    public int getNullType() {
        return postgres.getNullType();
    }

    @Override
    public boolean supportsReadOnlyTransactions() {
        return postgres.supportsReadOnlyTransactions();
    }

    @Override
    public Pattern getJDBCCredentialsPattern() {
        return postgres == null ? super.getJDBCCredentialsPattern() : postgres.getJDBCCredentialsPattern();
    }

    @Override
    public List<Pattern> getJDBCCredentialsPatterns() {
        return postgres == null ? super.getJDBCCredentialsPatterns() : postgres.getJDBCCredentialsPatterns();
    }

    @Override
    public Database createDatabase(
            Configuration configuration,
            JdbcConnectionFactory jdbcConnectionFactory,
            StatementInterceptor statementInterceptor) {
        return postgres.createDatabase(configuration, jdbcConnectionFactory, statementInterceptor);
    }

    @Override
    public Parser createParser(
            Configuration configuration, ResourceProvider resourceProvider, ParsingContext parsingContext) {
        return postgres.createParser(configuration, resourceProvider, parsingContext);
    }

    @Override
    public SqlScriptFactory createSqlScriptFactory(Configuration configuration, ParsingContext parsingContext) {
        return postgres.createSqlScriptFactory(configuration, parsingContext);
    }

    @Override
    public SqlScriptExecutorFactory createSqlScriptExecutorFactory(
            JdbcConnectionFactory jdbcConnectionFactory,
            CallbackExecutor<Event> callbackExecutor,
            StatementInterceptor statementInterceptor) {
        return postgres.createSqlScriptExecutorFactory(jdbcConnectionFactory, callbackExecutor, statementInterceptor);
    }

    @Override
    public DatabaseExecutionStrategy createExecutionStrategy(Connection connection) {
        return postgres.createExecutionStrategy(connection);
    }

    @Override
    public ExecutionTemplate createTransactionalExecutionTemplate(Connection connection, boolean rollbackOnException) {
        return postgres.createTransactionalExecutionTemplate(connection, rollbackOnException);
    }

    @Override
    public void setDefaultConnectionProps(String url, Properties props, ClassLoader classLoader) {
        postgres.setDefaultConnectionProps(url, props, classLoader);
    }

    @Override
    public void setConfigConnectionProps(Configuration config, Properties props, ClassLoader classLoader) {
        postgres.setConfigConnectionProps(config, props, classLoader);
    }

    @Override
    public void setOverridingConnectionProps(Map<String, String> props) {
        postgres.setOverridingConnectionProps(props);
    }

    /** Flyway 13 and later. */
    @Override
    public void setOverridingConnectionProps(String url, Map<String, String> props) {
        postgres.setOverridingConnectionProps(url, props);
    }

    @Override
    public void setEarlyConnectionProps() {
        postgres.setEarlyConnectionProps();
    }

    @Override
    public void shutdownDatabase(String url, Driver driver) {
        postgres.shutdownDatabase(url, driver);
    }

    @Override
    public boolean detectUserRequiredByUrl(String url) {
        return postgres.detectUserRequiredByUrl(url);
    }

    @Override
    public boolean detectPasswordRequiredByUrl(String url) {
        return postgres.detectPasswordRequiredByUrl(url);
    }

    @Override
    public boolean externalAuthPropertiesRequired(String url, String username, String password) {
        return postgres.externalAuthPropertiesRequired(url, username, password);
    }

    @Override
    public Properties getExternalAuthProperties(String url, String username) {
        return postgres.getExternalAuthProperties(url, username);
    }

    /** Flyway 13 and later. */
    @Override
    public Properties getExternalAuthProperties(Configuration configuration, String url, String username) {
        return postgres.getExternalAuthProperties(configuration, url, username);
    }

    @Override
    public Connection alterConnectionAsNeeded(Connection connection, Configuration configuration) {
        return postgres.alterConnectionAsNeeded(connection, configuration);
    }

    @Override
    public String instantiateClassExtendedErrorMessage() {
        return postgres.instantiateClassExtendedErrorMessage();
    }

    @Override
    public List<String> getSpecialResourceFilenames(Configuration configuration) {
        return postgres.getSpecialResourceFilenames(configuration);
    }
}
