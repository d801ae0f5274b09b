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
 *
 * <p>Either way, every {@link FlushlessProperty} has a setter and a getter here, as pgjdbc's
 * {@code PGSimpleDataSource} has for its properties: named after the key without {@code flushless.} (further dots
 * dropped, the next letter capitalised), e.g. {@link #setMode(String)}, {@link #setMaxRowsPerStatement(int)},
 * {@link #setGroupCommitMaxRows(int)}; HikariCP's {@code dataSource.mode=transaction} calls {@code setMode}. A getter
 * returns the value set, or the default. Values are checked when a connection is opened, which fails with
 * SQLState 22023 for a value not allowed. For a data source configured by URL, a setting in the URL's query string
 * wins over the same setting made here (as it wins over connection properties).
 */
public class FlushlessDataSource implements DataSource {

    private final DataSource wrapped;
    /** The {@code flushless.*} settings made through the setters or the constructor, by key. */
    private final Properties settings = new Properties();
    /** The settings, validated, for a wrapped data source's connections; {@code null} after a setter changed one. */
    private FlushlessConfig wrappedConfig; // guarded by this

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
        for (FlushlessProperty property : FlushlessProperty.values()) {
            String value = settings.getProperty(property.key());
            if (value != null) { // valid: from() checked it; kept in canonical form for the getters
                this.settings.setProperty(property.key(), property.validate(value));
            }
        }
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
            FlushlessConfig config = wrappedConfig();
            return new WrappedConnection(wrapped.getConnection(), config, replicaConnector(config, null, null));
        }
        return connect(user, password);
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        if (wrapped != null) {
            FlushlessConfig config = wrappedConfig();
            return new WrappedConnection(
                    wrapped.getConnection(username, password), config, replicaConnector(config, username, password));
        }
        return connect(username, password);
    }

    /**
     * With {@code flushless.replicas} on a wrapped pgjdbc data source: opens replica connections with its URL and
     * credentials ({@code null} otherwise, which the connection reports when replicas are named).
     */
    private dev.flushless.jdbc.replica.ReplicaConnector replicaConnector(
            FlushlessConfig config, String username, String password) throws SQLException {
        if (config.replicas().isEmpty() || !wrapped.isWrapperFor(org.postgresql.ds.common.BaseDataSource.class)) {
            return null;
        }
        org.postgresql.ds.common.BaseDataSource pg = wrapped.unwrap(org.postgresql.ds.common.BaseDataSource.class);
        Properties credentials = new Properties();
        String user = username != null ? username : pg.getUser();
        String secret = username != null ? password : pg.getPassword();
        if (user != null) {
            credentials.setProperty("user", user);
        }
        if (secret != null) {
            credentials.setProperty("password", secret);
        }
        return dev.flushless.jdbc.replica.ReplicaConnector.byUrl(
                new org.postgresql.Driver(),
                pg.getURL(),
                credentials,
                config.replicas().toString());
    }

    /** The settings, validated, for a wrapped data source. */
    private synchronized FlushlessConfig wrappedConfig() throws SQLException {
        if (wrappedConfig == null) {
            wrappedConfig = FlushlessConfig.from(settings);
        }
        return wrappedConfig;
    }

    private Connection connect(String username, String password) throws SQLException {
        String configuredUrl = url;
        if (configuredUrl == null) {
            throw Errors.cannotConnect("FlushlessDataSource has no URL: call setUrl(\"" + FlushlessDriver.URL_PREFIX
                    + "postgresql://host:5432/db\") (HikariCP: dataSource.url) or wrap a DataSource.");
        }
        if (!driver.acceptsURL(configuredUrl)) {
            throw Errors.cannotConnect("FlushlessDataSource URL must start with " + FlushlessDriver.URL_PREFIX
                    + " but is " + FlushlessDriver.redact(configuredUrl) + ". Put '" + FlushlessDriver.URL_PREFIX
                    + "' in front of the rest, e.g. " + FlushlessDriver.URL_PREFIX + "postgresql://host/db.");
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
        synchronized (this) {
            info.putAll(settings);
        }
        return driver.connect(configuredUrl, info);
    }

    // ---- flushless.* settings: one setter and getter per FlushlessProperty ----

    private synchronized void set(FlushlessProperty property, String value) {
        if (value == null) {
            settings.remove(property.key());
        } else {
            settings.setProperty(property.key(), value);
        }
        wrappedConfig = null;
    }

    private String get(FlushlessProperty property) {
        return settings.getProperty(property.key(), property.defaultValue());
    }

    private int getInt(FlushlessProperty property) {
        return Integer.parseInt(get(property));
    }

    private boolean getBoolean(FlushlessProperty property) {
        return Boolean.parseBoolean(get(property));
    }

    /** {@link FlushlessProperty#MODE}: {@code off}, {@code batch} or {@code transaction}; {@code null} resets it. */
    public void setMode(String mode) {
        set(FlushlessProperty.MODE, mode);
    }

    /** {@link FlushlessProperty#MODE}, as set or its default. */
    public String getMode() {
        return get(FlushlessProperty.MODE);
    }

    /** {@link FlushlessProperty#MAX_ROWS_PER_STATEMENT}. */
    public void setMaxRowsPerStatement(int rows) {
        set(FlushlessProperty.MAX_ROWS_PER_STATEMENT, Integer.toString(rows));
    }

    /** {@link FlushlessProperty#MAX_ROWS_PER_STATEMENT}, as set or its default. */
    public int getMaxRowsPerStatement() {
        return getInt(FlushlessProperty.MAX_ROWS_PER_STATEMENT);
    }

    /** {@link FlushlessProperty#TRUST_TRIGGERS}. */
    public void setTrustTriggers(boolean trust) {
        set(FlushlessProperty.TRUST_TRIGGERS, Boolean.toString(trust));
    }

    /** {@link FlushlessProperty#TRUST_TRIGGERS}, as set or its default. */
    public boolean getTrustTriggers() {
        return getBoolean(FlushlessProperty.TRUST_TRIGGERS);
    }

    /** {@link FlushlessProperty#MIN_BATCH_ROWS} (0: auto, by server). */
    public void setMinBatchRows(int rows) {
        set(FlushlessProperty.MIN_BATCH_ROWS, Integer.toString(rows));
    }

    /** {@link FlushlessProperty#MIN_BATCH_ROWS}, as set or its default. */
    public int getMinBatchRows() {
        return getInt(FlushlessProperty.MIN_BATCH_ROWS);
    }

    /** {@link FlushlessProperty#UNIQUE_UPDATE_MIN_ROWS}. */
    public void setUniqueUpdateMinRows(int rows) {
        set(FlushlessProperty.UNIQUE_UPDATE_MIN_ROWS, Integer.toString(rows));
    }

    /** {@link FlushlessProperty#UNIQUE_UPDATE_MIN_ROWS}, as set or its default. */
    public int getUniqueUpdateMinRows() {
        return getInt(FlushlessProperty.UNIQUE_UPDATE_MIN_ROWS);
    }

    /** {@link FlushlessProperty#COALESCE_FIRST_BATCH}. */
    public void setCoalesceFirstBatch(boolean coalesce) {
        set(FlushlessProperty.COALESCE_FIRST_BATCH, Boolean.toString(coalesce));
    }

    /** {@link FlushlessProperty#COALESCE_FIRST_BATCH}, as set or its default. */
    public boolean getCoalesceFirstBatch() {
        return getBoolean(FlushlessProperty.COALESCE_FIRST_BATCH);
    }

    /** {@link FlushlessProperty#BUFFER_FIRST_WRITE}. */
    public void setBufferFirstWrite(boolean buffer) {
        set(FlushlessProperty.BUFFER_FIRST_WRITE, Boolean.toString(buffer));
    }

    /** {@link FlushlessProperty#BUFFER_FIRST_WRITE}, as set or its default. */
    public boolean getBufferFirstWrite() {
        return getBoolean(FlushlessProperty.BUFFER_FIRST_WRITE);
    }

    /** {@link FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}. */
    public void setBufferMinRoundTripMicros(int micros) {
        set(FlushlessProperty.BUFFER_MIN_ROUND_TRIP_MICROS, Integer.toString(micros));
    }

    /** {@link FlushlessProperty#BUFFER_MIN_ROUND_TRIP_MICROS}, as set or its default. */
    public int getBufferMinRoundTripMicros() {
        return getInt(FlushlessProperty.BUFFER_MIN_ROUND_TRIP_MICROS);
    }

    /** {@link FlushlessProperty#EXACT_SEQUENCES}. */
    public void setExactSequences(boolean exact) {
        set(FlushlessProperty.EXACT_SEQUENCES, Boolean.toString(exact));
    }

    /** {@link FlushlessProperty#EXACT_SEQUENCES}, as set or its default. */
    public boolean getExactSequences() {
        return getBoolean(FlushlessProperty.EXACT_SEQUENCES);
    }

    /** {@link FlushlessProperty#CATALOG_CACHE_SECONDS}. */
    public void setCatalogCacheSeconds(int seconds) {
        set(FlushlessProperty.CATALOG_CACHE_SECONDS, Integer.toString(seconds));
    }

    /** {@link FlushlessProperty#CATALOG_CACHE_SECONDS}, as set or its default. */
    public int getCatalogCacheSeconds() {
        return getInt(FlushlessProperty.CATALOG_CACHE_SECONDS);
    }

    /** {@link FlushlessProperty#PARSE_CACHE_SIZE} (driver-wide: read from the first connection). */
    public void setParseCacheSize(int entries) {
        set(FlushlessProperty.PARSE_CACHE_SIZE, Integer.toString(entries));
    }

    /** {@link FlushlessProperty#PARSE_CACHE_SIZE}, as set or its default. */
    public int getParseCacheSize() {
        return getInt(FlushlessProperty.PARSE_CACHE_SIZE);
    }

    /** {@link FlushlessProperty#MAX_BUFFERED_ROWS}. */
    public void setMaxBufferedRows(int rows) {
        set(FlushlessProperty.MAX_BUFFERED_ROWS, Integer.toString(rows));
    }

    /** {@link FlushlessProperty#MAX_BUFFERED_ROWS}, as set or its default. */
    public int getMaxBufferedRows() {
        return getInt(FlushlessProperty.MAX_BUFFERED_ROWS);
    }

    /** {@link FlushlessProperty#MAX_BUFFERED_BYTES}. */
    public void setMaxBufferedBytes(int bytes) {
        set(FlushlessProperty.MAX_BUFFERED_BYTES, Integer.toString(bytes));
    }

    /** {@link FlushlessProperty#MAX_BUFFERED_BYTES}, as set or its default. */
    public int getMaxBufferedBytes() {
        return getInt(FlushlessProperty.MAX_BUFFERED_BYTES);
    }

    /** {@link FlushlessProperty#GROUP_COMMIT}. */
    public void setGroupCommit(boolean groupCommit) {
        set(FlushlessProperty.GROUP_COMMIT, Boolean.toString(groupCommit));
    }

    /** {@link FlushlessProperty#GROUP_COMMIT}, as set or its default. */
    public boolean getGroupCommit() {
        return getBoolean(FlushlessProperty.GROUP_COMMIT);
    }

    /** {@link FlushlessProperty#GROUP_COMMIT_MAX_DELAY_MICROS}. */
    public void setGroupCommitMaxDelayMicros(int micros) {
        set(FlushlessProperty.GROUP_COMMIT_MAX_DELAY_MICROS, Integer.toString(micros));
    }

    /** {@link FlushlessProperty#GROUP_COMMIT_MAX_DELAY_MICROS}, as set or its default. */
    public int getGroupCommitMaxDelayMicros() {
        return getInt(FlushlessProperty.GROUP_COMMIT_MAX_DELAY_MICROS);
    }

    /** {@link FlushlessProperty#GROUP_COMMIT_MAX_ROWS}. */
    public void setGroupCommitMaxRows(int rows) {
        set(FlushlessProperty.GROUP_COMMIT_MAX_ROWS, Integer.toString(rows));
    }

    /** {@link FlushlessProperty#GROUP_COMMIT_MAX_ROWS}, as set or its default. */
    public int getGroupCommitMaxRows() {
        return getInt(FlushlessProperty.GROUP_COMMIT_MAX_ROWS);
    }

    /** {@link FlushlessProperty#ON_CONFLICT}: {@code auto}, {@code native} or {@code antijoin}; null resets it. */
    public void setOnConflict(String onConflict) {
        set(FlushlessProperty.ON_CONFLICT, onConflict);
    }

    /** {@link FlushlessProperty#ON_CONFLICT}, as set or its default. */
    public String getOnConflict() {
        return get(FlushlessProperty.ON_CONFLICT);
    }

    /** {@link FlushlessProperty#COPY}: {@code auto}, {@code off} or {@code always}; {@code null} resets it. */
    public void setCopy(String copy) {
        set(FlushlessProperty.COPY, copy);
    }

    /** {@link FlushlessProperty#COPY}, as set or its default. */
    public String getCopy() {
        return get(FlushlessProperty.COPY);
    }

    /** {@link FlushlessProperty#FOLLOWER_READS}: milliseconds of staleness, 0 for off. */
    public void setFollowerReads(int stalenessMs) {
        set(FlushlessProperty.FOLLOWER_READS, Integer.toString(stalenessMs));
    }

    /** {@link FlushlessProperty#FOLLOWER_READS}, as set or its default. */
    public int getFollowerReads() {
        return getInt(FlushlessProperty.FOLLOWER_READS);
    }

    /** {@link FlushlessProperty#WRITE_PIPELINING}: {@code auto}, {@code on} or {@code off}; {@code null} resets it. */
    public void setWritePipelining(String writePipelining) {
        set(FlushlessProperty.WRITE_PIPELINING, writePipelining);
    }

    /** {@link FlushlessProperty#WRITE_PIPELINING}, as set or its default. */
    public String getWritePipelining() {
        return get(FlushlessProperty.WRITE_PIPELINING);
    }

    /** {@link FlushlessProperty#REPLICAS}: {@code host:port,...} of hot standbys; empty or null turns replica reads off. */
    public void setReplicas(String replicas) {
        set(FlushlessProperty.REPLICAS, replicas);
    }

    /** {@link FlushlessProperty#REPLICAS}, as set or its default (empty). */
    public String getReplicas() {
        return get(FlushlessProperty.REPLICAS);
    }

    /** {@link FlushlessProperty#READ_YOUR_WRITES}. */
    public void setReadYourWrites(boolean readYourWrites) {
        set(FlushlessProperty.READ_YOUR_WRITES, Boolean.toString(readYourWrites));
    }

    /** {@link FlushlessProperty#READ_YOUR_WRITES}, as set or its default. */
    public boolean getReadYourWrites() {
        return getBoolean(FlushlessProperty.READ_YOUR_WRITES);
    }

    /** {@link FlushlessProperty#REPLICA_MAX_WAIT_MS}. */
    public void setReplicaMaxWaitMs(int millis) {
        set(FlushlessProperty.REPLICA_MAX_WAIT_MS, Integer.toString(millis));
    }

    /** {@link FlushlessProperty#REPLICA_MAX_WAIT_MS}, as set or its default. */
    public int getReplicaMaxWaitMs() {
        return getInt(FlushlessProperty.REPLICA_MAX_WAIT_MS);
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
        throw Errors.notSupported("FlushlessDataSource is not a wrapper for " + iface.getName()
                + ": it opens connections by URL and wraps no DataSource.");
    }

    @Override
    public boolean isWrapperFor(Class<?> iface) throws SQLException {
        return iface.isInstance(this) || (wrapped != null && wrapped.isWrapperFor(iface));
    }

    @Override
    public String toString() {
        return wrapped != null
                ? "FlushlessDataSource wrapping " + wrapped
                : "FlushlessDataSource[" + (url == null ? "no URL" : FlushlessDriver.redact(url)) + "]";
    }
}
