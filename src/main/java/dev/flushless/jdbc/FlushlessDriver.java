package dev.flushless.jdbc;

import dev.flushless.jdbc.wrapper.WrappedConnection;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Properties;
import java.util.logging.Logger;

/**
 * The JDBC driver for {@code jdbc:flushless:<rest>} URLs. It opens the connection with the driver that
 * accepts {@code jdbc:<rest>} (pgjdbc for {@code jdbc:flushless:postgresql://...}) and returns it wrapped,
 * so that the application's writes reach the database in fewer statements.
 *
 * <p>Registered with {@link DriverManager} through {@code META-INF/services/java.sql.Driver} and when
 * this class is loaded.
 */
public final class FlushlessDriver implements Driver {

    /** The URL prefix this driver accepts. */
    public static final String URL_PREFIX = "jdbc:flushless:";

    static final int MAJOR_VERSION = 0;
    static final int MINOR_VERSION = 1;

    static {
        try {
            DriverManager.registerDriver(new FlushlessDriver());
        } catch (SQLException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return null; // JDBC: a driver returns null for a URL it does not accept
        }
        ConnectionTarget target = ConnectionTarget.parse(url, info);
        Driver delegate = delegateFor(target.delegateUrl);
        Connection connection = delegate.connect(target.delegateUrl, target.delegateProperties);
        if (connection == null) {
            throw Errors.cannotConnect("The driver " + delegate.getClass().getName() + " did not accept the URL "
                    + redact(target.delegateUrl) + " although it said it would. Check the URL after '"
                    + URL_PREFIX + "'.");
        }
        return new WrappedConnection(
                connection,
                target.config,
                target.config.replicas().isEmpty()
                        ? null
                        : dev.flushless.jdbc.replica.ReplicaConnector.byUrl(
                                delegate,
                                target.delegateUrl,
                                target.delegateProperties,
                                target.config.replicas().toString()));
    }

    /**
     * Tells Flushless that the schema changed through a program other than this driver (a migration run by another
     * tool or process): every connection reads its tables' catalog facts (columns, triggers, rules, keys) again before
     * it next uses them. DDL sent through Flushless needs no call; without it, facts are read again after
     * {@code flushless.catalogCacheSeconds}.
     */
    public static void schemaChanged() {
        dev.flushless.jdbc.session.TableCatalog.forgetEverywhere();
    }

    /** What the driver as a whole saved so far, over every connection of this class loader. */
    public static dev.flushless.jdbc.stats.FlushlessReport report() {
        return dev.flushless.jdbc.stats.FlushlessStats.GLOBAL.report();
    }

    @Override
    public boolean acceptsURL(String url) {
        return url != null && url.startsWith(URL_PREFIX);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) throws SQLException {
        if (!acceptsURL(url)) {
            return new DriverPropertyInfo[0];
        }
        Properties given = info == null ? new Properties() : info;
        List<DriverPropertyInfo> result = new ArrayList<>();
        String delegateUrl = "jdbc:" + url.substring(URL_PREFIX.length());
        Driver delegate = findDelegate(delegateUrl);
        if (delegate != null) {
            Collections.addAll(result, delegate.getPropertyInfo(delegateUrl, given));
        }
        for (FlushlessProperty property : FlushlessProperty.values()) {
            result.add(property.toDriverPropertyInfo(given));
        }
        return result.toArray(new DriverPropertyInfo[0]);
    }

    @Override
    public int getMajorVersion() {
        return MAJOR_VERSION;
    }

    @Override
    public int getMinorVersion() {
        return MINOR_VERSION;
    }

    /** {@code false}: compliance is the delegate's, and pgjdbc does not claim it either. */
    @Override
    public boolean jdbcCompliant() {
        return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("dev.flushless.jdbc");
    }

    /** The YugabyteDB smart driver's class, and its Maven coordinates. */
    static final String YUGABYTE_DRIVER = "com.yugabyte.Driver";

    static final String YUGABYTE_ARTIFACT = "com.yugabyte:jdbc-yugabytedb";
    private static final String YUGABYTE_PREFIX = "jdbc:yugabytedb:";

    /** The driver that accepts {@code delegateUrl}, or an error naming the URL and the registered drivers. */
    static Driver delegateFor(String delegateUrl) throws SQLException {
        Driver driver = findDelegate(delegateUrl);
        if (driver != null) {
            return driver;
        }
        if (delegateUrl.startsWith(YUGABYTE_PREFIX)) {
            throw Errors.cannotConnect("The URL " + redact(URL_PREFIX + delegateUrl.substring("jdbc:".length()))
                    + " needs the YugabyteDB smart driver (" + YUGABYTE_DRIVER + "), which is not on the classpath."
                    + " Add the Maven dependency " + YUGABYTE_ARTIFACT + " (<groupId>com.yugabyte</groupId>"
                    + "<artifactId>jdbc-yugabytedb</artifactId>), or connect with pgjdbc instead:"
                    + " jdbc:flushless:postgresql://host:5433/yugabyte (YSQL speaks the PostgreSQL protocol).");
        }
        List<String> registered = new ArrayList<>();
        for (Driver candidate : Collections.list(DriverManager.getDrivers())) {
            registered.add(candidate.getClass().getName());
        }
        throw Errors.cannotConnect("No JDBC driver accepts the URL " + redact(delegateUrl)
                + " (the part after '" + URL_PREFIX + "', with 'jdbc:' in front). Registered drivers: "
                + registered + ". Put the database's JDBC driver (for PostgreSQL, org.postgresql:postgresql)"
                + " on the classpath and check the URL.");
    }

    private static Driver findDelegate(String delegateUrl) throws SQLException {
        for (Driver candidate : Collections.list(DriverManager.getDrivers())) {
            if (!(candidate instanceof FlushlessDriver) && candidate.acceptsURL(delegateUrl)) {
                return candidate;
            }
        }
        if (delegateUrl.startsWith(YUGABYTE_PREFIX)) {
            // The smart driver may be on a class path DriverManager does not see (a container's class loader).
            Driver yugabyte = loadDriver(YUGABYTE_DRIVER);
            return yugabyte != null && yugabyte.acceptsURL(delegateUrl) ? yugabyte : null;
        }
        // pgjdbc is a dependency of this driver; use it directly where DriverManager cannot see it
        // (e.g. a container class loader that hides it from DriverManager).
        org.postgresql.Driver pgjdbc = new org.postgresql.Driver();
        return pgjdbc.acceptsURL(delegateUrl) ? pgjdbc : null;
    }

    /** An instance of the JDBC driver class {@code name}, from the context or this class loader, or {@code null}. */
    private static Driver loadDriver(String name) {
        for (ClassLoader loader : new ClassLoader[] {
            Thread.currentThread().getContextClassLoader(), FlushlessDriver.class.getClassLoader()
        }) {
            if (loader == null) {
                continue;
            }
            try {
                Class<?> type = Class.forName(name, true, loader);
                if (Driver.class.isAssignableFrom(type)) {
                    return (Driver) type.getDeclaredConstructor().newInstance();
                }
            } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
                // not there (or not usable) through this loader: try the next
            }
        }
        return null;
    }

    /** The URL without its query string, which may hold a password. */
    static String redact(String url) {
        int query = url.indexOf('?');
        return query < 0 ? url : url.substring(0, query) + "?...";
    }
}
