package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.buffer.BufferRules;
import dev.flushless.jdbc.buffer.BufferedWrite;
import dev.flushless.jdbc.buffer.FlushPlanner;
import dev.flushless.jdbc.buffer.TransactionBuffer;
import dev.flushless.jdbc.engine.Engine;
import dev.flushless.jdbc.session.ConflictFacts;
import dev.flushless.jdbc.session.ServerFacts;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.session.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code explain}: reads SQL statements and prints how Flushless (batch mode) would treat each as a
 * {@code PreparedStatement} batch, how runs of parameterless writes would be grouped as {@code Statement}
 * batches, and a summary; with {@code --mode transaction} also how {@code flushless.mode=transaction} would run
 * the script as one explicit transaction (what is buffered, what flushes and why, the commit). Every decision it
 * prints is taken by the driver's own code ({@link Engine#plan}, {@link Engine#sizeReason}, {@link BufferRules},
 * {@link FlushPlanner}, {@link BatchExecutor#roundTrips}); only the catalog differs: synthetic offline (plain
 * tables, the named columns typed text), or with {@code --url} the database's own, read read-only through the
 * driver's {@link TableCatalog}.
 */
public final class Explain {

    static final String USAGE = String.join(
            "\n",
            "usage: explain [--mode batch|transaction] [--rows N] [--max-rows N] [--url JDBC_URL] [--full-sql] FILE|-",
            "",
            "Reads SQL statements (separated by ';') from FILE, or from stdin for '-', and prints how Flushless",
            "would treat each one: as a PreparedStatement batch of N rows (coalesced or not, why, the rewrite kind,",
            "the statements sent and the rewritten SQL), how runs of parameterless INSERT/UPDATE/DELETE statements",
            "would be grouped as Statement batches (CTE chains), and a summary of statements and estimated flushes.",
            "With --mode transaction, then also the script as one explicit transaction (setAutoCommit(false), each",
            "statement executed once, commit()): which INSERTs are buffered, which statements send the buffer and",
            "why, the commit, the SQL each flush sends, and round trips compared with bare pgjdbc.",
            "",
            "  --mode batch|transaction  flushless.mode to explain (default batch)",
            "  --rows N                  rows in each PreparedStatement batch (default 1000, 1 to 1000000)",
            "  --max-rows N              flushless.maxRowsPerStatement (default 4096, 1 to 65535)",
            "  --url JDBC_URL            read the catalog of the tables the script names from this database",
            "                            (jdbc:postgresql:... or jdbc:flushless:..., whose flushless.* settings",
            "                            other than the mode apply)",
            "  --set flushless.KEY=VALUE a flushless.* setting to explain with (repeatable; over the --url's), e.g.",
            "                            --set flushless.minBatchRows=2",
            "  --full-sql                print rewritten SQL in full (long texts are shortened by default)",
            "  --help                    this text",
            "",
            "Without --url, offline: every table is assumed to be a plain table without triggers, rules or",
            "row-level security, with the columns the statements name, typed text. With --url, the tables' triggers,",
            "rules, row-level security, column types, unique keys, identity columns and sequence defaults are read",
            "with the driver's own lock-free catalog queries, in a read-only transaction that is rolled back: nothing",
            "in the database is changed, and the script itself is not run. Exit codes: 0 ok, 2 bad arguments,",
            "unreadable input or a database that cannot be reached, 1 unexpected failure.");

    static final int DEFAULT_ROWS = 1000;
    private static final int SQL_SHOWN = 1500;

    private final PrintStream out;
    private final int rows;
    private final int maxRows;
    private final boolean fullSql;
    /** The flushless.* settings explained: the defaults, or those of a jdbc:flushless: --url. */
    private final FlushlessConfig config;
    /** pgjdbc's session facts: its defaults offline, the --url connection's own otherwise. */
    private final SessionFacts session;

    private final YugabyteFlushModel flushModel;
    /** The database of --url, or {@code null} offline. */
    private final Database database;

    private final Map<String, Long> oids = new HashMap<>();

    private Explain(
            PrintStream out, int rows, Integer maxRows, boolean fullSql, Database database, FlushlessConfig config) {
        this.out = out;
        this.rows = rows;
        this.fullSql = fullSql;
        this.database = database;
        this.config = config;
        this.maxRows = maxRows != null ? maxRows : config.maxRowsPerStatement();
        this.session = database == null ? SessionFacts.PGJDBC_DEFAULTS : SessionFacts.of(database.connection());
        ServerFacts server = database == null ? null : ServerFacts.of(database.connection());
        this.flushModel = server == null ? YugabyteFlushModel.UNBATCHED_ON_CONFLICT : server.flushModel();
        this.yugabyte = server != null && server.yugabyte();
        this.minBatchRows = config.minBatchRows(yugabyte);
    }

    /** Whether the --url server is YugabyteDB (offline: PostgreSQL, for the size rules). */
    private final boolean yugabyte;
    /** The size rule's smallest coalesced batch: the --url server's, or PostgreSQL's offline. */
    private final int minBatchRows;

    /** Thrown for bad arguments, unreadable input or an unreachable database: exit code 2. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /**
     * What explain predicted, as its summaries print it: statements the application issues and Flushless sends in
     * the batch sections, and the transaction section's tallies ({@code null} without {@code --mode transaction}).
     */
    record Tallies(long issued, long sent, Transaction transaction) {

        /**
         * The transaction section's round trips and statements sent (BEGIN not counted; COMMIT and ROLLBACK counted,
         * {@code transactionControl} of them; guard savepoints counted).
         */
        record Transaction(long roundTrips, long statementsSent, long transactionControl) {}
    }

