package dev.flushless.jdbc.analysis;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.SqlLexer.Kind;
import dev.flushless.jdbc.analysis.SqlLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/**
 * The analysis package's entry point (the package alone talks to JSqlParser, here and in {@link InsertAnalysis},
 * {@link KeyedAnalysis}, {@link ReadAnalysis} and {@link SafeExpressions}): turns SQL text into a
 * {@link StatementDescription}, once per
 * distinct text (a least-recently-used cache shared by all connections, bounded in entries and in
 * characters of SQL, see {@link #CHARS_PER_ENTRY}). SQL that does not
 * parse, or whose shape the analysis does not fully understand, is described with a fallback reason and
 * runs exactly as the application wrote it.
 */
public final class SqlAnalyzer {

    private static final Set<String> DDL_WORDS = Set.of(
            "create",
            "alter",
            "drop",
            "truncate",
            "comment",
            "grant",
            "revoke",
            "reindex",
            "cluster",
            "vacuum",
            "analyze",
            "refresh",
            "security",
            "import",
            "lock");
    private static final Set<String> SESSION_WORDS = Set.of("set", "reset", "discard");
    private static final Set<String> QUERY_WORDS = Set.of("select", "with", "values", "table", "show", "explain");

    /**
     * Characters of SQL text the cache may hold per entry of its capacity, on average. A cache entry keeps
     * its SQL text (the key, which the description also holds), and texts have no size limit: applications
     * that build SQL with literals send texts of any length, so a cache bounded by entries alone could hold
     * {@code capacity} texts of a megabyte each. The least recently used entries are dropped until the texts
     * fit, and a text longer than the whole budget is analysed but not cached.
     */
    public static final long CHARS_PER_ENTRY = 4096;

    private final int capacity;
    private final long maxChars;
    /**
     * The cached descriptions. A hit takes no lock (every statement of every connection asks, many times per
     * execution); each entry notes when it was last used, and an insert beyond the bounds drops the least recently
     * used ones, under {@code this}.
     */
    private final java.util.concurrent.ConcurrentHashMap<String, Cached> cache;
    /** Characters of the cached texts; guarded by {@code this}. */
    private long chars;

    /** A cached description and when it was last asked for ({@link System#nanoTime}; a benign race). */
    private static final class Cached {
        final StatementDescription description;
        long used = System.nanoTime();

        Cached(StatementDescription description) {
            this.description = description;
        }
    }

    /** An analyzer caching up to {@code capacity} distinct SQL texts of {@code capacity * CHARS_PER_ENTRY} characters in all. */
    public SqlAnalyzer(int capacity) {
        this.capacity = capacity;
        this.maxChars = capacity * CHARS_PER_ENTRY;
        this.cache = new java.util.concurrent.ConcurrentHashMap<>(Math.min(capacity, 1024));
    }

    /**
     * Analyses running now, by text. Connections that start together (a pool filling, a benchmark's terminals) prepare
     * the same texts at the same moment, while the parser still runs interpreted: each text is analysed once and the
     * others take that description, instead of 64 threads parsing the same text. The wait is for pure computation on
     * another thread (no lock, no I/O); a failed analysis lets each waiter analyse for itself.
     */
    private final java.util.concurrent.ConcurrentHashMap<
                    String, java.util.concurrent.CompletableFuture<StatementDescription>>
            running = new java.util.concurrent.ConcurrentHashMap<>();
    /** Analyses run (cache misses that parsed), for tests. */
    private final java.util.concurrent.atomic.LongAdder analyses = new java.util.concurrent.atomic.LongAdder();

    /** The description of {@code sql}, from the cache or analysed now (once, however many threads ask). Never throws. */
    public StatementDescription describe(String sql) {
        Cached cached = cache.get(sql);
        if (cached != null) {
            cached.used = System.nanoTime();
            return cached.description;
        }
        java.util.concurrent.CompletableFuture<StatementDescription> mine =
                new java.util.concurrent.CompletableFuture<>();
        java.util.concurrent.CompletableFuture<StatementDescription> other = running.putIfAbsent(sql, mine);
        if (other != null) {
            try {
                return other.join();
            } catch (java.util.concurrent.CompletionException | java.util.concurrent.CancellationException e) {
                return analysed(sql);
            }
        }
        try {
            // the analysis that ran before this one cached its description before it left {@link #running}
            cached = cache.get(sql);
            StatementDescription description = cached != null ? cached.description : analysed(sql);
            mine.complete(description);
            return description;
        } catch (RuntimeException | Error e) {
            mine.completeExceptionally(e);
            throw e;
        } finally {
            running.remove(sql, mine);
        }
    }

