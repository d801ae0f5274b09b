package dev.flushless.jdbc.analysis;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.SqlLexer.Kind;
import dev.flushless.jdbc.analysis.SqlLexer.Token;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/**
 * The only class that talks to JSqlParser: turns SQL text into a {@link StatementDescription}, once per
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
    private final Map<String, StatementDescription> cache;
    /** Characters of the cached texts; guarded by {@link #cache}. */
    private long chars;

    /** An analyzer caching up to {@code capacity} distinct SQL texts of {@code capacity * CHARS_PER_ENTRY} characters in all. */
    public SqlAnalyzer(int capacity) {
        this.capacity = capacity;
        this.maxChars = capacity * CHARS_PER_ENTRY;
        this.cache = new LinkedHashMap<>(Math.min(capacity, 1024), 0.75f, true);
    }

    /** The description of {@code sql}, from the cache or analysed now. Never throws. */
    public StatementDescription describe(String sql) {
        synchronized (cache) {
            StatementDescription cached = cache.get(sql);
            if (cached != null) {
                return cached;
            }
        }
        StatementDescription description = analyse(sql);
        if (sql.length() <= maxChars) {
            synchronized (cache) {
                if (cache.put(sql, description) == null) {
                    chars += sql.length();
                }
                // least recently used first; the new entry, last, fits on its own
                java.util.Iterator<String> eldest = cache.keySet().iterator();
                while (cache.size() > capacity || chars > maxChars) {
                    chars -= eldest.next().length();
                    eldest.remove();
                }
            }
        }
        return description;
    }

    /** Number of cached descriptions (bounded by the capacity). */
    public int cachedCount() {
        synchronized (cache) {
            return cache.size();
        }
    }

    /** Characters of SQL text the cached descriptions hold (bounded by the capacity times {@link #CHARS_PER_ENTRY}). */
    public long cachedChars() {
        synchronized (cache) {
            return chars;
        }
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
                b.tablesRead(ReadAnalysis.tablesRead(sql, tokens), ReadAnalysis.callsSequenceFunctions(sql, tokens));
                b.sessionBound(ReadAnalysis.callsSessionFunctions(sql, tokens));
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
            describeInsert(sql, tokens, insert, b);
        } else if (statement instanceof Update update) {
            describeUpdate(sql, tokens, update, b);
        } else if (statement instanceof Delete delete) {
            describeDelete(sql, tokens, delete, b);
        } else {
            b.fallback(FallbackReason.NOT_A_WRITE);
        }
        return b.build();
    }

    private static void describeInsert(String sql, List<Token> tokens, Insert insert, StatementDescription.Builder b) {
        b.target(
                insert.getTable().getFullyQualifiedName(),
                insert.getTable().getAlias() == null
                        ? null
                        : insert.getTable().getAlias().getName());
        b.returning(insert.getReturningClause() != null);
        if (insert.getWithItemsList() != null && !insert.getWithItemsList().isEmpty()) {
            b.fallback(FallbackReason.WITH_CLAUSE, "INSERT");
        } else if (insert.isUseDuplicate()
                || insert.isUseSet()
                || insert.isModifierIgnore()
                || insert.getOutputClause() != null
                || insert.isOracleMultiInsert()) {
            b.fallback(FallbackReason.SYNTAX_NOT_POSTGRESQL, "INSERT");
        } else if (!(insert.getSelect() instanceof Values values)) {
            b.fallback(FallbackReason.INSERT_SELECT);
        } else if (!(values.getExpressions() instanceof ParenthesedExpressionList<?> row)) {
            b.fallback(FallbackReason.SEVERAL_VALUES_ROWS);
        } else {
            for (Expression e : row) {
                if (!SafeExpressions.isSafe(e, false)) {
                    b.fallback(FallbackReason.VALUES_NOT_ROW_INDEPENDENT, e);
                    break;
                }
            }
        }
        if (b.failed()) {
            return;
        }
        List<String> columns = new ArrayList<>();
        if (insert.getColumns() != null) {
            for (Column column : insert.getColumns()) {
                columns.add(fold(column.getColumnName()));
            }
        }
        b.insertColumns(columns);
        if (insert.getConflictAction() != null) {
            describeOnConflict(
                    insert, columns, (ParenthesedExpressionList<?>) ((Values) insert.getSelect()).getExpressions(), b);
            if (b.failed()) {
                return;
            }
        }
        int valuesIndex = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).isWord(sql, "values")) {
                if (valuesIndex >= 0) {
                    b.fallback(FallbackReason.VALUES_NOT_LOCATED, "VALUES appears twice");
                    return;
                }
                valuesIndex = i;
            }
        }
        if (valuesIndex < 0
                || valuesIndex + 1 >= tokens.size()
                || tokens.get(valuesIndex + 1).kind() != Kind.OPEN) {
            b.fallback(FallbackReason.VALUES_NOT_LOCATED, "VALUES tuple not found in the text");
            return;
        }
        int close = matchingClose(tokens, valuesIndex + 1);
        if (close + 1 < tokens.size() && tokens.get(close + 1).kind() == Kind.COMMA) {
            b.fallback(FallbackReason.SEVERAL_VALUES_ROWS);
            return;
        }
        int tupleStart = tokens.get(valuesIndex + 1).start();
        int tupleEnd = tokens.get(close).end();
        int inTuple = 0;
        for (Token t : tokens) {
            if (t.kind() != Kind.PARAMETER) {
                continue;
            }
            if (t.start() < tupleStart) {
                b.fallback(FallbackReason.PARAMETER_OUTSIDE_VALUES);
                return;
            }
            if (t.start() < tupleEnd) {
                inTuple++;
            } else if (insert.getConflictAction() == null || insert.getReturningClause() != null) {
                b.fallback(FallbackReason.PARAMETER_OUTSIDE_VALUES);
                return;
            }
        }
        b.tuple(tupleStart, tupleEnd)
                .rowParameterCount(inTuple)
                .valuesStart(tokens.get(valuesIndex).start());
        if (insert.getConflictAction() != null
                && insert.getConflictAction().getConflictActionType() == ConflictActionType.DO_UPDATE) {
            b.conflictAction(locateConflictAction(sql, tokens, close + 1));
        }
        ParenthesedExpressionList<?> row =
                (ParenthesedExpressionList<?>) ((Values) insert.getSelect()).getExpressions();
        if (!columns.isEmpty()
                && row.size() == columns.size()
                && inTuple == row.size()
                && row.stream().allMatch(e -> e instanceof JdbcParameter)) {
            List<String> parameterColumns = new ArrayList<>(columns);
            for (int k = 0; k < row.size(); k++) {
                parameterColumns.set(((JdbcParameter) row.get(k)).getIndex() - 1, columns.get(k));
            }
            b.parameterColumns(parameterColumns);
        }
    }

    /**
     * Where the DO UPDATE action's SET list, WHERE condition and {@code EXCLUDED.column} references are, from the
     * tokens after the VALUES tuple; {@code null} when the text is not laid out as expected.
     */
    private static StatementDescription.ConflictAction locateConflictAction(String sql, List<Token> tokens, int from) {
        int set = -1;
        for (int i = from; i + 2 < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0
                    && tokens.get(i).isWord(sql, "do")
                    && tokens.get(i + 1).isWord(sql, "update")
                    && tokens.get(i + 2).isWord(sql, "set")) {
                set = i + 2;
                break;
            }
        }
        if (set < 0 || set + 1 >= tokens.size()) {
            return null;
        }
        int where = -1;
        int end = tokens.size();
        for (int i = set + 1; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.depth() != 0) {
                continue;
            }
            if (t.isWord(sql, "returning")) {
                end = i;
                break;
            }
            if (t.isWord(sql, "where")) {
                if (where >= 0) {
                    return null;
                }
                where = i;
            }
        }
        int endOffset = tokens.get(end - 1).end();
        List<StatementDescription.ExcludedReference> excluded = new ArrayList<>();
        for (int i = set + 1; i < end; i++) {
            Token t = tokens.get(i);
            boolean named = t.isWord(sql, "excluded")
                    || t.kind() == Kind.QUOTED_IDENTIFIER && t.text(sql).equals("\"excluded\"");
            if (!named || i > 0 && isDot(sql, tokens.get(i - 1))) {
                continue;
            }
            if (i + 2 >= end
                    || !isDot(sql, tokens.get(i + 1))
                    || tokens.get(i + 2).kind() != Kind.WORD
                            && tokens.get(i + 2).kind() != Kind.QUOTED_IDENTIFIER
                    || i + 3 < end && isDot(sql, tokens.get(i + 3))) {
                excluded = null; // a whole-row reference or something this driver does not rewrite
                break;
            }
            excluded.add(new StatementDescription.ExcludedReference(
                    t.start(), tokens.get(i + 2).end(), fold(tokens.get(i + 2).text(sql))));
            i += 2;
        }
        int setEnd = where >= 0 ? tokens.get(where).start() : endOffset;
        int setStart = tokens.get(set).end();
        return new StatementDescription.ConflictAction(
                setStart,
                setEnd,
                where >= 0 ? tokens.get(where).end() : -1,
                endOffset,
                excluded == null ? null : List.copyOf(excluded));
    }

    private static boolean isDot(String sql, Token t) {
        return t.kind() == Kind.OTHER && t.end() - t.start() == 1 && sql.charAt(t.start()) == '.';
    }

    /**
     * ON CONFLICT (columns) DO NOTHING / DO UPDATE: the conflict columns must be named in the column list and
     * supplied directly by parameters (so each row's key is known); DO UPDATE must not change them.
     */
    private static void describeOnConflict(
            Insert insert, List<String> columns, ParenthesedExpressionList<?> row, StatementDescription.Builder b) {
        var target = insert.getConflictTarget();
        var action = insert.getConflictAction();
        if (target == null) {
            b.fallback(FallbackReason.ON_CONFLICT_NO_TARGET);
            return;
        }
        if (target.getConstraintName() != null
                || target.getIndexExpression() != null
                || target.getWhereExpression() != null
                || target.getIndexColumnNames().isEmpty()) {
            b.fallback(FallbackReason.ON_CONFLICT_TARGET_NOT_COLUMNS);
            return;
        }
        List<KeyColumn> keys = new ArrayList<>();
        for (String name : target.getIndexColumnNames()) {
            int position = columns.indexOf(fold(name));
            if (position < 0 || position >= row.size() || !(row.get(position) instanceof JdbcParameter parameter)) {
                b.fallback(FallbackReason.ON_CONFLICT_COLUMN_NOT_PARAMETER, name);
                return;
            }
            keys.add(new KeyColumn(fold(name), parameter.getIndex() - 1));
        }
        List<String> updated = new ArrayList<>();
        StatementDescription.OnConflict kind;
        switch (action.getConflictActionType()) {
            case DO_NOTHING:
                kind = StatementDescription.OnConflict.DO_NOTHING;
                break;
            case DO_UPDATE:
                kind = StatementDescription.OnConflict.DO_UPDATE;
                for (UpdateSet set : action.getUpdateSets()) {
                    for (Column column : set.getColumns()) {
                        updated.add(fold(column.getColumnName()));
                    }
                    for (Expression value : set.getValues()) {
                        if (!SafeExpressions.isSafe(value, true)) {
                            b.fallback(FallbackReason.ON_CONFLICT_SET_NOT_ROW_INDEPENDENT, value);
                            return;
                        }
                    }
                }
                if (!SafeExpressions.isSafe(action.getWhereExpression(), true)) {
                    b.fallback(FallbackReason.ON_CONFLICT_WHERE_NOT_ROW_INDEPENDENT);
                    return;
                }
                for (KeyColumn key : keys) {
                    if (updated.contains(key.column())) {
                        b.fallback(FallbackReason.ON_CONFLICT_CHANGES_TARGET);
                        return;
                    }
                }
                break;
            default:
                b.fallback(FallbackReason.ON_CONFLICT_ACTION, action.getConflictActionType());
                return;
        }
        b.onConflict(kind, keys, updated);
    }

    private static void describeUpdate(String sql, List<Token> tokens, Update update, StatementDescription.Builder b) {
        Table table = update.getTable();
        String alias = table.getAlias() == null ? null : table.getAlias().getName();
        b.target(table.getFullyQualifiedName(), alias);
        b.returning(update.getReturningClause() != null);
        if (update.getWithItemsList() != null && !update.getWithItemsList().isEmpty()) {
            b.fallback(FallbackReason.WITH_CLAUSE, "UPDATE");
        } else if (update.getFromItem() != null
                || (update.getJoins() != null && !update.getJoins().isEmpty())
                || (update.getStartJoins() != null && !update.getStartJoins().isEmpty())) {
            b.fallback(FallbackReason.UPDATE_FROM);
        } else if (update.getReturningClause() != null) {
            b.fallback(FallbackReason.RETURNING_NOT_COALESCED, "UPDATE");
        } else if (update.getOrderByElements() != null || update.getLimit() != null) {
            b.fallback(FallbackReason.SYNTAX_NOT_POSTGRESQL, "UPDATE");
        } else if (update.getWhere() == null) {
            b.fallback(FallbackReason.NO_WHERE, "UPDATE");
        }
        if (b.failed()) {
            return;
        }
        List<Assignment> assignments = new ArrayList<>();
        for (UpdateSet set : update.getUpdateSets()) {
            if (set.getColumns().size() != 1 || set.getValues().size() != 1) {
                b.fallback(FallbackReason.SET_COLUMN_LIST);
                return;
            }
            String column = fold(set.getColumns().get(0).getColumnName());
            Expression value = set.getValues().get(0);
            if (value instanceof JdbcParameter parameter) {
                assignments.add(new Assignment(column, parameter.getIndex() - 1));
            } else if (!SafeExpressions.hasParameter(value) && SafeExpressions.isSafe(value, true)) {
                assignments.add(new Assignment(column, -1));
            } else if (oneParameterOperation(value) != null) {
                assignments.add(
                        new Assignment(column, oneParameterOperation(value).getIndex() - 1, true));
            } else {
                b.fallback(FallbackReason.SET_NOT_ROW_INDEPENDENT, value);
                return;
            }
        }
        b.assignments(assignments);
        List<KeyColumn> keys = whereKeys(update.getWhere(), table, alias, b);
        if (b.failed()) {
            return;
        }
        if (!keys.isEmpty()
                && keys.stream()
                        .allMatch(key ->
                                assignments.stream().anyMatch(a -> a.column().equals(key.column())))) {
            b.fallback(FallbackReason.SET_CHANGES_WHERE);
            return;
        }
        finishKeyed(
                sql,
                tokens,
                keys,
                (int) assignments.stream().filter(Assignment::isParameter).count(),
                b);
    }

    private static void describeDelete(String sql, List<Token> tokens, Delete delete, StatementDescription.Builder b) {
        Table table = delete.getTable();
        String alias = table.getAlias() == null ? null : table.getAlias().getName();
        b.target(table.getFullyQualifiedName(), alias);
        b.returning(delete.getReturningClause() != null);
        if (delete.getWithItemsList() != null && !delete.getWithItemsList().isEmpty()) {
            b.fallback(FallbackReason.WITH_CLAUSE, "DELETE");
        } else if ((delete.getUsingList() != null && !delete.getUsingList().isEmpty())
                || (delete.getJoins() != null && !delete.getJoins().isEmpty())
                || (delete.getTables() != null && !delete.getTables().isEmpty())) {
            b.fallback(FallbackReason.DELETE_USING);
        } else if (delete.getReturningClause() != null) {
            b.fallback(FallbackReason.RETURNING_NOT_COALESCED, "DELETE");
        } else if (delete.getOrderByElements() != null || delete.getLimit() != null) {
            b.fallback(FallbackReason.SYNTAX_NOT_POSTGRESQL, "DELETE");
        } else if (delete.getWhere() == null) {
            b.fallback(FallbackReason.NO_WHERE, "DELETE");
        }
        if (b.failed()) {
            return;
        }
        List<KeyColumn> keys = whereKeys(delete.getWhere(), table, alias, b);
        if (!b.failed()) {
            finishKeyed(sql, tokens, keys, 0, b);
        }
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

    /** Checks parameter accounting and finds the WHERE keyword for UPDATE/DELETE. */
    private static void finishKeyed(
            String sql, List<Token> tokens, List<KeyColumn> keys, int setParameters, StatementDescription.Builder b) {
        int parameters =
                (int) tokens.stream().filter(t -> t.kind() == Kind.PARAMETER).count();
        if (keys.isEmpty()) {
            b.fallback(FallbackReason.WHERE_NO_KEY);
            return;
        }
        if (parameters != keys.size() + setParameters) {
            b.fallback(FallbackReason.PARAMETER_OUTSIDE_KEYS);
            return;
        }
        int where = -1;
        for (Token t : tokens) {
            if (t.depth() == 0 && t.isWord(sql, "where")) {
                if (where >= 0) {
                    b.fallback(FallbackReason.WHERE_NOT_LOCATED, "WHERE appears twice");
                    return;
                }
                where = t.start();
            }
        }
        if (where < 0) {
            b.fallback(FallbackReason.WHERE_NOT_LOCATED, "WHERE not found in the text");
            return;
        }
        b.keys(keys).whereStart(where);
    }

    /**
     * The {@code column = ?} conjuncts of {@code where}. Conjuncts without parameters are allowed when
     * row-independent; anything else (OR, IN, subqueries, parameters in other shapes) is a fallback.
     */
    private static List<KeyColumn> whereKeys(
            Expression where, Table table, String alias, StatementDescription.Builder b) {
        List<Expression> conjuncts = new ArrayList<>();
        flattenAnd(where, conjuncts);
        List<KeyColumn> keys = new ArrayList<>();
        for (Expression conjunct : conjuncts) {
            if (conjunct instanceof EqualsTo equals) {
                Expression left = equals.getLeftExpression();
                Expression right = equals.getRightExpression();
                Column column = left instanceof Column c && right instanceof JdbcParameter
                        ? c
                        : right instanceof Column c2 && left instanceof JdbcParameter ? c2 : null;
                JdbcParameter parameter =
                        left instanceof JdbcParameter p ? p : right instanceof JdbcParameter p2 ? p2 : null;
                if (column != null && parameter != null) {
                    if (!refersToTarget(column, table, alias)) {
                        b.fallback(FallbackReason.WHERE_OTHER_TABLE, column);
                        return keys;
                    }
                    keys.add(new KeyColumn(fold(column.getColumnName()), parameter.getIndex() - 1));
                    continue;
                }
            }
            if (SafeExpressions.hasParameter(conjunct) || !SafeExpressions.isSafe(conjunct, true)) {
                b.fallback(FallbackReason.WHERE_CONJUNCT, conjunct);
                return keys;
            }
        }
        return keys;
    }

    /**
     * The parameter of {@code <operand> <op> ?} or {@code ? <op> <operand>} where op is arithmetic or
     * concatenation and the operand is row-independent without parameters (e.g. {@code stock + ?}), else null.
     */
    private static JdbcParameter oneParameterOperation(Expression value) {
        if (!(value instanceof net.sf.jsqlparser.expression.operators.arithmetic.Addition
                || value instanceof net.sf.jsqlparser.expression.operators.arithmetic.Subtraction
                || value instanceof net.sf.jsqlparser.expression.operators.arithmetic.Multiplication
                || value instanceof net.sf.jsqlparser.expression.operators.arithmetic.Division
                || value instanceof net.sf.jsqlparser.expression.operators.arithmetic.Concat)) {
            return null;
        }
        net.sf.jsqlparser.expression.BinaryExpression binary = (net.sf.jsqlparser.expression.BinaryExpression) value;
        Expression left = binary.getLeftExpression();
        Expression right = binary.getRightExpression();
        JdbcParameter parameter = left instanceof JdbcParameter p ? p : right instanceof JdbcParameter p2 ? p2 : null;
        Expression other = parameter == left ? right : left;
        if (parameter == null || SafeExpressions.hasParameter(other) || !SafeExpressions.isSafe(other, true)) {
            return null;
        }
        return parameter;
    }

    private static void flattenAnd(Expression e, List<Expression> out) {
        if (e instanceof AndExpression and) {
            flattenAnd(and.getLeftExpression(), out);
            flattenAnd(and.getRightExpression(), out);
        } else {
            out.add(e);
        }
    }

    private static boolean refersToTarget(Column column, Table table, String alias) {
        Table qualifier = column.getTable();
        if (qualifier == null || qualifier.getName() == null) {
            return true;
        }
        String name = fold(qualifier.getName());
        return alias != null ? name.equals(fold(alias)) : name.equals(fold(table.getName()));
    }

    private static int matchingClose(List<Token> tokens, int open) {
        int depth = tokens.get(open).depth();
        for (int i = open + 1; i < tokens.size(); i++) {
            if (tokens.get(i).kind() == Kind.CLOSE && tokens.get(i).depth() == depth) {
                return i;
            }
        }
        return tokens.size() - 1; // unreachable: the lexer rejects unbalanced parentheses
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
