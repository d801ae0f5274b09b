package dev.flushless.jdbc;

import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;

/**
 * Every {@code flushless.*} setting the driver understands, in the style of pgjdbc's {@code PGProperty}:
 * one place holds each setting's name, default, allowed values and description. The user guide's property
 * table (docs/guide.md) is checked against this enum by a test. The type of a constant's default says what its values are:
 * a whole number in a range, {@code true}/{@code false}, the constants of a Java enum in lower case, or free text
 * checked by a rule (a list of replicas).
 * {@link FlushlessConfig} reads every constant, and {@link FlushlessDataSource} has a setter for each.
 *
 * <p>Settings come from the JDBC URL's query string or from the {@link Properties} given to
 * {@code connect}; when both name the same key, the URL wins (as in pgjdbc). They are removed before the
 * delegate driver sees the URL or the properties.
 */
public enum FlushlessProperty {

    /**
     * What the driver rewrites. {@code off} passes every call through unchanged; {@code batch} coalesces
     * JDBC batches; {@code transaction} also buffers the writes of an explicit transaction.
     */
    MODE(
            "flushless.mode",
            FlushlessConfig.Mode.BATCH,
            "What to rewrite: off (pass everything through), batch (coalesce JDBC batches),"
                    + " transaction (also buffer the writes of explicit transactions)"),

    /**
     * Upper bound on the rows of one coalesced statement. A batch larger than this runs as several
     * statements (still in one round trip); the 65535 bind-parameter limit of the protocol also applies.
     */
    MAX_ROWS_PER_STATEMENT(
            "flushless.maxRowsPerStatement",
            4096,
            1,
            65535,
            "Most rows one coalesced statement carries; larger batches become several statements, sent together"),

    /**
     * Whether tables with user triggers, rules or row-level security may be rewritten. Off by default:
     * such code can skip rows or read and write other tables, so coalescing could change what it sees.
     */
    TRUST_TRIGGERS(
            "flushless.trustTriggers",
            false,
            "Rewrite writes to tables that have user triggers, rules or row-level security (they are left alone"
                    + " by default)"),

    /**
     * Whether INSERTs into tables that draw ids from a sequence (serial, identity, or a default calling a
     * function) are left as sent. Off by default. A coalesced statement, a buffered flush or a group that fails
     * has drawn values before it is undone, and PostgreSQL cannot give them back, so ids drawn after such an
     * error are higher than with bare pgjdbc (documented deviation 4); with this on, those INSERTs are never
     * coalesced, buffered or grouped, and draw exactly what bare pgjdbc draws.
     */
    EXACT_SEQUENCES(
            "flushless.exactSequences",
            false,
            "Leave INSERTs into tables that draw ids from a sequence as sent, so that a failed batch draws exactly"
                    + " the ids bare pgjdbc would (deviation 4 does not apply)"),

    /**
     * The size rule: a batch of fewer rows (or a Statement batch of fewer texts) runs as sent, before any catalog
     * read. Coalescing saves server work per row but costs a fixed amount per batch (recording, planning, a guard
     * savepoint inside a transaction); on PostgreSQL it pays from about 24 rows directly and 50 rows at 0.25 ms
     * (docs/benchmarks.md), so {@code 0}, the default, means 50 there and 2 on YugabyteDB, where every statement
     * costs a consensus round trip. In {@code mode=transaction} a smaller batch is still buffered; and with writes
     * already buffered it still coalesces, since it then saves their round trip.
     */
    MIN_BATCH_ROWS(
            "flushless.minBatchRows",
            0,
            0,
            65535,
            "Smallest batch (rows, or a Statement batch's texts) that is coalesced; smaller ones run as sent"
                    + " (0 = auto: 50 on PostgreSQL, 2 on YugabyteDB)"),

