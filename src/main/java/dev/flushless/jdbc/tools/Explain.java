package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.batch.SessionFacts;
import dev.flushless.jdbc.batch.StatementBatchPlanner;
import dev.flushless.jdbc.batch.TableCatalog.ColumnInfo;
import dev.flushless.jdbc.batch.TableCatalog.TableInfo;
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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code explain}: reads SQL statements and prints how Flushless (batch mode) would treat each as a
 * {@code PreparedStatement} batch, how runs of parameterless writes would be grouped as {@code Statement}
 * batches, and a summary. Offline: the catalog is synthetic (plain tables, the named columns typed text).
 */
public final class Explain {

    static final String USAGE = String.join("\n",
            "usage: explain [--mode batch|transaction] [--rows N] [--max-rows N] [--full-sql] FILE|-",
            "",
            "Reads SQL statements (separated by ';') from FILE, or from stdin for '-', and prints how Flushless",
            "would treat each one: as a PreparedStatement batch of N rows (coalesced or not, why, the rewrite kind,",
            "the statements sent and the rewritten SQL), how runs of parameterless INSERT/UPDATE/DELETE statements",
            "would be grouped as Statement batches (CTE chains), and a summary of statements and estimated flushes.",
            "",
            "  --mode batch|transaction  flushless.mode to explain (default batch; transaction is not implemented",
            "                            yet and is explained as batch)",
            "  --rows N                  rows in each PreparedStatement batch (default 1000, 1 to 1000000)",
            "  --max-rows N              flushless.maxRowsPerStatement (default 4096, 1 to 65535)",
            "  --full-sql                print rewritten SQL in full (long texts are shortened by default)",
            "  --help                    this text",
            "",
            "Offline, without a database: every table is assumed to be a plain table without triggers, rules or",
            "row-level security, with the columns the statements name, typed text. Exit codes: 0 ok, 2 bad",
            "arguments or unreadable input, 1 unexpected failure.");

    static final int DEFAULT_ROWS = 1000;
    static final int DEFAULT_MAX_ROWS = 4096;
    private static final int SQL_SHOWN = 1500;

    /** pgjdbc's defaults (stringtype=varchar, binary transfer, standard_conforming_strings on). */
    private static final SessionFacts SESSION = new SessionFacts(true, true, true, true, true, true);

    private final PrintStream out;
    private final int rows;
    private final int maxRows;
    private final boolean fullSql;
    private final Map<String, Long> oids = new HashMap<>();

    private Explain(PrintStream out, int rows, int maxRows, boolean fullSql) {
        this.out = out;
        this.rows = rows;
        this.maxRows = maxRows;
        this.fullSql = fullSql;
    }