    /** Analyses run so far (cache misses that parsed). */
    public long analysesRun() {
        return analyses.sum();
    }

    /** {@link #analyse} of a text the cache missed, then cached when it fits. */
    private StatementDescription analysed(String sql) {
        analyses.increment();
        StatementDescription description = analyse(sql);
        if (sql.length() <= maxChars) {
            synchronized (this) {
                if (cache.put(sql, new Cached(description)) == null) {
                    chars += sql.length();
                }
                // least recently used first; the new entry fits on its own
                while (cache.size() > capacity || chars > maxChars) {
                    chars -= evictLeastRecentlyUsed(sql);
                }
            }
        }
        return description;
    }

    /** Drops the least recently used entry other than {@code keep}; returns the length of its text. */
    private int evictLeastRecentlyUsed(String keep) {
        String eldest = null;
        long eldestUsed = Long.MAX_VALUE;
        for (Map.Entry<String, Cached> entry : cache.entrySet()) {
            if (entry.getValue().used < eldestUsed && !entry.getKey().equals(keep)) {
                eldest = entry.getKey();
                eldestUsed = entry.getValue().used;
            }
        }
        cache.remove(eldest);
        return eldest.length();
    }

    /** Number of cached descriptions (bounded by the capacity). */
    public int cachedCount() {
        return cache.size();
    }

    /** Characters of SQL text the cached descriptions hold (bounded by the capacity times {@link #CHARS_PER_ENTRY}). */
    public synchronized long cachedChars() {
        return chars;
    }

    /**
     * Splits a script into its statements at top-level {@code ;} (outside quotes, dollar quotes, comments and
     * parentheses, by the lexer's rules), for tools such as {@code explain}; not used on the driver's paths.
     * Each span is {@code [start, end)} in {@code script}, trimmed, without its {@code ;}; comment-only
     * pieces are dropped. Never throws: an unterminated quote or comment extends to the end.
     */
    public static List<int[]> statementSpans(String script) {
        return SqlLexer.statementSpans(script);
    }

    /** The statement texts of {@link #statementSpans(String)}. */
    public static List<String> splitStatements(String script) {
        List<String> out = new ArrayList<>();
        for (int[] span : SqlLexer.statementSpans(script)) {
            out.add(script.substring(span[0], span[1]));
        }
        return out;
    }

    /**
     * The statement kind from the leading keyword only: cheap enough for every statement on the hot path
     * (no parser), used to notice DDL and session changes that invalidate cached catalog facts. Comments are
     * skipped as PostgreSQL (and pgjdbc) read them: block comments nest, so in
     * {@code /* a /* b *}{@code / SELECT *}{@code / CREATE TRIGGER ...} the statement is the CREATE TRIGGER, not
     * a SELECT; and a line comment ends at a carriage return as well as at a newline.
     */
    public static StatementDescription.Kind leadingKind(String sql) {
        int start = leadingWordStart(sql);
        int end = wordEnd(sql, start);
        // INSERT, UPDATE and DELETE (every prepared write) without building the lower-case word
        if (end - start == 6) {
            if (isAsciiWord(sql, start, "insert")) {
                return StatementDescription.Kind.INSERT;
            }
            if (isAsciiWord(sql, start, "update")) {
                return StatementDescription.Kind.UPDATE;
            }
            if (isAsciiWord(sql, start, "delete")) {
                return StatementDescription.Kind.DELETE;
            }
            if (isAsciiWord(sql, start, "select")) {
                return StatementDescription.Kind.SELECT;
            }
        }
        return kindOfWord(sql.substring(start, end).toLowerCase(Locale.ROOT));
    }

