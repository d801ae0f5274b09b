package dev.flushless.jdbc.yugabyte;

import dev.flushless.jdbc.replica.PrimaryReason;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.stats.FlushlessStats;
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
 *
 * <p>With {@code flushless.readYourWrites} (the default), each read-only period asks the {@link FollowerReadClock}
 * whether it could miss a write of this driver ({@link dev.flushless.jdbc.replica.FollowerReadCausality}); if so the
 * period reads from the leaders ({@code yb_read_from_followers = false}, still read-only), set in the same round trip.
 * A period on followers that a later write would make stale switches to the leaders at its next transaction or
 * autocommit statement (one round trip, only then); a period on the leaders goes back to followers only at the next
 * {@code setReadOnly(true)}, which costs no round trip on the read path.
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

    /** Read-your-writes: this driver's writes, or {@code null} when {@code flushless.readYourWrites} is off. */
    private final FollowerReadClock clock;

    private final int stalenessMs;
    private final FlushlessStats stats;
    /** While enabled: the first setting is {@code false}, reads go to the leaders (read-your-writes). */
    private boolean onLeaders;
    /** A statement ran since the application's transaction began (autocommit off): its read time may be taken. */
    private boolean inTransaction;

    /** Sets the session settings {@code names} to {@code values} while read-only (package-private for tests). */
    FollowerReads(String[] names, String[] values) {
        this(names, values, null, 0, null);
    }

    /**
     * As {@link #FollowerReads(String[], String[])}; with a {@code clock} (read-your-writes), a read-only period that
     * could miss a write on it, reading {@code stalenessMs} stale, sets the first setting to {@code false} instead.
     */
    FollowerReads(String[] names, String[] values, FollowerReadClock clock, int stalenessMs, FlushlessStats stats) {
        this.names = names.clone();
        this.values = values.clone();
        this.clock = clock;
        this.stalenessMs = stalenessMs;
        this.stats = stats;
    }

    /**
     * Follower reads for a connection to {@code server}: {@code null} when {@code stalenessMs} is 0 (off) or the
     * server is not YugabyteDB (then with one warning, for this connection, and nothing sent).
     *
     * @param clock this driver's writes to the database, for read-your-writes; {@code null} to read from followers
     *     whatever was written ({@code flushless.readYourWrites=false})
     */
    public static FollowerReads forConnection(
            int stalenessMs, ServerFacts server, FollowerReadClock clock, FlushlessStats stats) {
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
        return new FollowerReads(
                SETTINGS, new String[] {"true", Integer.toString(stalenessMs), "on"}, clock, stalenessMs, stats);
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

    /** True while enabled with reads going to the leaders for read-your-writes. */
    public boolean onLeaders() {
        return previous != null && onLeaders;
    }

    /** Whether a read-only period starting now must read from the leaders. */
    private boolean leadersNeeded() {
        return clock != null && clock.readFromLeaders(System.nanoTime(), stalenessMs);
    }

    /**
     * The connection's read-only state is now {@code readOnly} (pgjdbc accepted the change, so no transaction is
     * open): turns follower reads on (from the leaders when read-your-writes asks it, in the same round trip) or
     * restores the previous settings, in one round trip. {@code setReadOnly(true)} on a connection already read-only
     * sends one statement only when the choice between followers and leaders changes. Runs outside any transaction
     * (pgjdbc's autocommit is switched on for the call when it is off), so that the settings outlive the
     * application's next rollback.
     */
    public synchronized void readOnlyChanged(Connection pgjdbc, boolean readOnly) throws SQLException {
        inTransaction = false;
        if (readOnly && enabled()) {
            boolean leaders = leadersNeeded();
            if (leaders != onLeaders) {
                outsideTransaction(pgjdbc, () -> setFirst(pgjdbc, leaders));
            }
            return;
        }
        if (readOnly == enabled()) {
            return;
        }
        outsideTransaction(pgjdbc, () -> {
            if (readOnly) {
                enable(pgjdbc);
            } else {
                restore(pgjdbc);
            }
        });
    }

    /**
     * A statement starts on the connection ({@code autoCommit}: the application's autocommit setting). On a
     * read-only connection reading from followers, the first statement of a transaction, or an autocommit statement,
     * that could miss a write of this driver switches the connection to the leaders first (one round trip, outside
     * the transaction). Counts the reads that start on the leaders for read-your-writes ({@code recent-write}).
     */
    public synchronized void statementStarting(Connection pgjdbc, boolean autoCommit) throws SQLException {
        if (!enabled() || (inTransaction && !autoCommit)) {
            return;
        }
        inTransaction = !autoCommit;
        if (!onLeaders && leadersNeeded()) {
            outsideTransaction(pgjdbc, () -> setFirst(pgjdbc, true));
        }
        if (onLeaders && stats != null) {
            stats.primaryRead(PrimaryReason.RECENT_WRITE.code());
        }
    }

    /** The application's transaction ended (commit, rollback, autocommit switched on, close). */
    public synchronized void transactionEnded() {
        inTransaction = false;
    }

    private interface Call {
        void run() throws SQLException;
    }

    /** Runs {@code call} with pgjdbc in autocommit (no transaction is open: switching it sends nothing). */
    private static void outsideTransaction(Connection pgjdbc, Call call) throws SQLException {
        boolean autoCommit = pgjdbc.getAutoCommit();
        if (!autoCommit) {
            pgjdbc.setAutoCommit(true); // no transaction is open: nothing is committed, nothing is sent
        }
        try {
            call.run();
        } finally {
            if (!autoCommit) {
                pgjdbc.setAutoCommit(false);
            }
        }
    }

    private void enable(Connection pgjdbc) throws SQLException {
        boolean leaders = leadersNeeded();
        String[] sent = values.clone();
        if (leaders) {
            sent[0] = "false";
        }
        String[] before = new String[names.length];
        try (PreparedStatement ps = pgjdbc.prepareStatement(enableSql(names, sent));
                ResultSet rs = ps.executeQuery()) {
            rs.next();
            for (int i = 0; i < before.length; i++) {
                before[i] = rs.getString(i + 1);
            }
        }
        previous = before;
        onLeaders = leaders;
    }

    /** Sets the first setting to {@code false} (leaders) or its follower value, at session level. */
    private void setFirst(Connection pgjdbc, boolean leaders) throws SQLException {
        try (PreparedStatement ps = pgjdbc.prepareStatement(restoreSql(new String[] {names[0]}))) {
            ps.setString(1, leaders ? "false" : values[0]);
            ps.executeQuery().close();
        }
        onLeaders = leaders;
    }

    private void restore(Connection pgjdbc) throws SQLException {
        try (PreparedStatement ps = pgjdbc.prepareStatement(restoreSql(names))) {
            for (int i = 0; i < previous.length; i++) {
                ps.setString(i + 1, previous[i]);
            }
            ps.executeQuery().close();
        }
        previous = null;
        onLeaders = false;
    }
}
