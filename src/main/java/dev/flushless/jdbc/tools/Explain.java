package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.FlushlessConfig;
import dev.flushless.jdbc.FlushlessProperty;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.buffer.BufferRules;
import dev.flushless.jdbc.buffer.FlushPlanner;
import dev.flushless.jdbc.engine.Engine;
import dev.flushless.jdbc.session.TableCatalog;
import dev.flushless.jdbc.tools.ExplainScript.Item;
import java.io.InputStream;
import java.io.PrintStream;
import java.sql.SQLException;
import java.util.List;
import java.util.Properties;

/**
 * {@code explain}: reads SQL statements and prints how Flushless (batch mode) would treat each as a
 * {@code PreparedStatement} batch, how runs of parameterless writes would be grouped as {@code Statement}
 * batches, and a summary; with {@code --mode transaction} also how {@code flushless.mode=transaction} would run
 * the script as one explicit transaction (what is buffered, what flushes and why, the commit). Every decision it
 * prints is taken by the driver's own code ({@link Engine#plan}, {@link Engine#sizeReason}, {@link BufferRules},
 * {@link FlushPlanner}, {@link BatchExecutor#roundTrips}); only the catalog differs: synthetic offline (plain
 * tables, the named columns typed text), or with {@code --url} the database's own, read read-only through the
 * driver's {@link TableCatalog}.
 *
 * <p>This class is the command line (options, exit codes) and the order of the sections. The parts: {@link
 * ExplainScript} (the input), {@link ExplainSettings}, {@link ExplainCatalog} and {@link ExplainDatabase} (what it
 * explains against), {@link BatchExplainer} (batch planning), {@link TransactionWalk} (the transaction walk),
 * {@link ExplainSummary} (the report of counts) and {@link ExplainPrinter} (rendering).
 */
public final class Explain {