    /**
     * The smallest keyed UPDATE batch that sets a column of a unique key which is coalesced. Such a statement must
     * check that running its rows one by one in batch order would not have failed a unique check
     * ({@code Rewriter.keyedUpdateInOrderUnnest}): a second join reads the rows' old values and a grouping compares
     * them, a fixed cost that a small batch does not earn back. pgjdbc sends up to 250 statements in one round trip,
     * so such a batch saves no round trip either. Measured (docs/benchmarks.md, a Hibernate-style UPDATE of every
     * column on 2,000- and 20,000-row tables): coalesced 1.06-1.12x bare pgjdbc's time at 50 rows, 0.93-0.95x at
     * 75-100 and 0.86-0.87x at 250. {@code 0}, the default, means 100 on PostgreSQL and {@link #MIN_BATCH_ROWS}' value
     * on YugabyteDB, where every statement costs a consensus round trip. With writes buffered in {@code
     * mode=transaction} such a batch is still coalesced, since they then ride along.
     */
    UNIQUE_UPDATE_MIN_ROWS(
            "flushless.uniqueUpdateMinRows",
            0,
            0,
            65535,
            "Smallest keyed UPDATE batch that sets a column of a unique key that is coalesced; smaller ones run as"
                    + " sent (0 = auto: 100 on PostgreSQL, where the in-order unique check costs more than it saves"
                    + " below it, flushless.minBatchRows on YugabyteDB)"),

    /**
     * Whether a connection's first batch into a table whose catalog facts it has not read is coalesced inside a
     * transaction. Off by default on PostgreSQL: the facts take a query of their own (one round trip), so coalescing
     * such a batch would cost one round trip more than pgjdbc's own pipelined batch of up to
     * {@code Batches.FIRST_BATCH_MAX_ROWS} rows; instead it runs as sent, with bare pgjdbc's round trips, and the facts
     * are read in the round trip of the transaction's COMMIT, so that the table's next batches are coalesced.
     * Autocommit batches (nothing to ride on), larger batches (which pgjdbc sends in several round trips) and YugabyteDB
     * (where every statement as sent costs more) read the facts first, as with {@code true}.
     */
    COALESCE_FIRST_BATCH(
            "flushless.coalesceFirstBatch",
            false,
            "Coalesce even a connection's first batch into a table inside a transaction (reads the table's catalog facts"
                    + " at once; by default that batch runs as sent and the facts are read with the COMMIT)"),

    /**
     * {@code mode=transaction}: whether a connection's first single write into a table is buffered. Off by default:
     * buffering needs the table's catalog facts (a query of about 3-20 ms on a fresh server session, more than the
     * round trip the buffering saves), so the first write runs as sent and the facts are read at the second write
     * into the table, or at a batch of at least {@link #MIN_BATCH_ROWS} rows. A connection that writes a table once
     * (a short-lived connection, a migration tool's history row) never pays for the read.
     */
    BUFFER_FIRST_WRITE(
            "flushless.bufferFirstWrite",
            false,
            "mode=transaction: buffer even a connection's first write into a table (reads the table's catalog facts"
                    + " at once; by default the first write runs as sent and they are read at the second)"),

    /**
     * {@code mode=transaction}: the shortest round trip, in microseconds, at which a transaction's writes are buffered.
     * Buffering saves round trips and costs client CPU (recording, planning, one larger statement); where the server
     * answers faster than this (the same host: a loopback round trip is 20-100 us) the CPU costs more than the round
     * trips it saves, and takes it from the server on that host, so such transactions run their writes as sent
     * (counted as {@code near-server}). Measured as the least read time (a read as sent is a round trip plus the
     * server's work) among the connection's last 64 reads and the last one to two seconds of reads of all the driver's
     * connections to the same host and port (on a host whose cores are saturated, one connection's reads all wait for a
     * CPU; some of all connections' do not); decided at the start of each transaction; buffered until the connection
     * timed 4 reads. {@code 0}: always buffer.
     */
    BUFFER_MIN_ROUND_TRIP_MICROS(
            "flushless.bufferMinRoundTripMicros",
            200,
            0,
            1_000_000,
            "mode=transaction: buffer a transaction's writes only where reads from the server take at least this many"
                    + " microseconds (the least of the connection's last 64 and of the last seconds' reads of all the"
                    + " driver's connections to that host and port; 0 = always)"),

