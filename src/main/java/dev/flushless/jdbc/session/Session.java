package dev.flushless.jdbc.session;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.stats.FlushlessStats;
import java.sql.Connection;
import java.sql.SQLException;

/**
 * What one Flushless connection knows and holds, as its features see it: the pgjdbc connection underneath, the
 * settings, the counters, the catalog facts of the tables it wrote, the SQL analysis cache and the server. The JDBC
 * facades, transaction mode and group commit all reach the connection through this interface (never through the
 * facade's fields), so each feature depends on what it uses and nothing else.
 */
public interface Session {

    /** The pgjdbc connection (or the delegate driver's) underneath. */
    Connection delegate();

    /** The validated {@code flushless.*} settings. */
    FlushlessConfig config();

    /** This connection's counters (each also feeds the driver-wide totals). */
    FlushlessStats stats();

    /** The catalog facts of the tables this connection's statements touched, read once each. */
    TableCatalog catalog();

    /** The driver-wide SQL analysis cache. */
    SqlAnalyzer analyzer();

    /** The server: PostgreSQL or YugabyteDB, its version and flush model. */
    ServerFacts server();

    /** The subtransactions the driver's guard savepoints took in the current transaction, and their cap. */
    Subtransactions subtransactions();

    /** pgjdbc's settings that change what it sends for a parameter (read from the connection, nothing sent). */
    default SessionFacts sessionFacts() {
        return SessionFacts.of(delegate());
    }

    /**
     * What must be equal for two connections' statements to run on either one: database, user, role and every setting
     * the session did not take from the server's defaults or configuration file. Read once (one round trip) and again
     * after {@link #sessionChanged()}.
     */
    String fingerprint() throws SQLException;

    /** The application may have changed the session (SET, setSchema, isolation...): read what depends on it again. */
    void sessionChanged();
}
