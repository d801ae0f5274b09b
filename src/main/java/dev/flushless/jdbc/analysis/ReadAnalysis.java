package dev.flushless.jdbc.analysis;

import dev.flushless.jdbc.analysis.SqlLexer.Kind;
import dev.flushless.jdbc.analysis.SqlLexer.Token;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.Select;
import net.sf.jsqlparser.util.TablesNamesFinder;

/**
 * Which tables a query reads, for {@code flushless.mode=transaction}: a query that reads none of the tables
 * the transaction's buffered INSERTs wrote can run before them without seeing a difference. Conservative by
 * construction: any word that could make the query write, lock, create a table or run user code (a function
 * not on the allow-list, which could read any table) makes the answer "unknown", and the buffer is sent first.
 */
final class ReadAnalysis {

    /**
     * Functions (and function-like syntax) that read no table. {@code nextval} and friends touch only their
     * sequence, which no buffered INSERT writes: Hibernate's pooled id optimizer calls it between batches.
     */
    private static final Set<String> READS_NO_TABLE = Set.of(
            "nextval",
            "currval",
            "lastval",
            "setval",
            "count",
            "sum",
            "min",
            "max",
            "avg",
            "bool_and",
            "bool_or",
            "every",
            "array_agg",
            "string_agg",
            "now",
            "current_timestamp",
            "current_date",
            "current_time",
            "localtimestamp",
            "localtime",
            "clock_timestamp",
            "statement_timestamp",
            "transaction_timestamp",
            "version",
            "current_setting",
            "current_schema",
            "current_database",
            "current_user",
            "session_user",
            "pg_backend_pid",
            "txid_current",
            "pg_current_xact_id",
            "lower",
            "upper",
            "trim",
            "btrim",
            "ltrim",
            "rtrim",
            "coalesce",
            "nullif",
            "greatest",
            "least",
            "abs",
            "round",
            "floor",
            "ceil",
            "ceiling",
            "length",
            "char_length",
            "substring",
            "substr",
            "concat",
            "concat_ws",
            "position",
            "replace",
            "to_char",
            "to_timestamp",
            "to_date",
            "to_number",
            "md5",
            "extract",
            "date_trunc",
            "date_part",
            "age",
            "generate_series",
            "unnest",
            "row_number",
            "rank",
            "dense_rank",
            "jsonb_build_object",
            "json_build_object",
            "to_jsonb",
            "to_json",
            "cast");

    /** Keywords that may be followed by a parenthesis without being a function call. */
    private static final Set<String> SYNTAX_BEFORE_PARENTHESIS = Set.of(
            "select",
            "from",
            "join",
            "where",
            "and",
            "or",
            "not",
            "in",
            "exists",
            "any",
            "all",
            "some",
            "as",
            "on",
            "using",
            "values",
            "with",
            "recursive",
            "union",
            "intersect",
            "except",
            "lateral",
            "by",
            "over",
            "filter",
            "within",
            "case",
            "when",
            "then",
            "else",
            "is",
            "between",
            "like",
            "ilike",
            "array",
            "row",
            "having",
            "limit",
            "offset",
            "distinct",
            "partition",
            "order",
            "group",
            "materialized",
            "varchar",
            "char",
            "character",
            "varying",
            "numeric",
            "decimal",
            "timestamp",
            "time",
            "interval",
            "bit",
            "float",
            "precision");

    /** Words that make a query write, lock, create something or leave the analysis: the answer is "unknown". */
    private static final Set<String> NOT_A_PLAIN_READ = Set.of(
            "insert", "update", "delete", "merge", "into", "for", "lock", "copy", "call", "do", "execute", "perform",
            "notify", "listen", "nowait", "skip");

    /** Functions that draw from or read a sequence's session state. */
    private static final Set<String> SEQUENCE_FUNCTIONS = Set.of("nextval", "currval", "lastval", "setval");

    /**
     * Allow-listed functions whose answer belongs to the server session or the server (so a replica session answers
     * differently, or fails: a standby assigns no transaction ids): such a query never runs on a replica.
     */
    private static final Set<String> SESSION_FUNCTIONS = Set.of(
            "nextval",
            "currval",
            "lastval",
            "setval",
            "current_setting",
            "pg_backend_pid",
            "txid_current",
            "pg_current_xact_id");

    private ReadAnalysis() {}

    /** True when {@code sql} calls a function of {@link #SESSION_FUNCTIONS}. */
    static boolean callsSessionFunctions(String sql, List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() == Kind.WORD
                    && tokens.get(i + 1).kind() == Kind.OPEN
                    && SESSION_FUNCTIONS.contains(t.text(sql).toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code sql} calls {@code nextval}, {@code currval}, {@code lastval} or {@code setval}. */
    static boolean callsSequenceFunctions(String sql, List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() == Kind.WORD
                    && tokens.get(i + 1).kind() == Kind.OPEN
                    && SEQUENCE_FUNCTIONS.contains(t.text(sql).toLowerCase(Locale.ROOT))) {
                return true;
            }
        }
        return false;
    }

    /** The tables {@code sql} reads (see {@link StatementDescription#tablesRead()}), or {@code null}. */
    static List<String> tablesRead(String sql, List<Token> tokens) {
        for (int i = 0; i < tokens.size(); i++) {
            Token t = tokens.get(i);
            if (t.kind() != Kind.WORD) {
                if (t.kind() == Kind.QUOTED_IDENTIFIER
                        && i + 1 < tokens.size()
                        && tokens.get(i + 1).kind() == Kind.OPEN) {
                    return null; // "quoted"(...) : a user function
                }
                continue;
            }
            String word = t.text(sql).toLowerCase(Locale.ROOT);
            if (NOT_A_PLAIN_READ.contains(word)) {
                return null;
            }
            boolean called = i + 1 < tokens.size() && tokens.get(i + 1).kind() == Kind.OPEN;
            if (called && !READS_NO_TABLE.contains(word) && !SYNTAX_BEFORE_PARENTHESIS.contains(word)) {
                return null;
            }
        }
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(sql);
        } catch (Exception | Error e) {
            return null;
        }
        if (!(statement instanceof Select)) {
            return null;
        }
        try {
            Set<String> tables = new TablesNamesFinder<Void>().getTables(statement);
            return new ArrayList<>(tables);
        } catch (RuntimeException | StackOverflowError e) {
            return null; // the finder recurses once per operator: a long chain of them overflows the stack
        }
    }
}