    /**
     * How long a table's catalog facts (columns, types, triggers, rules, keys) are used before they are read again.
     * Facts are shared by the connections of the driver opened with the same URL and user, so a connection's first
     * batch into a table another connection already wrote sends no catalog query. DDL through the driver and errors
     * that may come from a changed table drop them at once; this bounds how long DDL by other programs goes unseen.
     * {@code 0}: every connection reads and keeps facts of its own for its lifetime (the behaviour before sharing).
     */
    CATALOG_CACHE_SECONDS(
            "flushless.catalogCacheSeconds",
            60,
            0,
            86_400,
            "How long table catalog facts are used before they are read again; shared by the driver's connections"
                    + " with the same URL and user (0 = per connection, for its lifetime)"),

    /** How many distinct SQL texts keep their analysis cached (driver-wide, least recently used first out). */
    PARSE_CACHE_SIZE(
            "flushless.parseCacheSize",
            2048,
            16,
            1_000_000,
            "Distinct SQL texts whose analysis is cached, driver-wide (read from the first connection); the cached"
                    + " texts hold at most 4096 characters per entry on average"),

    /**
     * {@code mode=transaction}: most INSERT rows a transaction keeps buffered; reaching it sends the buffer
     * (one round trip) and buffering starts again. Bounds the driver's memory per connection.
     */
    MAX_BUFFERED_ROWS(
            "flushless.maxBufferedRows",
            10_000,
            1,
            10_000_000,
            "mode=transaction: most INSERT rows a transaction keeps buffered before sending them"),

    /**
     * {@code mode=transaction}: most bytes of values (estimated) a transaction keeps buffered: bound values, and
     * the whole text of a plain Statement (its values are literals in it).
     */
    MAX_BUFFERED_BYTES(
            "flushless.maxBufferedBytes",
            16 * 1024 * 1024,
            1024,
            Integer.MAX_VALUE,
            "mode=transaction: most bytes of values (estimated; bound values, and a Statement's whole text) a"
                    + " transaction keeps buffered before sending them"),

    /**
     * Group commit across connections: concurrent single-row autocommit INSERTs of one SQL text, from
     * connections of the same database, user and session settings, run as one multi-row statement.
     * Off by default: other callers' rows may become visible together with yours.
     */
    GROUP_COMMIT(
            "flushless.groupCommit",
            false,
            "Group concurrent single-row autocommit INSERTs of one SQL text from many connections into one statement"),

    /**
     * Group commit: how long a group's leader waits at most for others, which it does only while writers that
     * earlier groups released are still away (at least four when it starts) and another group of its lane runs
     * (a lone writer never waits).
     */
    GROUP_COMMIT_MAX_DELAY_MICROS(
            "flushless.groupCommit.maxDelayMicros",
            200,
            0,
            1_000_000,
            "Group commit: most microseconds a group waits for more INSERTs (only while others are writing too)"),

    /** Group commit: most rows one grouped statement carries. */
    GROUP_COMMIT_MAX_ROWS(
            "flushless.groupCommit.maxRows", 1000, 2, 65535, "Group commit: most rows one grouped INSERT carries"),

    /**
     * How a batch of {@code INSERT ... ON CONFLICT (columns) DO NOTHING | DO UPDATE} is coalesced: {@code native}
     * as multi-row ON CONFLICT statements; {@code antijoin} as statements that read the existing keys first and
     * then update the existing rows and insert the missing ones (YugabyteDB flushes a native ON CONFLICT once
     * per row on releases that do not batch it server-side); {@code auto} picks antijoin exactly there.
     */
    ON_CONFLICT(
            "flushless.onConflict",
            FlushlessConfig.OnConflict.AUTO,
            "How ON CONFLICT batches are coalesced: native (multi-row ON CONFLICT), antijoin (read existing keys,"
                    + " update those, insert the rest; not safe against a concurrent insert of the same key), auto"
                    + " (antijoin on YugabyteDB releases that do not batch ON CONFLICT themselves, else native)"),

    /**
     * When a coalesced plain INSERT batch (or a transaction's buffered INSERTs into one table) is sent as
     * {@code COPY ... FROM STDIN}: the server writes COPY's rows in batches (heap pages and WAL per batch of rows, no
     * statement to parse and plan), which saves it about a third of a multi-row INSERT's time, but COPY costs two to
     * three more round trips. {@code auto} uses it where the rows' saving outweighs those round trips at the round-trip
     * time measured on the server (docs/semantics.md, "COPY"), {@code off} never, {@code always} wherever COPY stores
     * what the INSERTs would. Never on YugabyteDB, where an autocommit COPY is split into several transactions.
     */
    COPY(
            "flushless.copy",
            FlushlessConfig.Copy.AUTO,
            "When INSERT batches are sent as COPY FROM STDIN: auto (where the rows' saving outweighs COPY's extra round"
                    + " trips at the measured round-trip time), off, always (wherever COPY stores what the INSERTs"
                    + " would)"),

