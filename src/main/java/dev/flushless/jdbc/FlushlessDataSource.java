package dev.flushless.jdbc;

import dev.flushless.jdbc.wrapper.WrappedConnection;
import java.io.PrintWriter;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Properties;
import java.util.logging.Logger;
import javax.sql.DataSource;

/**
 * A {@link DataSource} whose connections go through Flushless. Two ways to use it:
 * <ul>
 *   <li>wrap an existing data source: {@code new FlushlessDataSource(pgSimpleDataSource)}, optionally with
 *       {@code flushless.*} settings;</li>
 *   <li>configure it as a bean with {@link #setUrl} ({@code jdbc:flushless:postgresql://...}),
 *       {@link #setUser} and {@link #setPassword}, e.g. as HikariCP's {@code dataSourceClassName} with
 *       {@code dataSource.url}, {@code dataSource.user} and {@code dataSource.password}.</li>
 * </ul>
 */
public class FlushlessDataSource implements DataSource {

    private final DataSource wrapped;
    private final FlushlessConfig wrappedConfig;
    private final FlushlessDriver driver = new FlushlessDriver();

    private volatile String url;
    private volatile String user;
    private volatile String password;
    private volatile int loginTimeoutSeconds;
    private volatile PrintWriter logWriter;

    /** A data source configured later through {@link #setUrl}, {@link #setUser} and {@link #setPassword}. */
    public FlushlessDataSource() {
        this.wrapped = null;
        this.wrappedConfig = null;
    }

    /** Wraps {@code dataSource} with the default settings. */
    public FlushlessDataSource(DataSource dataSource) {
        this.wrapped = requireNonNull(dataSource);
        this.wrappedConfig = FlushlessConfig.defaults();
    }

    /**
     * Wraps {@code dataSource} with the {@code flushless.*} settings in {@code settings}.
     *
     * @throws SQLException SQLState 22023 for an unknown {@code flushless.*} key or a bad value
     */
    public FlushlessDataSource(DataSource dataSource, Properties settings) throws SQLException {
        this.wrapped = requireNonNull(dataSource);
        this.wrappedConfig = FlushlessConfig.from(settings);
    }

    private static DataSource requireNonNull(DataSource dataSource) {
        if (dataSource == null) {
            throw new IllegalArgumentException("FlushlessDataSource needs the DataSource to wrap; got null");
        }
        return dataSource;
    }

    @Override
    public Connection getConnection() throws SQLException {
        if (wrapped != null) {
            return new WrappedConnection(wrapped.getConnection(), wrappedConfig);
        }
        return connect(user, password);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        if (wrapped != null) {
            return new WrappedConnection(wrapped.getConnection(username, password), wrappedConfig);
        }
        return connect(username, password);
    }

    private Connection connect(String username, String password) throws SQLException {
        String configuredUrl = url;
        if (configuredUrl == null) {
            throw new SQLException("FlushlessDataSource has no URL: call setUrl(\"" + FlushlessDriver.URL_PREFIX
                    + "postgresql://host:5432/db\") (HikariCP: dataSource.url) or wrap a DataSource.", "08001");
        }
        if (!driver.acceptsURL(configuredUrl)) {
            throw new SQLException("FlushlessDataSource URL must start with " + FlushlessDriver.URL_PREFIX
                    + " but is " + FlushlessDriver.redact(configuredUrl) + ". Put '" + FlushlessDriver.URL_PREFIX
                    + "' in front of the rest, e.g. " + FlushlessDriver.URL_PREFIX + "postgresql://host/db.", "08001");
        }
        Properties info = new Properties();
        if (username != null) {
            info.setProperty("user", username);
        }
        if (password != null) {
            info.setProperty("password", password);
        }
        if (loginTimeoutSeconds > 0) {
            info.setProperty("loginTimeout", Integer.toString(loginTimeoutSeconds));
        }
        return driver.connect(configuredUrl, info);
    }

    /** The {@code jdbc:flushless:...} URL to connect to (bean style, used when no DataSource is wrapped). */
    public String getUrl() {
        return url;
    }

    public void setUrl(String url) {
        this.url = url;
    }

    /** Alias of {@link #setUrl} for tools that use the upper-case bean name. */
    public void setURL(String url) {
        setUrl(url);
    }

    public String getURL() {
        return url;
    }

    /** Same as {@link #setUrl}; the name HikariCP users know from {@code jdbcUrl}. */
    public void setJdbcUrl(String url) {
        setUrl(url);
    }

    public String getUser() {
        return user;
    }

    public void setUser(String user) {
        this.user = user;
    }

    /** Alias of {@link #setUser}. */
    public void setUsername(String user) {
        setUser(user);
    }

    public void setPassword(String password) {
        this.password = password;
    }

    @Override
    public PrintWriter getLogWriter() throws SQLException {
        return wrapped != null ? wrapped.getLogWriter() : logWriter;
    }

    @Override
    public void setLogWriter(PrintWriter out) throws SQLException {
        if (wrapped != null) {
            wrapped.setLogWriter(out);
        } else {
            logWriter = out;
        }
    }

    @Override
    public void setLoginTimeout(int seconds) throws SQLException {
        if (wrapped != null) {
            wrapped.setLoginTimeout(seconds);
        } else {
            loginTimeoutSeconds = seconds;
        }
    }

    @Override
    public int getLoginTimeout() throws SQLException {
        return wrapped != null ? wrapped.getLoginTimeout() : loginTimeoutSeconds;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
        return Logger.getLogger("dev.flushless.jdbc");
    }

    @Override
    public <T> T unwrap(Class<T> iface) throws SQLException {
        if (iface.isInstance(this)) {
            return iface.cast(this);
        }
        if (wrapped != null) {
            return wrapped.unwrap(iface);
        }
        throw new SQLException("FlushlessDataSource is not a wrapper for " + iface.getName()
                + ": it opens connections by URL and wraps no DataSource.", "0A000");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || (wrapped != null && wrapped.isWrapperFor(iface));
    }

    @Override
    public String toString() {
        return wrapped != null ? "FlushlessDataSource wrapping " + wrapped
                : "FlushlessDataSource[" + (url == null ? "no URL" : FlushlessDriver.redact(url)) + "]";
    }
}
