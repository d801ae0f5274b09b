package dev.flushless.jdbc.yugabyte;

import dev.flushless.jdbc.session.ServerFacts;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * {@code flushless.followerReads=<staleness ms>} on one YugabyteDB connection: while the connection is read-only
 * ({@code setReadOnly(true)}, or opened read-only), its sessions settings make reads go to the nearest replica,
 * at most that stale: {@code yb_read_from_followers = true}, {@code yb_follower_read_staleness_ms = N}, and
 * {@code default_transaction_read_only = on} (YugabyteDB serves follower reads to read-only transactions only;
 * pgjdbc marks only explicit transactions read-only, so an autocommit statement needs it too). The three
 * previous values are read in the same round trip that sets them, and restored when read-only is turned off.
 * On PostgreSQL the setting is ignored: {@link #forConnection} logs one warning and returns {@code null}.
 */
public final class FollowerReads {

    private static final System.Logger LOG = System.getLogger("dev.flushless.jdbc");

    /** The settings changed, in this order. */
    static final String[] SETTINGS = {
        "yb_read_from_followers", "yb_follower_read_staleness_ms", "default_transaction_read_only"
    };

    private final String[] names;
    private final String[] values;
    /** The values before follower reads were turned on, or {@code null} while off. */
    private String[] previous;

    /** Sets the session settings {@code names} to {@code values} while read-only (package-private for tests). */
    FollowerReads(String[] names, String[] values) {
        this.names = names.clone();
        this.values = values.clone();
    }

    private FollowerReads(int stalenessMs) {
        this(SETTINGS, new String[] {"true", Integer.toString(stalenessMs), "on"});
    }

    /**
     * Follower reads for a connection to {@code server}: {@code null} when {@code stalenessMs} is 0 (off) or the
     * server is not YugabyteDB (then with one warning, for this connection, and nothing sent).
     */
    public static FollowerReads forConnection(int stalenessMs, ServerFacts server) {
        if (stalenessMs <= 0) {
            return null;
        }
        if (!server.yugabyte()) {
            LOG.log(
                    System.Logger.Level.WARNING,
                    "Flushless: flushless.followerReads=" + stalenessMs
                            + " is ignored: the server is not YugabyteDB (it reports version " + server.version()
                            + "); nothing is sent for it. Remove the setting for PostgreSQL connections.");
            return null;
        }
        return new FollowerReads(stalenessMs);
    }

    /**
     * The statement that reads the settings' current values and then sets them, in one round trip: the previous
     * values come from a subquery that is evaluated first ({@code OFFSET 0} keeps it a subquery). Names and values
     * are constants of this class (or of a test), quoted as SQL literals.
     */
    static String enableSql(String[] names, String[] values) {
        StringBuilder current = new StringBuilder();
        StringBuilder set = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            current.append(i > 0 ? ", " : "")
                    .append("current_setting(")
                    .append(literal(names[i]))
                    .append(")");
            set.append(", set_config(")
                    .append(literal(names[i]))
                    .append(", ")
                    .append(literal(values[i]))
                    .append(", false)");
        }
        return "SELECT o.*" + set + " FROM (SELECT " + current + " OFFSET 0) AS o";
    }

    /** Sets each of {@code names} to a parameter, at session level. */
    static String restoreSql(String[] names) {
        StringBuilder out = new StringBuilder("SELECT ");
        for (int i = 0; i < names.length; i++) {
            out.append(i > 0 ? ", " : "")
                    .append("set_config(")
                    .append(literal(names[i]))
                    .append(", ?, false)");
        }
        return out.toString();
    }

    private static String literal(String text) {
        return "'" + text.replace("'", "''") + "'";
    }

    /** True while the follower-read settings are in force. */
    public boolean enabled() {
        return previous != null;
    }

    /**
     * The connection's read-only state is now {@code readOnly} (pgjdbc accepted the change, so no transaction is
     * open): turns follower reads on or restores the previous settings, in one round trip. Runs outside any
     * transaction (pgjdbc's autocommit is switched on for the call when it is off), so that the settings outlive
     * the application's next rollback.
     */
    public synchronized void readOnlyChanged(Connection pgjdbc, boolean readOnly) throws SQLException {
        if (readOnly == enabled()) {
            return;
        }
        boolean autoCommit = pgjdbc.getAutoCommit();
        if (!autoCommit) {
            pgjdbc.setAutoCommit(true); // no transaction is open: nothing is committed, nothing is sent
        }
        try {
            if (readOnly) {
                String[] before = new String[names.length];
                try (PreparedStatement ps = pgjdbc.prepareStatement(enableSql(names, values));
                        ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    for (int i = 0; i < before.length; i++) {
                        before[i] = rs.getString(i + 1);
                    }
                }
                previous = before;
            } else {
                try (PreparedStatement ps = pgjdbc.prepareStatement(restoreSql(names))) {
                    for (int i = 0; i < previous.length; i++) {
                        ps.setString(i + 1, previous[i]);
                    }
                    ps.executeQuery().close();
                }
                previous = null;
            }
        } finally {
            if (!autoCommit) {
                pgjdbc.setAutoCommit(false);
            }
        }
    }
}