    /**
     * YugabyteDB follower reads: read-only connections and read-only transactions read from the nearest replica,
     * at most this many milliseconds stale. 0 (the default) turns it off; ignored, with a warning, on PostgreSQL.
     */
    FOLLOWER_READS(
            "flushless.followerReads",
            0,
            0,
            Integer.MAX_VALUE,
            "YugabyteDB: read-only connections and transactions read from followers at most this many ms stale"
                    + " (0 = off; ignored with a warning on PostgreSQL)"),

    /**
     * YugabyteDB: whether the flush model (the report's estimates, explain, the demo) assumes write pipelining
     * ({@code ysql_enable_write_pipelining}, a YB-TServer flag that SQL cannot read). {@code auto} takes the
     * connected release's default; {@code on}/{@code off} say how the servers are configured. Changes no statement
     * that is sent.
     */
    WRITE_PIPELINING(
            "flushless.writePipelining",
            FlushlessConfig.WritePipelining.AUTO,
            "YugabyteDB flush model: whether the servers run with write pipelining (ysql_enable_write_pipelining, which"
                    + " SQL cannot read): auto (the release's default: off up to 2026.1, on from main builds since"
                    + " July 2026), on, off; changes only the estimates"),

    /**
     * PostgreSQL hot standbys of the primary the URL names, as {@code host:port} (port 5432 when left out), separated
     * by commas. Read-only transactions and autocommit SELECTs the analysis proves read-only run on the nearest one
     * that is up; everything else on the primary. Empty (the default) turns replica reads off. Each is checked at the
     * first connection: one that cannot be reached is skipped with a warning, one that is not a standby of this
     * primary fails the connection ({@code dev.flushless.jdbc.replica}).
     */
    REPLICAS(
            "flushless.replicas",
            "",
            dev.flushless.jdbc.replica.HostPort::validateList,
            "host:port,...",
            "PostgreSQL hot standbys of this primary (host:port, comma-separated): read-only transactions and proven"
                    + " read-only autocommit SELECTs run on the nearest one (empty = off)"),

    /**
     * Whether a read on a replica must see every write this driver committed before the read started (on by
     * default): the replica first waits until it replayed the newest commit position the driver knows, at most
     * {@link #REPLICA_MAX_WAIT_MS}, else the read runs on the primary. On YugabyteDB with {@link #FOLLOWER_READS}, a
     * read-only transaction that could miss such a commit reads from the leaders instead.
     */
    READ_YOUR_WRITES(
            "flushless.readYourWrites",
            true,
            "Reads on replicas (and YugabyteDB follower reads) see every write this driver committed before them;"
                    + " false allows them to be stale"),

    /**
     * How long a replica read waits at most for the replica to replay the commit it must see; past it the read runs
     * on the primary. The wait happens on the replica, in the read's own round trip.
     */
    REPLICA_MAX_WAIT_MS(
            "flushless.replicaMaxWaitMs",
            100,
            0,
            60_000,
            "Most milliseconds a replica read waits for the replica to replay the writes it must see; then it runs on"
                    + " the primary");

    /** Prefix shared by every Flushless setting; keys with it are never passed to the delegate driver. */
    public static final String PREFIX = "flushless.";

    private final String key;
    private final String defaultValue;
    private final String[] choices;
    /** For a setting whose values are a Java enum's constants: those constants, in the order of {@link #choices}. */
    private final Enum<?>[] constants;

    private final int min;
    private final int max;
    private final String description;
    /** For a free-text setting: checks a value and returns its canonical form; {@code null} for the other kinds. */
    private final TextRule textRule;
    /** For a free-text setting: its allowed values in words. */
    private final String textForm;