    /** Runs {@code explain} with {@code args}; returns the exit code. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        try {
            execute(args, in, out);
            return 0;
        } catch (UsageException e) {
            err.println("explain: " + e.getMessage());
            err.println("explain --help lists the options");
            return 2;
        } catch (NoClassDefFoundError e) {
            err.println("explain: a dependency of the driver is not on the classpath (" + e.getMessage() + "); the jar"
                    + " is not shaded, so 'java -jar' alone is not enough: use bin/flushless-explain, or see the"
                    + " README's explain section");
            return 1;
        } catch (RuntimeException | Error e) {
            err.println("explain: unexpected failure: " + e);
            e.printStackTrace(err);
            return 1;
        }
    }

    /** Runs {@code explain} with {@code args}, printing to {@code out}; returns its tallies ({@code null} for --help). */
    static Tallies execute(String[] args, InputStream in, PrintStream out) throws UsageException {
        String mode = "batch";
        int rows = DEFAULT_ROWS;
        Integer maxRows = null;
        boolean fullSql = false;
        String url = null;
        String file = null;
        java.util.Properties settings = new java.util.Properties();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--help":
                case "-h":
                    out.println(USAGE);
                    return null;
                case "--mode":
                    mode = value(args, ++i, arg);
                    if (!mode.equals("batch") && !mode.equals("transaction")) {
                        throw new UsageException("--mode must be batch or transaction, not '" + mode + "'");
                    }
                    break;
                case "--rows":
                    rows = intValue(args, ++i, arg, 1, 1_000_000);
                    break;
                case "--max-rows":
                    maxRows = intValue(args, ++i, arg, 1, 65535);
                    break;
                case "--url":
                    url = value(args, ++i, arg);
                    break;
                case "--full-sql":
                    fullSql = true;
                    break;
                case "--set": {
                    String setting = value(args, ++i, arg);
                    int equals = setting.indexOf('=');
                    if (equals <= 0 || !setting.startsWith(dev.flushless.jdbc.FlushlessProperty.PREFIX)) {
                        throw new UsageException("--set takes flushless.KEY=VALUE, not '" + setting + "'");
                    }
                    settings.setProperty(setting.substring(0, equals), setting.substring(equals + 1));
                    break;
                }
                default:
                    if (arg.startsWith("-") && !arg.equals("-")) {
                        throw new UsageException("unknown option '" + arg + "'");
                    }
                    if (file != null) {
                        throw new UsageException("one input only (got '" + file + "' and '" + arg + "')");
                    }
                    file = arg;
            }
        }
        if (file == null) {
            throw new UsageException("no input: give a FILE, or - for stdin");
        }
        String script = read(file, in);
        Database database = url == null ? null : Database.open(url);
        try {
            FlushlessConfig config;
            try {
                config = (database == null ? FlushlessConfig.defaults() : database.config()).with(settings);
            } catch (SQLException e) {
                throw new UsageException("--set: " + e.getMessage());
            }
            return new Explain(out, rows, maxRows, fullSql, database, config).explain(file, script, mode);
        } finally {
            if (database != null) {
                database.close();
            }
        }
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i >= args.length) {
            throw new UsageException(option + " needs a value");
        }
        return args[i];
    }

    private static int intValue(String[] args, int i, String option, int min, int max) throws UsageException {
        String text = value(args, i, option);
        try {
            int v = Integer.parseInt(text);
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new UsageException(
                option + " must be a whole number from " + min + " to " + max + ", not '" + text + "'");
    }

    private static String read(String file, InputStream in) throws UsageException {
        String name = file.equals("-") ? "stdin" : file;
        byte[] bytes;
        try {
            if (file.equals("-")) {
                bytes = in.readAllBytes();
            } else {
                Path path = Path.of(file);
                if (Files.isDirectory(path)) {
                    throw new UsageException("cannot read " + name + ": it is a directory");
                }
                bytes = Files.readAllBytes(path);
            }
        } catch (NoSuchFileException e) {
            throw new UsageException("cannot read " + name + ": no such file");
        } catch (AccessDeniedException e) {
            throw new UsageException("cannot read " + name + ": permission denied");
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new UsageException("cannot read " + name + ": " + e.getMessage());
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new UsageException("cannot read " + name + ": not UTF-8 text");
        }
    }

    /**
     * The database of {@code --url}, read-only: a connection (pgjdbc's, underneath a Flushless one) in a read-only
     * transaction that is rolled back on close, the driver's own {@link TableCatalog} over it (lock-free catalog
     * queries), and the flushless.* settings of a {@code jdbc:flushless:} URL (else the defaults). Nothing is written.
     */
    private record Database(
            Connection opened,
            Connection connection,
            TableCatalog catalog,
            FlushlessConfig config,
            String description) {

        static Database open(String url) throws UsageException {
            try {
                DriverManager.getDriver(url);
            } catch (SQLException e) {
                // the URL is not repeated: it may hold a password
                throw new UsageException(
                        "no driver accepts the --url (it must start with jdbc:postgresql: or" + " jdbc:flushless:)");
            }
            Connection opened;
            try {
                opened = DriverManager.getConnection(url);
            } catch (SQLException e) {
                throw new UsageException("cannot connect to the --url database: " + e.getMessage());
            }
            try {
                FlushlessConfig config = opened.isWrapperFor(FlushlessConnection.class)
                        ? opened.unwrap(FlushlessConnection.class).flushlessConfig()
                        : FlushlessConfig.defaults();
                Connection connection = opened.isWrapperFor(org.postgresql.PGConnection.class)
                        ? (Connection) opened.unwrap(org.postgresql.PGConnection.class)
                        : opened;
                // pgjdbc then opens every transaction with BEGIN READ ONLY: the server refuses any write
                connection.setAutoCommit(false);
                connection.setReadOnly(true);
                String description = "database " + connection.getCatalog() + " (" + ServerFacts.of(connection) + ")";
                return new Database(opened, connection, new TableCatalog(), config, description);
            } catch (SQLException | RuntimeException e) {
                try {
                    opened.close();
                } catch (SQLException ignored) {
                    // reported below
                }
                throw new UsageException("cannot use the --url database: " + e.getMessage());
            }
        }

        TableInfo lookup(String table) throws SQLException {
            return catalog.lookup(connection, table);
        }

        /** Rolls the read-only transaction back and closes the connection. */
        void close() {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                // closing rolls back too
            }
            try {
                opened.close();
            } catch (SQLException ignored) {
                // nothing was written
            }
        }
    }

    /** One statement of the script. */
    private record Item(int number, int line, StatementDescription description) {
        boolean isWrite() {
            StatementDescription.Kind kind = description.kind();
            return kind.isWrite();
        }

        boolean parameterless() {
            return description.parameterCount() == 0 && description.isSingleStatement();
        }
    }

    private Tallies explain(String file, String script, String mode) {
        SqlAnalyzer analyzer = new SqlAnalyzer(4096);
        List<Item> items = new ArrayList<>();
        int line = 1;
        int counted = 0; // newlines before this offset are in line
        for (int[] span : SqlAnalyzer.statementSpans(script)) {
            int start = firstSignificant(script, span[0], span[1]);
            for (; counted < start; counted++) {
                if (script.charAt(counted) == '\n') {
                    line++;
                }
            }
            items.add(new Item(items.size() + 1, line, analyzer.describe(script.substring(span[0], span[1]))));
        }
        out.println("Flushless explain: " + items.size() + " statement" + (items.size() == 1 ? "" : "s") + " from "
                + (file.equals("-") ? "stdin" : file));
        out.println("Settings: flushless.mode=" + mode + ", flushless.maxRowsPerStatement=" + maxRows
                + ", flushless.minBatchRows=" + minBatchRows
                + (mode.equals("transaction") ? ", flushless.bufferFirstWrite=" + config.bufferFirstWrite() : "")
                + ", PreparedStatement batches of " + rows + " row" + (rows == 1 ? "" : "s") + ".");
        if (mode.equals("transaction")) {
            out.println("The batch sections and their summary come first (batches in autocommit run exactly as in");
            out.println(
                    "  flushless.mode=batch); the section \"flushless.mode=transaction\" then runs the script as one");
            out.println("  explicit transaction.");
        }
        if (database == null) {
            out.println(
                    "Offline assumptions: every table is a plain table without triggers, rules or row-level security,");
            out.println(
                    "  with the columns the statements name, typed text; parameters are bound with setString (a parameter");
            out.println(
                    "  inside an expression such as col + ? with setLong), distinct per row. Casts and rewrite forms are");
            out.println(
                    "  shown for these untyped (text) parameters and may differ with the real column types; a real");
            out.println(
                    "  catalog (types whose equality is not modelled, triggers, views) can also turn a rewrite into a fallback.");
        } else {
            out.println(
                    "Catalog: read from " + database.description() + " with the driver's own catalog queries, in a");
            out.println(
                    "  read-only transaction that is rolled back (nothing is written; the script is not run); tables are");
            out.println(
                    "  read as they are now, not as DDL earlier in the script would leave them. Parameters are bound with");
            out.println(
                    "  setString (a parameter inside an expression such as col + ? with setLong), distinct per row.");
        }
        if (items.isEmpty()) {
            out.println();
            out.println("No SQL statements found.");
            return new Tallies(0, 0, mode.equals("transaction") ? new Tallies.Transaction(0, 0, 0) : null);
        }

        long preparedIssued = 0;
        long preparedSent = 0;
        long preparedWritesIssued = 0;
        long preparedFlushesAfter = 0;
        long otherStatements = 0;
        out.println();
        out.println(
                "== Each statement as a PreparedStatement batch of " + rows + " row" + (rows == 1 ? "" : "s") + " ==");
        for (Item item : items) {
            out.println();
            String sql = item.description().sql();
            out.println("[" + item.number() + "] line " + item.line() + ": "
                    + oneLine(sql.substring(firstSignificant(sql, 0, sql.length()))));
            if (!item.isWrite()) {
                out.println("  " + item.description().kind() + ": not an INSERT, UPDATE or DELETE; runs as sent, once");
                otherStatements++;
                continue;
            }
            BatchPlan plan = planPrepared(item.description());
            long sent = plan.isFallback() ? rows : plan.statements().size();
            if (plan.isFallback()) {
                out.println("  not coalesced, runs as sent: " + plan.fallbackReason());
            } else {
                out.println("  coalesced: " + plan.rewriteKind());
            }
            int trips = plan.isFallback()
                    ? 0
                    : BatchExecutor.roundTrips(
                            plan.statements(), item.description().parameterCount(), true);
            out.println("  statements: " + rows + " issued -> " + sent + " sent"
                    + (plan.isFallback() || sent == 1
                            ? ""
                            : trips == 1 ? " (in one round trip)" : " (in " + trips + " round trips)"));
            if (item.parameterless()) {
                out.println("  (no parameters: the rewritten SQL is not shown here; the summary counts it once, as a"
                        + " member of a Statement batch below)");
                continue;
            }
            if (!plan.isFallback()) {
                BatchPlan.Step first = plan.statements().get(0);
                out.println("  first statement: " + first.rows().length + " rows, "
                        + plural(first.parameterCount(item.description().parameterCount()), "bind parameter"));
                out.println("  rewritten SQL (first statement):");
                out.println(indent(shown(first.sql()), "    "));
            }
            preparedIssued += rows;
            preparedSent += sent;
            preparedWritesIssued += rows;
            preparedFlushesAfter += plan.isFallback() ? rows : plan.estimatedFlushes(flushModel);
        }

        out.println();
        out.println("== Parameterless INSERT/UPDATE/DELETE as Statement batches ==");
        out.println("Each run of consecutive parameterless INSERT/UPDATE/DELETE statements is explained as one");
        out.println("Statement batch (addBatch each, executeBatch once); any other statement ends a run.");
        long chainIssued = 0;
        long chainSent = 0;
        long chainFlushes = 0;
        int runs = 0;
        List<Item> run = new ArrayList<>();
        for (int i = 0; i <= items.size(); i++) {
            Item item = i < items.size() ? items.get(i) : null;
            if (item != null && item.isWrite() && item.parameterless()) {
                run.add(item);
                continue;
            }
            if (!run.isEmpty()) {
                runs++;
                chainIssued += run.size();
                BatchPlan plan = explainStatementBatch(run);
                chainSent += plan.isFallback() ? run.size() : plan.statements().size();
                chainFlushes += plan.isFallback() ? run.size() : plan.estimatedFlushes(flushModel);
                run.clear();
            }
        }
        if (runs == 0) {
            out.println();
            out.println("(none: every INSERT, UPDATE and DELETE has parameters)");
        }

        long issued = preparedIssued + chainIssued + otherStatements;
        long sent = preparedSent + chainSent + otherStatements;
        out.println();
        out.println("== Summary ==");
        out.println("  PreparedStatement batches (statements with parameters, " + rows + " rows each): "
                + preparedIssued + " issued -> " + preparedSent + " sent");
        out.println("  Statement batches (parameterless writes, once each): " + chainIssued + " issued -> " + chainSent
                + " sent");
        out.println("  other statements (run as sent, once each): " + otherStatements);
        out.println("  statements: " + issued + " issued by the application -> " + sent + " sent by Flushless");
        out.println("  estimated YugabyteDB flushes: " + (preparedWritesIssued + chainIssued) + " before -> "
                + (preparedFlushesAfter + chainFlushes) + " after");
        out.println(
                "  (model: every INSERT, UPDATE or DELETE statement waits for one flush, and one more per 3072 rows it");
        out.println(
                "  writes; a multi-row INSERT ... ON CONFLICT one per row, as on YugabyteDB releases that do not batch");
        out.println("  ON CONFLICT; other statements and commits are not counted)");
        if (!config.replicas().isEmpty()) {
            explainReplicaReads(items);
        }
        Tallies.Transaction transaction = mode.equals("transaction") ? explainTransaction(items) : null;
        return new Tallies(issued, sent, transaction);
    }

    /**
     * With {@code flushless.replicas}: where each statement would run, once in autocommit and once inside a read-only
     * transaction ({@code setReadOnly(true)}) that has sent nothing to the primary, by the driver's own
     * {@link dev.flushless.jdbc.replica.ReplicaDecision} (replicas up, no write pending, no session change).
     */
    private void explainReplicaReads(List<Item> items) {
        out.println();
        out.println("== Replica reads (flushless.replicas="
                + config.replicas().toString().replaceAll("[\\[\\] ]", "") + ") ==");
        out.println(
                "Where each statement would run: in autocommit, and as the first statement of a read-only transaction");
        out.println("(replicas up, no write of the driver pending, no session change before it).");
        for (Item item : items) {
            StatementDescription d = item.description();
            boolean query = d.kind() == StatementDescription.Kind.SELECT;
            boolean proven = d.provenReadOnlyForReplica();
            dev.flushless.jdbc.replica.ReplicaDecision.Outcome autocommit =
                    dev.flushless.jdbc.replica.ReplicaDecision.decide(
                            new dev.flushless.jdbc.replica.ReplicaDecision.Facts(
                                    query, true, false, false, false, proven, false, false, true, false, true));
            dev.flushless.jdbc.replica.ReplicaDecision.Outcome readOnly =
                    dev.flushless.jdbc.replica.ReplicaDecision.decide(
                            new dev.flushless.jdbc.replica.ReplicaDecision.Facts(
                                    query, false, true, false, false, proven, false, false, true, false, true));
            out.println("[" + item.number() + "] line " + item.line() + ": autocommit: " + where(autocommit)
                    + "; read-only transaction: " + where(readOnly)
                    + (query || d.kind() == StatementDescription.Kind.SELECT
                            ? ""
                            : (Engine.invalidatesCatalog(d.kind())
                                    ? " (a session change: the connection stops routing)"
                                    : "")));
        }
    }

    private static String where(dev.flushless.jdbc.replica.ReplicaDecision.Outcome outcome) {
        if (outcome.replica()) {
            return "replica";
        }
        return outcome.reason() == null
                ? "primary (not a read)"
                : "primary (" + outcome.reason().code() + ")";
    }

    /** Prints one Statement batch; returns its plan (a fallback when it runs as sent). */
    private BatchPlan explainStatementBatch(List<Item> run) {
        out.println();
        String members = run.size() == 1
                ? "statement [" + run.get(0).number() + "]"
                : "statements [" + run.get(0).number() + "] to ["
                        + run.get(run.size() - 1).number() + "]";
        dev.flushless.jdbc.Fallback single = Engine.sizeReason(run.size(), minBatchRows, "SQL texts");
        if (single != null) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: " + single.text());
            return BatchPlan.fallback(single);
        }
        List<StatementDescription> descriptions =
                run.stream().map(Item::description).toList();
        Engine.Catalog catalog = batchCatalog(List.of());
        BatchPlan plan = Engine.planTexts(descriptions, catalog::lookup, BatchPlanner.Settings.of(config, session));
        if (plan.isFallback()) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: " + plan.fallbackReason());
            out.println("  statements: " + run.size() + " issued -> " + run.size() + " sent");
            return plan;
        }
        int trips = BatchExecutor.roundTrips(plan.statements(), 0, true);
        out.println("Statement batch of " + members + ": coalesced: " + plan.rewriteKind());
        out.println("  statements: " + run.size() + " issued -> "
                + plan.statements().size() + " sent"
                + (plan.statements().size() == 1
                        ? ""
                        : trips == 1 ? " (in one round trip)" : " (in " + trips + " round trips)"));
        int chain = 0;
        for (BatchPlan.Step step : plan.statements()) {
            StringBuilder numbers = new StringBuilder();
            for (int m : step.rows()) {
                numbers.append(numbers.length() > 0 ? ", " : "")
                        .append('[')
                        .append(run.get(m).number())
                        .append(']');
            }
            if (step.rows().length > 1) {
                out.println("  chain " + (++chain) + " of " + numbers + ":");
                out.println(indent(shown(step.sql()), "    "));
            } else {
                StatementDescription member = descriptions.get(step.rows()[0]);
                String why = member.chainReason() != null
                        ? member.chainReason().text()
                        : "its neighbours write its table too (a group writes a table by INSERTs only, or by one"
                                + " UPDATE or DELETE)";
                out.println("  " + numbers + " alone, as written: " + why);
            }
        }
        return plan;
    }

    // ---- flushless.mode=transaction ----

    private static final Pattern BEGIN = Pattern.compile("(?is)(begin|start\\s+transaction)\\b.*");
    private static final Pattern COMMIT = Pattern.compile("(?is)(commit|end)\\b(?!\\s+prepared\\b).*");
    private static final Pattern ROLLBACK = Pattern.compile("(?is)(rollback|abort)\\b(?!\\s+(to|prepared)\\b).*");

    /** How the transaction section takes a statement of the script: a boundary, or a statement executed once. */
    enum Boundary {
        /** BEGIN / START TRANSACTION: {@code setAutoCommit(false)}. */
        BEGIN,
        /** COMMIT / END: {@code commit()}. */
        COMMIT,
        /** ROLLBACK / ABORT: {@code rollback()}. */
        ROLLBACK,
        /** Any other statement: executed once. */
        NONE
    }

    /** What {@code sql} (a statement of the script) is to the transaction section. */
    static Boundary boundary(String sql) {
        String text = sql.substring(firstSignificant(sql, 0, sql.length()));
        return BEGIN.matcher(text).matches()
                ? Boundary.BEGIN
                : COMMIT.matcher(text).matches()
                        ? Boundary.COMMIT
                        : ROLLBACK.matcher(text).matches() ? Boundary.ROLLBACK : Boundary.NONE;
    }

    /** Offline table identities of the transaction section: one OID per name, compared case-insensitively. */
    private final Map<String, Long> transactionOids = new HashMap<>();

    /**
     * A table name as the transaction section compares it, offline: quotes dropped, lower case, schema left
     * out (so {@code public.Orders} and {@code orders} are taken to be one table: when in doubt, flush).
     */
    static String tableKey(String name) {
        String key = name.replace("\"", "").toLowerCase(Locale.ROOT).strip();
        int dot = key.lastIndexOf('.');
        return dot < 0 ? key : key.substring(dot + 1);
    }

    /** The transaction section's table {@code name}: the database's, or offline a synthetic one with {@code columns}. */
    private TableInfo transactionTable(String name, List<String> columns) throws SQLException {
        transactionTablesRead.add(name);
        if (database != null) {
            return database.lookup(name);
        }
        long oid = transactionOids.computeIfAbsent(
                tableKey(name == null ? "" : name), k -> 200_000L + transactionOids.size());
        Map<String, ColumnInfo> info = new LinkedHashMap<>();
        for (String column : columns) {
            info.put(column, new ColumnInfo(column, 25, "text", true));
        }
        // Offline assumption: the table has the columns the statements name and no identity column or default
        // that draws from a sequence (ids supplied by the application, as Hibernate's pooled ids are).
        return new TableInfo(oid, null, null, false, info, new long[] {oid}, false);
    }

    /** Tables whose catalog facts the driver has read in the transaction section (as written in the SQL). */
    private final java.util.Set<String> transactionTablesRead = new java.util.HashSet<>();
    /** Tables the transaction section wrote once as sent under the first-write rule. */
    private final java.util.Set<String> transactionWrittenOnce = new java.util.HashSet<>();

    /** The transaction section's tables by name, as {@link BufferRules} reads them. */
    private BufferRules.Tables transactionTables() {
        return name -> transactionTable(name, List.of());
    }

    /** Counters of the transaction section, over the whole script. */
    private static final class TransactionTally {
        long issued;
        long buffered;
        long readsWithoutFlush;
        long bareCommits;
        long bareRollbacks;
        long transactionEnds;
        long transactionTrips;
        long flushStatements;
        long guardStatements;
        long fusedCommits;
        /** Fused commits whose statements ran between an inline BEGIN and COMMIT (the COMMIT is in transactionEnds). */
        long inlineCommits;

        final Map<String, Long> flushes = new LinkedHashMap<>();

        void flush(String cause, int statements) {
            flushes.merge(cause, 1L, Long::sum);
            flushStatements += statements;
        }

        /** Statements sent: the flushes', their guard savepoints, every statement not buffered, COMMIT/ROLLBACK. */
        long sent() {
            return flushStatements + guardStatements + (issued - buffered) + transactionEnds;
        }
    }

    /** One transaction of the script as flushless.mode=transaction runs it. */
    private static final class Txn {
        final TransactionBuffer buffer = new TransactionBuffer();
        final List<Integer> bufferedNumbers = new ArrayList<>();
        /** Something of the transaction reached the server (pgjdbc left autocommit): no fused commit. */
        boolean sent;
        /** Statements of the transaction (bare pgjdbc then ends it with a COMMIT or ROLLBACK round trip). */
        int statements;
    }

    /**
     * Explains the script as {@code flushless.mode=transaction} runs it: {@code setAutoCommit(false)}, each
     * statement executed once (with parameters: a {@code PreparedStatement}, every parameter set; without: a
     * {@code Statement}), then {@code commit()}. BEGIN/START TRANSACTION lines are taken as that
     * {@code setAutoCommit(false)}, COMMIT/END and ROLLBACK/ABORT lines as {@code commit()} and {@code rollback()}
     * (statements after them form the next transaction).
     */
    private Tallies.Transaction explainTransaction(List<Item> items) {
        out.println();
        out.println("== flushless.mode=transaction: the script as one explicit transaction ==");
        out.println(
                "setAutoCommit(false), then each statement executed once (with parameters: a PreparedStatement with");
        out.println(
                "every parameter set; without: a Statement), then commit(). BEGIN and COMMIT/END lines are taken as");
        if (database == null) {
            out.println(
                    "those calls, ROLLBACK as rollback(). Tables are compared by name (case-insensitively, schema left");
            out.println(
                    "out) and assumed to be plain tables without identity columns or sequence defaults; a view, a table");
            out.println(
                    "with triggers or a serial id left to its default would make it flush (or not buffer) more often.");
        } else {
            out.println(
                    "those calls, ROLLBACK as rollback(). Tables are read from the catalog, as the driver reads them:");
            out.println(
                    "triggers, rules and row-level security (the INSERT runs as sent), views, inheritance and partitions,");
            out.println("identity columns and sequence defaults (sequence calls and rollback() send the buffer).");
        }
        TransactionTally tally = new TransactionTally();
        Txn txn = new Txn();
        for (Item item : items) {
            String sql = item.description().sql();
            String text = sql.substring(firstSignificant(sql, 0, sql.length()));
            out.println();
            out.println("[" + item.number() + "] line " + item.line() + ": " + oneLine(text));
            switch (boundary(sql)) {
                case BEGIN:
                    out.println("  transaction start: taken as setAutoCommit(false); nothing is sent");
                    continue;
                case COMMIT:
                    endTransaction(txn, tally, true);
                    txn = new Txn();
                    continue;
                case ROLLBACK:
                    endTransaction(txn, tally, false);
                    txn = new Txn();
                    continue;
                default:
                    break;
            }
            tally.issued++;
            txn.statements++;
            explainInTransaction(item, txn, tally);
        }
        if (txn.statements > 0 || !txn.buffer.isEmpty()) {
            out.println();
            out.println("end of script:");
            endTransaction(txn, tally, true);
        }

        long bareEnds = tally.bareCommits + tally.bareRollbacks;
        String ends = (tally.bareCommits > 0 || tally.bareRollbacks == 0 ? tally.bareCommits + " COMMIT" : "")
                + (tally.bareCommits > 0 && tally.bareRollbacks > 0 ? " + " : "")
                + (tally.bareRollbacks > 0 ? tally.bareRollbacks + " ROLLBACK" : "");
        long bareTrips = tally.issued + bareEnds;
        long asIssued = tally.issued - tally.buffered;
        long flushCount =
                tally.flushes.values().stream().mapToLong(Long::longValue).sum();
        StringBuilder causes = new StringBuilder();
        tally.flushes.forEach((cause, n) -> causes.append(causes.length() == 0 ? "" : ", ")
                .append(cause)
                .append(' ')
                .append(n));
        out.println();
        out.println("== Summary (flushless.mode=transaction) ==");
        say("statements issued: " + tally.issued + " (" + tally.buffered + " buffered, "
                + tally.readsWithoutFlush + " read" + (tally.readsWithoutFlush == 1 ? "" : "s") + " without flushing, "
                + (asIssued - tally.readsWithoutFlush) + " other sent when issued)");
        say("flushes: " + flushCount + (flushCount == 0 ? "" : " (" + causes + ")") + ", sending "
                + plural(tally.flushStatements, "statement") + " for the " + plural(tally.buffered, "buffered INSERT"));
        say("round trips: bare pgjdbc " + bareTrips + " (" + tally.issued + " statements + " + ends
                + ") -> flushless.mode=transaction " + tally.transactionTrips);
        say("statements sent (BEGIN not counted): bare pgjdbc " + bareTrips + " -> flushless.mode=transaction "
                + tally.sent() + " (" + tally.flushStatements + " by flushes, "
                + (tally.guardStatements == 0 ? "" : tally.guardStatements + " guard SAVEPOINT/RELEASE, ") + asIssued
                + " as issued, "
                + tally.transactionEnds + " COMMIT/ROLLBACK"
                + (tally.fusedCommits == 0
                        ? ""
                        : "; " + plural(tally.fusedCommits, "commit") + " fused, without COMMIT")
                + (tally.inlineCommits == 0
                        ? ""
                        : "; " + plural(tally.inlineCommits, "commit") + " fused with an" + " inline BEGIN/COMMIT")
                + ")");
        return new Tallies.Transaction(tally.transactionTrips, tally.sent(), tally.transactionEnds);
    }

    /**
     * The parameters the transaction section binds for statement {@code number} (setString, "s3p1" for its first):
     * {@code null} for a statement without parameters, executed through a plain {@code Statement}.
     */
    static Bind[] transactionRow(int number, StatementDescription statement) {
        if (statement.parameterCount() == 0) {
            return null;
        }
        Bind[] row = new Bind[statement.parameterCount()];
        for (int p = 0; p < row.length; p++) {
            row[p] = Bind.ofString("s" + number + "p" + (p + 1));
        }
        return row;
    }

    /**
     * One statement inside the transaction, decided as the driver's {@code Engine.route} does: buffered (an INSERT
     * {@link BufferRules#whyNotBufferable} accepts, into a table without a barrier), else riding along with the buffer
     * (a write {@link BufferRules#whyNotRideable} accepts), else run as sent, after a flush when
     * {@link BufferRules#beforeStatement} asks for one.
     */
    private void explainInTransaction(Item item, Txn txn, TransactionTally tally) {
        StatementDescription d = item.description();
        StatementDescription.Kind lead = SqlAnalyzer.leadingKind(d.sql());
        Bind[] row = transactionRow(item.number(), d);
        boolean plain = row == null;
        if (lead == StatementDescription.Kind.INSERT) {
            String notBuffered = BufferRules.whyNotBufferable(d, List.<Bind[]>of(plain ? new Bind[0] : row), plain);
            TableInfo table = null;
            if (notBuffered == null
                    && BufferRules.firstWriteAsSent(
                            config,
                            yugabyte,
                            d.targetTable(),
                            1,
                            t -> !transactionTablesRead.contains(t) && transactionWrittenOnce.add(t))) {
                notBuffered =
                        dev.flushless.jdbc.FallbackReason.FIRST_WRITE.get().text()
                                + ": its catalog facts are read at its second write";
            }
            if (notBuffered == null) {
                try {
                    table = transactionTable(d.targetTable(), d.insertColumns());
                    dev.flushless.jdbc.Fallback barrier =
                            table.insertBarrier(config.trustTriggers(), config.exactSequences());
                    notBuffered = barrier == null ? null : barrier.text();
                } catch (SQLException e) {
                    notBuffered = "its table's catalog facts could not be read (SQLState " + e.getSQLState() + ")";
                }
            }
            if (notBuffered == null) {
                buffer(item, table, row, txn, tally);
                return;
            }
            say("not buffered: " + notBuffered);
        }
        BufferRules.Tables tables = transactionTables();
        String notRideable = null;
        if (!txn.buffer.isEmpty() && lead.isWrite()) {
            notRideable = BufferRules.whyNotRideable(
                    d, row, config.exactSequences(), () -> BufferRules.mayDrawFromSequences(d, tables));
            if (notRideable == null) {
                flush(
                        txn,
                        tally,
                        "flush with it",
                        "write riding along",
                        "its update count is needed at once, so it" + " rides along with the buffer",
                        d);
                return;
            }
        }
        if (txn.buffer.isEmpty()) {
            say(
                    lead.isWrite()
                            ? "runs as sent: nothing is buffered to send with it; 1 round trip"
                            : "runs as sent: nothing is buffered; 1 round trip");
            sentAsIssued(txn, tally);
            return;
        }
        BufferRules.Flush flush = BufferRules.beforeStatement(
                lead, lead == StatementDescription.Kind.SELECT ? d : null, txn.buffer, tables);
        switch (flush) {
            case NONE: {
                List<String> read = d.tablesRead();
                tally.readsWithoutFlush++;
                say("runs without flushing: "
                        + (read.isEmpty()
                                ? "reads no table"
                                : "reads only " + String.join(", ", read) + ", none written by the buffer")
                        + "; "
                        + (txn.buffer.rows() == 1
                                ? "the buffered INSERT stays"
                                : "the " + txn.buffer.rows() + " buffered INSERTs stay")
                        + " buffered; 1 round trip");
                if (database == null && d.callsSequenceFunctions()) {
                    say("(a sequence call: it flushes first when a buffered INSERT's table has an identity column or a"
                            + " default drawing from a sequence, e.g. a serial id the INSERT leaves out; assumed not"
                            + " offline)");
                }
                sentAsIssued(txn, tally);
                return;
            }
            case UNANALYSABLE_READ:
                flushFirst(
                        txn,
                        tally,
                        "unanalysable read",
                        "a read the analysis cannot bound (a view or user function,"
                                + " a locking clause, text it does not parse, ...): it may read what the buffer wrote");
                return;
            case READ_OF_WRITTEN_TABLE:
                flushFirst(
                        txn,
                        tally,
                        "read of a written table",
                        "reads " + String.join(", ", writtenTables(d, txn)) + ", which the buffered INSERTs write");
                return;
            case SEQUENCE_CALL:
                flushFirst(
                        txn,
                        tally,
                        "sequence call",
                        "a buffered INSERT may draw from a sequence, so nextval,"
                                + " currval, lastval and setval wait for it");
                return;
            case WRITE:
                flushFirst(txn, tally, "write that cannot ride along", notRideable);
                return;
            default:
                flushFirst(txn, tally, "DDL or other statement", "neither a SELECT nor a write (" + d.kind() + ")");
        }
    }

    /** The tables {@code d} reads that the buffer wrote (for the explanation; the decision is BufferRules'). */
    private List<String> writtenTables(StatementDescription d, Txn txn) {
        List<String> written = new ArrayList<>();
        for (String name : d.tablesRead()) {
            try {
                if (txn.buffer.wrote(transactionTable(name, List.of()))) {
                    written.add(name);
                }
            } catch (SQLException e) {
                // not named
            }
        }
        return written;
    }

    /** Buffers an INSERT, sending the buffer before or after it as the size bounds ({@link BufferRules}) say. */
    private void buffer(Item item, TableInfo table, Bind[] row, Txn txn, TransactionTally tally) {
        StatementDescription d = item.description();
        BufferedWrite write =
                new BufferedWrite(d, table, List.<Bind[]>of(row == null ? new Bind[0] : row), row == null, false);
        long maxRows = config.maxBufferedRows();
        long maxBytes = config.maxBufferedBytes();
        String bounds = "flushless.maxBufferedRows (" + maxRows + ") or flushless.maxBufferedBytes (" + maxBytes + ")";
        if (BufferRules.sendBeforeAdding(txn.buffer, 1, write.estimatedBytes(), maxRows, maxBytes)) {
            flush(txn, tally, "flush first", "size bound", "this INSERT would take the buffer past " + bounds, null);
        }
        txn.buffer.add(write);
        txn.bufferedNumbers.add(item.number());
        tally.buffered++;
        say("buffered: a plain INSERT ... VALUES (one tuple, no RETURNING or ON CONFLICT): update count 1"
                + " acknowledged at once, nothing sent");
        if (BufferRules.sendAfterAdding(txn.buffer, maxRows, maxBytes)) {
            flush(txn, tally, "then flush", "size bound", "this INSERT alone takes the buffer past " + bounds, null);
        }
    }

    /** The statement runs on the server when issued (after a flush, or with nothing buffered): one round trip. */
    private static void sentAsIssued(Txn txn, TransactionTally tally) {
        tally.transactionTrips++;
        txn.sent = true;
    }

    /** A flush in round trips of its own, then the statement itself. */
    private void flushFirst(Txn txn, TransactionTally tally, String cause, String why) {
        int trips = flush(txn, tally, "flush first", cause, why, null);
        say("then the statement itself: " + (trips + 1) + " round trips in all");
        sentAsIssued(txn, tally);
    }

    /**
     * Sends the buffer inside the (then opened) server transaction, guarded by a savepoint: prints why, what it sends
     * and the SQL (shortened unless --full-sql), counts its statements and round trips ({@link BatchExecutor}); returns
     * the round trips. {@code label} is "flush first", "flush with it" ({@code rider}, a write whose update count is
     * needed, rides in the same round trip) or "then flush".
     */
    private int flush(
            Txn txn, TransactionTally tally, String label, String cause, String why, StatementDescription rider) {
        int writes = txn.bufferedNumbers.size();
        List<BatchPlan.Step> steps = FlushPlanner.plan(txn.buffer.take(), session, maxRows);
        List<BatchPlan.Step> run = rider == null ? steps : FlushPlanner.withRider(steps, rider.sql(), rider);
        int trips = BatchExecutor.roundTrips(run, rider == null ? 0 : rider.parameterCount(), false);
        String sent = plural(writes, "buffered INSERT") + " (" + numbers(txn.bufferedNumbers) + ") as "
                + plural(steps.size(), "statement");
        if (rider != null) {
            say(label + " (" + cause + "): " + why + ": sends " + sent + ", then this statement, " + inTrips(trips));
        } else {
            say(label + " (" + cause + "): " + why + "; sends " + sent + " " + inTrips(trips));
        }
        printSteps(steps);
        txn.bufferedNumbers.clear();
        txn.sent = true;
        tally.flush(cause, steps.size());
        tally.guardStatements += BatchExecutor.statementsSent(run.size(), false) - run.size();
        tally.transactionTrips += trips;
        return trips;
    }

    private static String inTrips(int trips) {
        return trips == 1 ? "in one round trip" : "in " + trips + " round trips";
    }

    private void printSteps(List<BatchPlan.Step> steps) {
        for (int i = 0; i < steps.size(); i++) {
            out.println("    flush statement " + (i + 1) + " of " + steps.size() + ":");
            out.println(indent(shown(steps.get(i).sql()), "      "));
        }
    }

    /** {@code commit()} (or {@code rollback()}) of one transaction of the script. */
    private void endTransaction(Txn txn, TransactionTally tally, boolean commit) {
        if (txn.statements > 0) { // bare pgjdbc: COMMIT/ROLLBACK in a round trip of its own
            if (commit) {
                tally.bareCommits++;
            } else {
                tally.bareRollbacks++;
            }
        }
        if (!commit) {
            if (BufferRules.sendBeforeRollback(txn.buffer, false)) {
                // as TransactionBuffering.rollback(): the ids bare pgjdbc's INSERTs drew are drawn here too
                flush(
                        txn,
                        tally,
                        "flush first",
                        "before rollback()",
                        "a buffered table draws ids from a sequence",
                        null);
            }
            int discarded = txn.bufferedNumbers.size();
            txn.buffer.discard();
            endAlone(
                    txn,
                    tally,
                    "rollback(): "
                            + (discarded == 0
                                    ? ""
                                    : plural(discarded, "buffered INSERT") + " (" + numbers(txn.bufferedNumbers)
                                            + ") discarded unsent; ")
                            + (txn.sent
                                    ? "ROLLBACK: 1 round trip"
                                    : "nothing of the transaction was sent: no round trip"));
            return;
        }
        if (txn.buffer.isEmpty()) {
            endAlone(
                    txn,
                    tally,
                    "commit(): nothing buffered; "
                            + (txn.sent
                                    ? "COMMIT: 1 round trip"
                                    : "nothing of the transaction was sent: no round trip"));
            return;
        }
        int writes = txn.bufferedNumbers.size();
        String numbers = numbers(txn.bufferedNumbers);
        List<BatchPlan.Step> steps = FlushPlanner.plan(txn.buffer.take(), session, maxRows);
        // fused: pgjdbc is still in autocommit, so the writes run unguarded, as one implicit transaction (or, when
        // they take several executions, one transaction that BatchExecutor opens and commits)
        boolean fused = !txn.sent;
        int trips = BatchExecutor.roundTrips(steps, 0, fused);
        if (!fused) {
            say("commit(): sends the " + plural(writes, "buffered INSERT") + " (" + numbers + ") as "
                    + plural(steps.size(), "statement") + " and COMMIT " + inTrips(trips));
            tally.transactionEnds++;
        } else if (trips == 1 && !BatchExecutor.inlineTransaction(steps, 0, true)) {
            say("commit(), fused: nothing of the transaction was sent yet, so the " + plural(writes, "buffered INSERT")
                    + " (" + numbers + ") run as one implicit transaction (no BEGIN, no COMMIT): "
                    + plural(steps.size(), "statement") + " in one round trip, all committed or none");
            tally.fusedCommits++;
        } else if (trips == 1) {
            say("commit(), fused: nothing of the transaction was sent yet, so the " + plural(writes, "buffered INSERT")
                    + " (" + numbers + ") run as one transaction of their own, BEGIN and COMMIT in"
                    + " the same execution (pgjdbc may send a Sync between statements): "
                    + plural(steps.size(), "statement") + " in one round trip, all committed or none");
            tally.inlineCommits++;
            tally.transactionEnds++;
        } else {
            say("commit(), fused: nothing of the transaction was sent yet, so the " + plural(writes, "buffered INSERT")
                    + " (" + numbers + ") run as one transaction of their own: "
                    + plural(steps.size(), "statement") + " in more executions than one round trip carries, BEGIN with"
                    + " the first and COMMIT after the last: " + trips + " round trips, all committed or none");
            tally.transactionEnds++;
        }
        printSteps(steps);
        tally.flush("at commit", steps.size());
        tally.guardStatements += BatchExecutor.statementsSent(steps.size(), fused) - steps.size();
        tally.transactionTrips += trips;
    }

    /** A COMMIT or ROLLBACK with nothing buffered: its own round trip when the transaction sent anything. */
    private void endAlone(Txn txn, TransactionTally tally, String explanation) {
        say(explanation);
        if (txn.sent) {
            tally.transactionTrips++;
            tally.transactionEnds++;
        }
    }

    /** Prints one explanation line, indented, wrapped at about 110 characters. */
    private void say(String text) {
        StringBuilder line = new StringBuilder("  ");
        for (String word : text.split(" ")) {
            if (line.length() > 2 && line.length() + 1 + word.length() > 110) {
                out.println(line);
                line.setLength(0);
                line.append("  ");
            }
            line.append(line.length() > 2 ? " " : "").append(word);
        }
        out.println(line);
    }

    /** Statement numbers as {@code [1], [2], [3]}, long lists shortened. */
    private static String numbers(List<Integer> numbers) {
        if (numbers.size() <= 6) {
            StringBuilder sb = new StringBuilder();
            for (int n : numbers) {
                sb.append(sb.length() > 0 ? ", " : "").append('[').append(n).append(']');
            }
            return sb.toString();
        }
        return "[" + numbers.get(0) + "], [" + numbers.get(1) + "], ..., [" + numbers.get(numbers.size() - 1) + "]";
    }

    // ---- PreparedStatement batches ----

    /**
     * The rows the batch section binds for {@code d}: {@code rows} rows, each parameter with setString ("r1" in the
     * first row), a parameter inside an expression ({@code col + ?}) with setLong (the row's number), and the
     * parameters of an ON CONFLICT DO UPDATE clause after the row's own the same in every row.
     */
    static List<Bind[]> batchRows(StatementDescription d, int rows) {
        boolean[] inExpression = new boolean[d.parameterCount()];
        for (Assignment a : d.assignments()) {
            if (a.isParameter() && a.inExpression()) {
                inExpression[a.parameter()] = true;
            }
        }
        List<Bind[]> bound = new ArrayList<>(rows);
        int perRow = d.rowParameterCount();
        for (int r = 0; r < rows; r++) {
            Bind[] row = new Bind[d.parameterCount()];
            for (int p = 0; p < row.length; p++) {
                if (p >= perRow) {
                    row[p] = Bind.ofString("x" + p); // ON CONFLICT DO UPDATE parameters: the same in every row
                } else if (inExpression[p]) {
                    row[p] = Bind.ofLong(r + 1);
                } else {
                    row[p] = Bind.ofString("r" + (r + 1));
                }
            }
            bound.add(row);
        }
        return bound;
    }

    /** The plan of a PreparedStatement batch of {@code rows} rows of {@code d}, by the driver's own rules. */
    private BatchPlan planPrepared(StatementDescription d) {
        dev.flushless.jdbc.Fallback single = Engine.sizeReason(rows, minBatchRows, "rows");
        if (single != null) {
            return BatchPlan.fallback(single);
        }
        // a connection with the --url's (or the default) flushless.* settings, but --max-rows
        try {
            return Engine.plan(
                    d,
                    batchRows(d, rows),
                    batchCatalog(columnsNamed(d)),
                    null,
                    BatchPlanner.Settings.of(config, session).withMaxRowsPerStatement(maxRows),
                    false);
        } catch (SQLException e) {
            throw new IllegalStateException(e); // only the text for generated keys throws, and none are asked for
        }
    }

    /** The columns {@code d} names (offline, the synthetic table has these, typed text). */
    private static List<String> columnsNamed(StatementDescription d) {
        if (!d.isCoalescable()) {
            return List.of();
        }
        List<String> columns = new ArrayList<>(d.insertColumns());
        for (Assignment a : d.assignments()) {
            columns.add(a.column());
        }
        for (KeyColumn k : d.keys()) {
            columns.add(k.column());
        }
        for (KeyColumn k : d.conflictKeys()) {
            columns.add(k.column());
        }
        columns.addAll(d.conflictUpdatedColumns());
        return columns;
    }

    /** The batch sections' catalog: the database's, or offline synthetic tables with {@code columns}. */
    private Engine.Catalog batchCatalog(List<String> columns) {
        return new Engine.Catalog() {
            @Override
            public TableInfo lookup(String table) throws SQLException {
                return database != null ? database.lookup(table) : table(table, columns);
            }

            @Override
            public ConflictFacts conflictFacts(TableInfo table) throws SQLException {
                if (database == null) {
                    throw new SQLException("no conflict facts offline");
                }
                return database.catalog().conflictFacts(database.connection(), table);
            }
        };
    }

    /** A synthetic plain table with {@code columns} typed text; one OID per table name. */
    private TableInfo table(String name, List<String> columns) {
        String key = name == null ? "" : name.contains("\"") ? name : name.toLowerCase(Locale.ROOT);
        long oid = oids.computeIfAbsent(key, k -> 100_000L + oids.size());
        Map<String, ColumnInfo> info = new LinkedHashMap<>();
        for (String column : columns) {
            info.put(column, new ColumnInfo(column, 25, "text", true));
        }
        return new TableInfo(oid, null, null, false, info);
    }

    private String shown(String sql) {
        if (fullSql || sql.length() <= SQL_SHOWN) {
            return sql;
        }
        int head = SQL_SHOWN * 2 / 3;
        int tail = SQL_SHOWN - head;
        return sql.substring(0, head) + "\n... (" + (sql.length() - head - tail)
                + " characters left out; --full-sql prints them) ...\n" + sql.substring(sql.length() - tail);
    }

    private static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** The offset of the first character after leading whitespace and comments in {@code [start, end)}. */
    static int firstSignificant(String sql, int start, int end) {
        int i = start;
        while (i < end) {
            if (Character.isWhitespace(sql.charAt(i))) {
                i++;
            } else if (sql.startsWith("--", i)) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 || eol >= end ? end : eol + 1;
            } else if (sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 || close + 2 > end ? end : close + 2;
            } else {
                return i;
            }
        }
        return start;
    }

    private static String indent(String text, String prefix) {
        return prefix + text.replace("\n", "\n" + prefix);
    }

    private static String oneLine(String sql) {
        String flat = sql.replaceAll("\\s+", " ").trim();
        return flat.length() <= 160 ? flat : flat.substring(0, 157) + "...";
    }
}