    /** Thrown for bad arguments or unreadable input: exit code 2. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String message) {
            super(message);
        }
    }

    /** Runs {@code explain} with {@code args}; returns the exit code. */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        try {
            String mode = "batch";
            int rows = DEFAULT_ROWS;
            int maxRows = DEFAULT_MAX_ROWS;
            boolean fullSql = false;
            String file = null;
            for (int i = 0; i < args.length; i++) {
                String arg = args[i];
                switch (arg) {
                    case "--help":
                    case "-h":
                        out.println(USAGE);
                        return 0;
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
                    case "--full-sql":
                        fullSql = true;
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
            String script = read(file, in);
            Explain explain = new Explain(out, rows, maxRows, fullSql);
            explain.explain(file, script, mode);
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
        throw new UsageException(option + " must be a whole number from " + min + " to " + max + ", not '" + text + "'");
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
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new UsageException("cannot read " + name + ": not UTF-8 text");
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

    private void explain(String file, String script, String mode) {
        SqlAnalyzer analyzer = new SqlAnalyzer(4096);
        List<Item> items = new ArrayList<>();
        for (int[] span : SqlAnalyzer.statementSpans(script)) {
            int line = 1;
            for (int i = 0; i < firstSignificant(script, span[0], span[1]); i++) {
                if (script.charAt(i) == '\n') {
                    line++;
                }
            }
            items.add(new Item(items.size() + 1, line, analyzer.describe(script.substring(span[0], span[1]))));
        }
        out.println("Flushless explain: " + items.size() + " statement" + (items.size() == 1 ? "" : "s") + " from "
                + (file.equals("-") ? "stdin" : file));
        if (mode.equals("transaction")) {
            out.println("Note: flushless.mode=transaction is not implemented yet (today it behaves like batch);"
                    + " explained as batch.");
        }
        out.println("Settings: flushless.mode=batch, flushless.maxRowsPerStatement=" + maxRows
                + ", PreparedStatement batches of " + rows + " row" + (rows == 1 ? "" : "s") + ".");
        out.println("Offline assumptions: every table is a plain table without triggers, rules or row-level security,");
        out.println("  with the columns the statements name, typed text; parameters are bound with setString (a parameter");
        out.println("  inside an expression such as col + ? with setLong), distinct per row. Casts and rewrite forms are");
        out.println("  shown for these untyped (text) parameters and may differ with the real column types; a real");
        out.println("  catalog (types whose equality is not modelled, triggers, views) can also turn a rewrite into a fallback.");
        if (items.isEmpty()) {
            out.println();
            out.println("No SQL statements found.");
            return;
        }

        long preparedIssued = 0;
        long preparedSent = 0;
        long preparedWritesIssued = 0;
        long preparedWritesSent = 0;
        long otherStatements = 0;
        out.println();
        out.println("== Each statement as a PreparedStatement batch of " + rows + " row" + (rows == 1 ? "" : "s") + " ==");
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
            out.println("  statements: " + rows + " issued -> " + sent + " sent" + (plan.isFallback() || sent == 1 ? ""
                    : " (in one round trip)"));
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
            preparedWritesSent += sent;
        }

        out.println();
        out.println("== Parameterless INSERT/UPDATE/DELETE as Statement batches ==");
        out.println("Each run of consecutive parameterless INSERT/UPDATE/DELETE statements is explained as one");
        out.println("Statement batch (addBatch each, executeBatch once); any other statement ends a run.");
        long chainIssued = 0;
        long chainSent = 0;
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
                chainSent += explainStatementBatch(run);
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
                + (preparedWritesSent + chainSent) + " after");
        out.println("  (simple model for now: one flush per INSERT, UPDATE or DELETE statement sent; other statements");
        out.println("  are not counted as flushes)");
    }

    /** Prints one Statement batch; returns the statements it sends. */
    private long explainStatementBatch(List<Item> run) {
        out.println();
        String members = run.size() == 1 ? "statement [" + run.get(0).number() + "]"
                : "statements [" + run.get(0).number() + "] to [" + run.get(run.size() - 1).number() + "]";
        if (run.size() == 1) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: batch of one statement:"
                    + " nothing to coalesce");
            return 1;
        }
        List<StatementDescription> descriptions = run.stream().map(Item::description).toList();
        BatchPlan plan;
        try {
            plan = StatementBatchPlanner.plan(descriptions, name -> table(name, List.of()), false);
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e); // the synthetic lookup does not throw
        }
        if (plan.isFallback()) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: " + plan.fallbackReason());
            out.println("  statements: " + run.size() + " issued -> " + run.size() + " sent");
            return run.size();
        }
        out.println("Statement batch of " + members + ": coalesced: " + plan.rewriteKind());
        out.println("  statements: " + run.size() + " issued -> " + plan.statements().size() + " sent"
                + (plan.statements().size() > 1 ? " (in one round trip)" : ""));
        int chain = 0;
        for (BatchPlan.Step step : plan.statements()) {
            StringBuilder numbers = new StringBuilder();
            for (int m : step.rows()) {
                numbers.append(numbers.length() > 0 ? ", " : "").append('[').append(run.get(m).number()).append(']');
            }
            if (step.rows().length > 1) {
                out.println("  chain " + (++chain) + " of " + numbers + ":");
                out.println(indent(shown(step.sql()), "    "));
            } else {
                StatementDescription member = descriptions.get(step.rows()[0]);
                String why = member.chainReason() != null ? member.chainReason()
                        : "its neighbours write its table too (a group writes a table by INSERTs only, or by one"
                                + " UPDATE or DELETE)";
                out.println("  " + numbers + " alone, as written: " + why);
            }
        }
        return plan.statements().size();
    }

    private BatchPlan planPrepared(StatementDescription d) {
        if (!d.isCoalescable()) {
            return new BatchPlan(null, List.of(), d.fallbackReason());
        }
        if (rows == 1) {
            return new BatchPlan(null, List.of(), "batch of one row: nothing to coalesce");
        }
        List<String> columns = new ArrayList<>(d.insertColumns());
        boolean[] inExpression = new boolean[d.parameterCount()];
        for (Assignment a : d.assignments()) {
            columns.add(a.column());
            if (a.isParameter() && a.inExpression()) {
                inExpression[a.parameter()] = true;
            }
        }
        for (KeyColumn k : d.keys()) {
            columns.add(k.column());
        }
        for (KeyColumn k : d.conflictKeys()) {
            columns.add(k.column());
        }
        columns.addAll(d.conflictUpdatedColumns());
        TableInfo table = table(d.targetTable(), columns);
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
        return BatchPlanner.plan(d, bound, table, null, new BatchPlanner.Settings(maxRows, false, SESSION));
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