    /** How a free-text setting's value is checked: the canonical value, or an exception naming what is wrong. */
    @FunctionalInterface
    interface TextRule {
        /** The canonical form of {@code value}; {@link IllegalArgumentException} with the reason when not allowed. */
        String canonical(String value);
    }

    /** A setting whose values are the constants of {@code defaultValue}'s enum, written in lower case. */
    <E extends Enum<E>> FlushlessProperty(String key, E defaultValue, String description) {
        E[] all = defaultValue.getDeclaringClass().getEnumConstants();
        String[] names = new String[all.length];
        for (int i = 0; i < all.length; i++) {
            names[i] = all[i].name().toLowerCase(Locale.ROOT);
        }
        this.key = key;
        this.defaultValue = defaultValue.name().toLowerCase(Locale.ROOT);
        this.choices = names;
        this.constants = all;
        this.min = 0;
        this.max = -1;
        this.description = description;
        this.textRule = null;
        this.textForm = null;
    }

    /** A {@code true}/{@code false} setting. */
    FlushlessProperty(String key, boolean defaultValue, String description) {
        this.key = key;
        this.defaultValue = Boolean.toString(defaultValue);
        this.choices = new String[] {"true", "false"};
        this.constants = null;
        this.min = 0;
        this.max = -1;
        this.description = description;
        this.textRule = null;
        this.textForm = null;
    }

    /** A whole-number setting from {@code min} to {@code max}. */
    FlushlessProperty(String key, int defaultValue, int min, int max, String description) {
        this.key = key;
        this.defaultValue = Integer.toString(defaultValue);
        this.choices = new String[0];
        this.constants = null;
        this.min = min;
        this.max = max;
        this.description = description;
        this.textRule = null;
        this.textForm = null;
    }

    /** A free-text setting checked by {@code rule}, whose allowed values read {@code form}. */
    FlushlessProperty(String key, String defaultValue, TextRule rule, String form, String description) {
        this.key = key;
        this.defaultValue = defaultValue;
        this.choices = new String[0];
        this.constants = null;
        this.min = 0;
        this.max = -1;
        this.description = description;
        this.textRule = rule;
        this.textForm = form;
    }

    /** The key as written in a URL or {@link Properties}, e.g. {@code flushless.mode}. */
    public String key() {
        return key;
    }

    /** The value used when the setting is absent. */
    public String defaultValue() {
        return defaultValue;
    }

    /** The allowed values, or an empty array for a whole-number setting (see {@link #allowedValues()}). */
    public String[] choices() {
        return choices.clone();
    }

    /** The allowed values in words, as the user guide's property table shows them. */
    public String allowedValues() {
        if (textRule != null) {
            return textForm;
        }
        if (choices.length == 0) {
            return min + " to " + max;
        }
        StringBuilder text = new StringBuilder();
        for (String choice : choices) {
            text.append(text.length() == 0 ? "" : ", ")
                    .append('`')
                    .append(choice)
                    .append('`');
        }
        return text.toString();
    }

    /** Whether this is a free-text setting (e.g. {@link #REPLICAS}), whose value is a String. */
    boolean isText() {
        return textRule != null;
    }

    /** The validated value as a whole number (for whole-number settings). */
    public int getInt(Properties settings) throws SQLException {
        return Integer.parseInt(get(settings));
    }

    /** The validated value as a boolean (for {@code true}/{@code false} settings). */
    public boolean getBoolean(Properties settings) throws SQLException {
        return Boolean.parseBoolean(get(settings));
    }

    /**
     * The validated value in {@code settings} (its default when absent) as its Java type: an {@link Integer} for a
     * whole-number setting, a {@link Boolean} for a {@code true}/{@code false} one, else the enum constant (e.g. a
     * {@link FlushlessConfig.Mode}). {@link FlushlessConfig} holds these, one per setting.
     */
    Object getValue(Properties settings) throws SQLException {
        String value = get(settings);
        if (textRule != null) {
            return value;
        }
        if (choices.length == 0) {
            return Integer.valueOf(value);
        }
        if (constants == null) {
            return Boolean.valueOf(value);
        }
        return constants[Arrays.asList(choices).indexOf(value)];
    }