    static final String USAGE = String.join(
            "\n",
            "usage: explain [--mode batch|transaction] [--rows N] [--max-rows N] [--url JDBC_URL | --yugabyte RELEASE]",
            "               [--set flushless.KEY=VALUE]... [--full-sql] FILE|-",
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
            "  --yugabyte RELEASE        offline, explain for this YugabyteDB release (e.g. 2025.2.8.0) as yugabyted",
            "                            deploys it: its size rule, ON CONFLICT batching, Read Committed and write",
            "                            pipelining defaults (--set flushless.writePipelining=on|off overrides)",
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

    private Explain() {}

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

    /** The command line's options. */
    private record Options(
            String mode,
            int rows,
            Integer maxRows,
            boolean fullSql,
            String url,
            dev.flushless.jdbc.stats.YugabyteRelease release,
            String file,
            Properties settings) {}

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
                    + " user guide's explain section (docs/guide.md)");
            return 1;
        } catch (RuntimeException | Error e) {
            err.println("explain: unexpected failure: " + e);
            e.printStackTrace(err);
            return 1;
        }
    }

    /** Runs {@code explain} with {@code args}, printing to {@code out}; returns its tallies ({@code null} for --help). */
    static Tallies execute(String[] args, InputStream in, PrintStream out) throws UsageException {
        Options options = parse(args);
        if (options == null) {
            out.println(USAGE);
            return null;
        }
        String script = ExplainScript.read(options.file(), in);
        ExplainDatabase database = options.url() == null ? null : ExplainDatabase.open(options.url());
        try {
            FlushlessConfig config;
            try {
                config = (database == null ? FlushlessConfig.defaults() : database.config()).with(options.settings());
            } catch (SQLException e) {
                throw new UsageException("--set: " + e.getMessage());
            }
            ExplainSettings settings =
                    ExplainSettings.of(options.rows(), options.maxRows(), config, database, options.release());
            return explain(
                    new ExplainPrinter(out, options.fullSql()),
                    settings,
                    new ExplainCatalog(database),
                    options.file(),
                    script,
                    options.mode());
        } finally {
            if (database != null) {
                database.close();
            }
        }
    }

    /** The options of {@code args}, or {@code null} for --help. */
    private static Options parse(String[] args) throws UsageException {
        String mode = "batch";
        int rows = DEFAULT_ROWS;
        Integer maxRows = null;
        boolean fullSql = false;
        String url = null;
        dev.flushless.jdbc.stats.YugabyteRelease release = null;
        String file = null;
        Properties settings = new Properties();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            switch (arg) {
                case "--help":
                case "-h":
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
                case "--yugabyte": {
                    String text = value(args, ++i, arg);
                    release = dev.flushless.jdbc.stats.YugabyteRelease.of(text);
                    if (release == null) {
                        throw new UsageException("--yugabyte takes a release such as 2025.2.8.0, not '" + text + "'");
                    }
                    break;
                }
                case "--full-sql":
                    fullSql = true;
                    break;
                case "--set":
                    set(settings, value(args, ++i, arg));
                    break;
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
        if (url != null && release != null) {
            throw new UsageException("--yugabyte is for offline use; with --url the server reports its release");
        }
        return new Options(mode, rows, maxRows, fullSql, url, release, file, settings);
    }

    /** Adds {@code --set flushless.KEY=VALUE} to {@code settings}. */
    private static void set(Properties settings, String setting) throws UsageException {
        int equals = setting.indexOf('=');
        if (equals <= 0 || !setting.startsWith(FlushlessProperty.PREFIX)) {
            throw new UsageException("--set takes flushless.KEY=VALUE, not '" + setting + "'");
        }
        settings.setProperty(setting.substring(0, equals), setting.substring(equals + 1));
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

    /** Prints the sections in order: the settings and assumptions, the batch sections, the transaction walk. */
    private static Tallies explain(
            ExplainPrinter out,
            ExplainSettings settings,
            ExplainCatalog catalog,
            String file,
            String script,
            String mode) {
        List<Item> items = ExplainScript.items(script);
        boolean transaction = mode.equals("transaction");
        printPreamble(out, settings, catalog, file, items.size(), mode);
        if (items.isEmpty()) {
            out.println();
            out.println("No SQL statements found.");
            return new Tallies(0, 0, transaction ? new Tallies.Transaction(0, 0, 0) : null);
        }
        ExplainSummary.Batches batches = new BatchExplainer(out, settings, catalog).explain(items);
        ExplainSummary.printBatches(out, settings.rows(), batches, settings.flushModel());
        if (!settings.config().replicas().isEmpty()) {
            ReplicaExplainer.explain(out, settings, items);
        }
        Tallies.Transaction walked = transaction ? new TransactionWalk(out, settings, catalog).walk(items) : null;
        return new Tallies(batches.issued(), batches.sent(), walked);
    }

    /** The opening lines: what is explained, with which settings, against which catalog. */
    private static void printPreamble(
            ExplainPrinter out, ExplainSettings settings, ExplainCatalog catalog, String file, int count, String mode) {
        int rows = settings.rows();
        out.println("Flushless explain: " + count + " statement" + (count == 1 ? "" : "s") + " from "
                + (file.equals("-") ? "stdin" : file));
        out.println("Settings: flushless.mode=" + mode + ", flushless.maxRowsPerStatement=" + settings.maxRows()
                + ", flushless.minBatchRows=" + settings.minBatchRows()
                + (mode.equals("transaction")
                        ? ", flushless.bufferFirstWrite=" + settings.config().bufferFirstWrite()
                        : "")
                + ", PreparedStatement batches of " + rows + " row" + (rows == 1 ? "" : "s") + ".");
        out.println("YugabyteDB flush model ("
                + (!catalog.offline()
                        ? "read from the server"
                        : settings.yugabyte() ? "the release's defaults, as yugabyted deploys it" : "offline")
                + "; flushless.onConflict="
                + settings.config().onConflict().name().toLowerCase(java.util.Locale.ROOT) + " takes the "
                + (settings.antiJoin() ? "anti-join form" : "native form")
                + " for ON CONFLICT batches):");
        for (String assumption : settings.flushModel().describe()) {
            out.println("  " + assumption);
        }
        if (mode.equals("transaction")) {
            out.println("The batch sections and their summary come first (batches in autocommit run exactly as in");
            out.println(
                    "  flushless.mode=batch); the section \"flushless.mode=transaction\" then runs the script as one");
            out.println("  explicit transaction.");
        }
        if (catalog.offline()) {
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
            out.println("Catalog: read from " + catalog.database().description()
                    + " with the driver's own catalog queries, in a");
            out.println(
                    "  read-only transaction that is rolled back (nothing is written; the script is not run); tables are");
            out.println(
                    "  read as they are now, not as DDL earlier in the script would leave them. Parameters are bound with");
            out.println(
                    "  setString (a parameter inside an expression such as col + ? with setLong), distinct per row.");
        }
    }

    // ---- the rows and statements explain assumes, for ExplainAgreementTest, which runs them through the driver ----

    /** What {@code sql} (a statement of the script) is to the transaction section. */
    static TransactionWalk.Boundary boundary(String sql) {
        return TransactionWalk.boundary(sql);
    }

    /** The parameters the transaction section binds for statement {@code number} ({@code null}: none). */
    static Bind[] transactionRow(int number, StatementDescription statement) {
        return TransactionWalk.transactionRow(number, statement);
    }

    /** The rows the batch section binds for {@code d}. */
    static List<Bind[]> batchRows(StatementDescription d, int rows) {
        return BatchExplainer.batchRows(d, rows);
    }
}