    /**
     * Whether {@code sql} holds {@code lower} (ASCII lower-case letters) at {@code start}, in any ASCII case: what
     * {@code toLowerCase(Locale.ROOT).equals(lower)} says of a word of that length, since no other character lowers
     * to a single ASCII letter of these words.
     */
    private static boolean isAsciiWord(String sql, int start, String lower) {
        for (int k = 0; k < lower.length(); k++) {
            char c = sql.charAt(start + k);
            if (c >= 0x80 || (c | 0x20) != lower.charAt(k)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Whether the first keyword of {@code sql} is {@code lower} (ASCII lower-case letters) in any case: what
     * {@code leadingWord(sql).equals(lower)} says, without building the word (asked of every statement).
     */
    public static boolean leadingWordIs(String sql, String lower) {
        int start = leadingWordStart(sql);
        return wordEnd(sql, start) - start == lower.length() && isAsciiWord(sql, start, lower);
    }

    /** The first keyword of {@code sql} in lower case (after whitespace, comments and parentheses), or "". */
    public static String leadingWord(String sql) {
        int start = leadingWordStart(sql);
        return sql.substring(start, wordEnd(sql, start)).toLowerCase(Locale.ROOT);
    }

    private static int wordEnd(String sql, int start) {
        int i = start;
        int n = sql.length();
        while (i < n && Character.isLetter(sql.charAt(i))) {
            i++;
        }
        return i;
    }

    /** Where the first keyword of {@code sql} starts: after whitespace, comments and parentheses. */
    private static int leadingWordStart(String sql) {
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (Character.isWhitespace(c) || c == '(') {
                i++;
            } else if (sql.startsWith("--", i)) {
                while (i < n && sql.charAt(i) != '\n' && sql.charAt(i) != '\r') {
                    i++;
                }
            } else if (sql.startsWith("/*", i)) {
                i = SqlLexer.endOfBlockCommentOrText(sql, i);
            } else {
                break;
            }
        }
        return i;
    }

    private static StatementDescription.Kind kindOfWord(String word) {
        switch (word) {
            case "insert":
                return StatementDescription.Kind.INSERT;
            case "update":
                return StatementDescription.Kind.UPDATE;
            case "delete":
                return StatementDescription.Kind.DELETE;
            default:
                if (QUERY_WORDS.contains(word)) {
                    return StatementDescription.Kind.SELECT;
                }
                if (DDL_WORDS.contains(word)) {
                    return StatementDescription.Kind.DDL;
                }
                return SESSION_WORDS.contains(word)
                        ? StatementDescription.Kind.SESSION
                        : StatementDescription.Kind.OTHER;
        }
    }

    static StatementDescription analyse(String sql) {
        StatementDescription.Kind kind = leadingKind(sql);
        StatementDescription.Builder b = StatementDescription.builder(sql, kind);
        List<Token> tokens;
        try {
            tokens = significant(SqlLexer.tokenize(sql));
        } catch (SqlLexer.LexException e) {
            return b.fallback(FallbackReason.NOT_ANALYSABLE, e.getMessage()).build();
        }
        if (!tokens.isEmpty() && tokens.get(tokens.size() - 1).kind() == Kind.SEMICOLON) {
            tokens = tokens.subList(0, tokens.size() - 1);
        }
        if (tokens.isEmpty()) {
            return b.fallback(FallbackReason.EMPTY_STATEMENT).build();
        }
        for (Token t : tokens) {
            if (t.kind() == Kind.SEMICOLON) {
                return b.fallback(FallbackReason.SEVERAL_STATEMENTS).build();
            }
        }
        b.textEnd(tokens.get(tokens.size() - 1).end()).singleStatement();
        b.parameterOffsets(tokens.stream()
                .filter(t -> t.kind() == Kind.PARAMETER)
                .mapToInt(Token::start)
                .toArray());
        try {
            return analyseStatement(sql, kind, tokens, b);
        } catch (StackOverflowError e) {
            // The walks over JSqlParser's tree (and its toString) recurse once per operator: a chain such as
            // 1+1+...+1 of some thousands of terms, which PostgreSQL may accept, overflows an application thread's
            // stack. The text then runs as sent, and may not join a Statement-batch chain either.
            Fallback reason = FallbackReason.TOO_DEEP.get();
            return b.fallback(reason).chainReason(reason).build();
        }
    }

    /** {@link #analyse} of a single statement's tokens, from its kind on; may overflow the stack on deep expressions. */
    private static StatementDescription analyseStatement(
            String sql, StatementDescription.Kind kind, List<Token> tokens, StatementDescription.Builder b) {
        if (!kind.isWrite()) {
            if (kind == StatementDescription.Kind.SELECT) {
                List<String> read = ReadAnalysis.tablesRead(sql, tokens);
                b.tablesRead(read, ReadAnalysis.callsSequenceFunctions(sql, tokens));
                b.sessionBound(ReadAnalysis.callsSessionFunctions(sql, tokens));
                if (read == null && LockingReadAnalysis.locks(sql, tokens)) {
                    b.lockingRead(LockingReadAnalysis.describe(sql));
                }
            }
            return b.fallback(FallbackReason.NOT_A_WRITE).build();
        }
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(sql);
        } catch (Exception | Error e) {
            return b.fallback(FallbackReason.NOT_PARSED).build();
        }
        b.chainReason(chainReason(statement, tokens));
        if (statement instanceof Insert insert) {
            InsertAnalysis.describe(sql, tokens, insert, b);
        } else if (statement instanceof Update update) {
            KeyedAnalysis.describeUpdate(sql, tokens, update, b);
        } else if (statement instanceof Delete delete) {
            KeyedAnalysis.describeDelete(sql, tokens, delete, b);
        } else {
            b.fallback(FallbackReason.NOT_A_WRITE);
        }
        return b.build();
    }

    /** See {@link StatementDescription#chainReason()}. */
    private static Fallback chainReason(Statement statement, List<Token> tokens) {
        if (tokens.stream().anyMatch(t -> t.kind() == Kind.PARAMETER)) {
            return FallbackReason.NOT_CHAINABLE.because("statement has parameters");
        }
        if (statement instanceof Insert insert) {
            if (insert.getWithItemsList() != null && !insert.getWithItemsList().isEmpty()) {
                return FallbackReason.NOT_CHAINABLE.because("INSERT with a WITH clause");
            }
            if (insert.getConflictAction() != null
                    || insert.getReturningClause() != null
                    || insert.isUseDuplicate()
                    || insert.isUseSet()
                    || insert.isModifierIgnore()
                    || insert.getOutputClause() != null) {
                return FallbackReason.NOT_CHAINABLE.because(
                        "INSERT with ON CONFLICT, RETURNING or syntax PostgreSQL does not have");
            }
            if (!(insert.getSelect() instanceof Values values)) {
                return FallbackReason.NOT_CHAINABLE.because("INSERT ... SELECT");
            }
            return SafeExpressions.isSafe(values.getExpressions(), false)
                    ? null
                    : FallbackReason.NOT_CHAINABLE.because("VALUES not proven row-independent");
        }
        if (statement instanceof Update update) {
            if (update.getWithItemsList() != null && !update.getWithItemsList().isEmpty()
                    || update.getFromItem() != null
                    || update.getJoins() != null && !update.getJoins().isEmpty()
                    || update.getReturningClause() != null
                    || update.getStartJoins() != null && !update.getStartJoins().isEmpty()
                    || update.getOrderByElements() != null
                    || update.getLimit() != null) {
                return FallbackReason.NOT_CHAINABLE.because(
                        "UPDATE with WITH, FROM, RETURNING or syntax PostgreSQL does not have");
            }
            for (UpdateSet set : update.getUpdateSets()) {
                for (Expression value : set.getValues()) {
                    if (!SafeExpressions.isSafe(value, true)) {
                        return FallbackReason.NOT_CHAINABLE.because(
                                "SET expression reads other rows or calls a function not on the allow-list");
                    }
                }
            }
            return SafeExpressions.isSafe(update.getWhere(), true)
                    ? null
                    : FallbackReason.NOT_CHAINABLE.because("WHERE reads other tables or calls a function");
        }
        if (statement instanceof Delete delete) {
            if (delete.getWithItemsList() != null && !delete.getWithItemsList().isEmpty()
                    || delete.getUsingList() != null && !delete.getUsingList().isEmpty()
                    || delete.getJoins() != null && !delete.getJoins().isEmpty()
                    || delete.getTables() != null && !delete.getTables().isEmpty()
                    || delete.getReturningClause() != null
                    || delete.getOrderByElements() != null
                    || delete.getLimit() != null) {
                return FallbackReason.NOT_CHAINABLE.because(
                        "DELETE with WITH, USING, RETURNING or syntax PostgreSQL does not have");
            }
            return SafeExpressions.isSafe(delete.getWhere(), true)
                    ? null
                    : FallbackReason.NOT_CHAINABLE.because("WHERE reads other tables or calls a function");
        }
        return FallbackReason.NOT_CHAINABLE.because("not an INSERT, UPDATE or DELETE");
    }

    private static List<Token> significant(List<Token> tokens) {
        List<Token> out = new ArrayList<>(tokens.size());
        for (Token t : tokens) {
            if (t.kind() != Kind.COMMENT) {
                out.add(t);
            }
        }
        return out;
    }

    /** An identifier as PostgreSQL stores it: quoted names keep their case, unquoted names are lower-cased. */
    static String fold(String identifier) {
        if (identifier.length() >= 2 && identifier.startsWith("\"") && identifier.endsWith("\"")) {
            return identifier.substring(1, identifier.length() - 1).replace("\"\"", "\"");
        }
        return identifier.toLowerCase(Locale.ROOT);
    }
}