    /** The type of this setting's property on {@link FlushlessDataSource}: {@code int}, {@code boolean} or String. */
    Class<?> beanType() {
        if (textRule != null) {
            return String.class;
        }
        if (choices.length == 0) {
            return int.class;
        }
        return constants == null ? boolean.class : String.class;
    }

    /**
     * The name of this setting's property on {@link FlushlessDataSource}: the key without {@link #PREFIX}, each
     * further dot dropped and the letter after it capitalised ({@code flushless.groupCommit.maxRows} is
     * {@code groupCommitMaxRows}, set by {@code setGroupCommitMaxRows}).
     */
    String beanName() {
        StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (char c : key.substring(PREFIX.length()).toCharArray()) {
            if (c == '.') {
                upper = true;
            } else {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }

    /** One line saying what the setting does. */
    public String description() {
        return description;
    }

    /** The setting for {@code key}, or {@code null} when no setting has that key. */
    public static FlushlessProperty forKey(String key) {
        for (FlushlessProperty property : values()) {
            if (property.key.equals(key)) {
                return property;
            }
        }
        return null;
    }

    /**
     * The validated value of this setting in {@code settings} (its default when absent).
     *
     * @throws SQLException SQLState 22023 when the value is not one of the allowed values
     */
    public String get(Properties settings) throws SQLException {
        String value = settings.getProperty(key);
        if (value == null) {
            return defaultValue;
        }
        return validate(value);
    }

    /**
     * Checks {@code value} for this setting and returns it in canonical (lower-case) form.
     *
     * @throws SQLException SQLState 22023 naming the key, the value and the allowed values
     */
    public String validate(String value) throws SQLException {
        if (textRule != null) {
            try {
                return textRule.canonical(value);
            } catch (IllegalArgumentException bad) {
                throw Errors.invalidSetting("Invalid value '" + value + "' for Flushless setting " + key + ": "
                        + bad.getMessage() + " (allowed: " + textForm + "; default '" + defaultValue
                        + "'). Fix the JDBC URL or connection properties.");
            }
        }
        String canonical = value.trim().toLowerCase(Locale.ROOT);
        if (choices.length > 0) {
            if (Arrays.asList(choices).contains(canonical)) {
                return canonical;
            }
            throw Errors.invalidSetting("Invalid value '" + value + "' for Flushless setting " + key
                    + ": allowed values are " + String.join(", ", choices)
                    + " (default " + defaultValue + "). Fix the JDBC URL or connection properties.");
        }
        try {
            int number = Integer.parseInt(canonical);
            if (number >= min && number <= max) {
                return Integer.toString(number);
            }
        } catch (NumberFormatException notANumber) {
            // reported below
        }
        throw Errors.invalidSetting("Invalid value '" + value + "' for Flushless setting " + key
                + ": allowed values are whole numbers from " + min + " to " + max
                + " (default " + defaultValue + "). Fix the JDBC URL or connection properties.");
    }

    /** This setting as {@link java.sql.Driver#getPropertyInfo} reports it, with the value found in {@code settings}. */
    DriverPropertyInfo toDriverPropertyInfo(Properties settings) {
        DriverPropertyInfo info = new DriverPropertyInfo(key, settings.getProperty(key, defaultValue));
        info.description = description;
        info.required = false;
        info.choices = choices.length == 0 ? null : choices.clone();
        return info;
    }

    /**
     * Rejects any {@code flushless.*} key this enum does not declare, so a typo is an error rather than
     * a setting silently ignored.
     *
     * @throws SQLException SQLState 22023 naming the unknown key and listing the known ones
     */
    static void rejectUnknownKeys(Properties settings) throws SQLException {
        for (String name : settings.stringPropertyNames()) {
            if (name.startsWith(PREFIX) && forKey(name) == null) {
                throw Errors.invalidSetting("Unknown Flushless setting '" + name + "' (value '"
                        + settings.getProperty(name) + "'): known settings are " + knownKeys()
                        + ". Remove it or correct its spelling.");
            }
        }
    }

    private static String knownKeys() {
        StringBuilder keys = new StringBuilder();
        for (FlushlessProperty property : values()) {
            if (keys.length() > 0) {
                keys.append(", ");
            }
            keys.append(property.key);
        }
        return keys.toString();
    }
}
