package dev.flushless.jdbc.analysis;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits SQL text into tokens the way PostgreSQL and pgjdbc see it, so that rewrites can reuse the
 * application's own text (never a re-printed syntax tree): string literals ({@code '...'}, {@code E'...'}
 * with backslash escapes, dollar-quoted {@code $tag$...$tag$}), quoted identifiers, line and nested block
 * comments are single tokens, so a {@code ?}, {@code ;} or keyword inside them is never mistaken for
 * syntax.
 */
final class SqlLexer {

    /** What a token is. */
    enum Kind {
        WORD,
        QUOTED_IDENTIFIER,
        STRING,
        PARAMETER,
        OPEN,
        CLOSE,
        COMMA,
        SEMICOLON,
        COMMENT,
        OTHER
    }

    /** One token: its kind, its text span {@code [start, end)} and its parenthesis depth. */
    record Token(Kind kind, int start, int end, int depth) {
        String text(String sql) {
            return sql.substring(start, end);
        }

        boolean isWord(String sql, String word) {
            return kind == Kind.WORD
                    && end - start == word.length()
                    && sql.regionMatches(true, start, word, 0, word.length());
        }
    }

    /** Thrown for text the lexer cannot split with certainty (unterminated quote or comment). */
    static final class LexException extends Exception {
        private static final long serialVersionUID = 1L;

        LexException(String message) {
            super(message, null, false, false);
        }
    }

    private SqlLexer() {}

    /**
     * The tokens of {@code sql}, comments included, whitespace excluded.
     *
     * @throws LexException for unterminated literals or comments, or pgjdbc syntax this driver does not
     *     rewrite ({@code ??} escapes and JDBC escape braces)
     */
    static List<Token> tokenize(String sql) throws LexException {
        List<Token> tokens = new ArrayList<>();
        int depth = 0;
        int i = 0;
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            int start = i;
            if (Character.isWhitespace(c)) {
                i++;
                continue;
            }
            Token quoted = quotedOrComment(sql, i, depth);
            if (quoted != null) {
                i = quoted.end();
                tokens.add(quoted);
            } else if (Character.isLetter(c) || c == '_') {
                while (i < n && isWordPart(sql.charAt(i))) {
                    i++;
                }
                tokens.add(new Token(Kind.WORD, start, i, depth));
            } else if (c == '?') {
                if (i + 1 < n && sql.charAt(i + 1) == '?') {
                    throw new LexException("'??' escape (a literal '?' operator)");
                }
                i++;
                tokens.add(new Token(Kind.PARAMETER, start, i, depth));
            } else if (c == '(') {
                i++;
                tokens.add(new Token(Kind.OPEN, start, i, depth++));
            } else if (c == ')') {
                i++;
                tokens.add(new Token(Kind.CLOSE, start, i, --depth));
                if (depth < 0) {
                    throw new LexException("unbalanced parentheses");
                }
            } else if (c == ',') {
                i++;
                tokens.add(new Token(Kind.COMMA, start, i, depth));
            } else if (c == ';') {
                i++;
                tokens.add(new Token(Kind.SEMICOLON, start, i, depth));
            } else if (c == '{' || c == '}') {
                throw new LexException("JDBC escape syntax");
            } else if (Character.isDigit(c)) {
                while (i < n
                        && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '.' || sql.charAt(i) == '_')) {
                    i++;
                }
                tokens.add(new Token(Kind.OTHER, start, i, depth));
            } else {
                i++;
                tokens.add(new Token(Kind.OTHER, start, i, depth));
            }
        }
        if (depth != 0) {
            throw new LexException("unbalanced parentheses");
        }
        return tokens;
    }

    /**
     * The comment, string literal, quoted identifier or dollar-quoted string that starts at {@code i}, or
     * {@code null} when none does.
     */
    private static Token quotedOrComment(String sql, int i, int depth) throws LexException {
        int n = sql.length();
        char c = sql.charAt(i);
        if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
            int end = i;
            while (end < n && sql.charAt(end) != '\n' && sql.charAt(end) != '\r') {
                end++;
            }
            return new Token(Kind.COMMENT, i, end, depth);
        } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
            return new Token(Kind.COMMENT, i, endOfBlockComment(sql, i), depth);
        } else if (c == '\'') {
            return new Token(Kind.STRING, i, endOfString(sql, i + 1, false), depth);
        } else if ((c == 'E' || c == 'e') && i + 1 < n && sql.charAt(i + 1) == '\'' && !continuesWord(sql, i)) {
            return new Token(Kind.STRING, i, endOfString(sql, i + 2, true), depth);
        } else if (c == '"') {
            return new Token(Kind.QUOTED_IDENTIFIER, i, endOfQuotedIdentifier(sql, i + 1), depth);
        } else if (c == '$' && dollarTagEnd(sql, i) > 0 && !continuesWord(sql, i)) {
            int tagEnd = dollarTagEnd(sql, i);
            String tag = sql.substring(i, tagEnd);
            int close = sql.indexOf(tag, tagEnd);
            if (close < 0) {
                throw new LexException("unterminated dollar-quoted string");
            }
            return new Token(Kind.STRING, i, close + tag.length(), depth);
        }
        return null;
    }

    /**
     * The spans {@code [start, end)} of the statements in a script, split at {@code ;} outside string
     * literals, quoted identifiers, dollar quotes, comments and parentheses, by the same quoting rules as
     * {@link #tokenize}. Tolerant: an unterminated quote or comment extends to the end of the text (the
     * analysis then reports it), unbalanced parentheses never hide a later {@code ;} below depth 0.
     * Each span starts at its first token (a leading comment included) and ends after its last token
     * that is not a comment, without its {@code ;}; spans holding only comments are dropped.
     */
    static List<int[]> statementSpans(String sql) {
        List<int[]> spans = new ArrayList<>();
        int n = sql.length();
        int start = 0;
        int depth = 0;
        boolean significant = false;
        int lastEnd = 0;
        int i = 0;
        while (i < n) {
            char c = sql.charAt(i);
            int next;
            boolean isComment = false;
            try {
                if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
                    next = i;
                    while (next < n && sql.charAt(next) != '\n' && sql.charAt(next) != '\r') {
                        next++;
                    }
                    isComment = true;
                } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
                    next = endOfBlockComment(sql, i);
                    isComment = true;
                } else if (c == '\'') {
                    next = endOfString(sql, i + 1, false);
                } else if ((c == 'E' || c == 'e') && i + 1 < n && sql.charAt(i + 1) == '\'' && !continuesWord(sql, i)) {
                    next = endOfString(sql, i + 2, true);
                } else if (c == '"') {
                    next = endOfQuotedIdentifier(sql, i + 1);
                } else if (c == '$' && dollarTagEnd(sql, i) > 0 && !continuesWord(sql, i)) {
                    int tagEnd = dollarTagEnd(sql, i);
                    int close = sql.indexOf(sql.substring(i, tagEnd), tagEnd);
                    next = close < 0 ? n : close + (tagEnd - i);
                } else if (Character.isLetterOrDigit(c) || c == '_') {
                    next = i;
                    while (next < n && isWordPart(sql.charAt(next))) {
                        next++;
                    }
                } else {
                    next = i + 1;
                    if (c == '(') {
                        depth++;
                    } else if (c == ')') {
                        depth = Math.max(0, depth - 1);
                    } else if (c == ';' && depth == 0) {
                        if (significant) {
                            spans.add(trimmed(sql, start, lastEnd));
                        }
                        start = next;
                        significant = false;
                        i = next;
                        continue;
                    }
                }
            } catch (LexException e) {
                next = n; // unterminated: the rest of the text belongs to this statement
            }
            if (!isComment && !Character.isWhitespace(c)) {
                significant = true;
                lastEnd = next;
            }
            i = next;
        }
        if (significant) {
            spans.add(trimmed(sql, start, lastEnd));
        }
        return spans;
    }

    private static int[] trimmed(String sql, int start, int end) {
        while (start < end && Character.isWhitespace(sql.charAt(start))) {
            start++;
        }
        while (end > start && Character.isWhitespace(sql.charAt(end - 1))) {
            end--;
        }
        return new int[] {start, end};
    }

    private static boolean isWordPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$';
    }

    /** True when the character at {@code i} continues a word (so {@code E'} or {@code $} is not a quote start). */
    private static boolean continuesWord(String sql, int i) {
        return i > 0 && isWordPart(sql.charAt(i - 1));
    }

    /** The end of the (nested) block comment starting at {@code i}, or the end of the text when it is unterminated. */
    static int endOfBlockCommentOrText(String sql, int i) {
        try {
            return endOfBlockComment(sql, i);
        } catch (LexException e) {
            return sql.length();
        }
    }

    private static int endOfBlockComment(String sql, int i) throws LexException {
        int nesting = 0;
        int n = sql.length();
        while (i < n) {
            if (sql.startsWith("/*", i)) {
                nesting++;
                i += 2;
            } else if (sql.startsWith("*/", i)) {
                nesting--;
                i += 2;
                if (nesting == 0) {
                    return i;
                }
            } else {
                i++;
            }
        }
        throw new LexException("unterminated block comment");
    }

    private static int endOfString(String sql, int i, boolean backslashEscapes) throws LexException {
        int n = sql.length();
        while (i < n) {
            char c = sql.charAt(i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == '\'') {
                if (i + 1 < n && sql.charAt(i + 1) == '\'') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        throw new LexException("unterminated string literal");
    }

    private static int endOfQuotedIdentifier(String sql, int i) throws LexException {
        int n = sql.length();
        while (i < n) {
            if (sql.charAt(i) == '"') {
                if (i + 1 < n && sql.charAt(i + 1) == '"') {
                    i += 2;
                } else {
                    return i + 1;
                }
            } else {
                i++;
            }
        }
        throw new LexException("unterminated quoted identifier");
    }

    /** The end of a dollar-quote tag starting at {@code i} ({@code $$} or {@code $name$}), or -1. */
    private static int dollarTagEnd(String sql, int i) {
        int j = i + 1;
        int n = sql.length();
        if (j < n && Character.isDigit(sql.charAt(j))) {
            return -1; // $1 is a positional parameter, not a quote
        }
        while (j < n && (Character.isLetterOrDigit(sql.charAt(j)) || sql.charAt(j) == '_')) {
            j++;
        }
        return j < n && sql.charAt(j) == '$' ? j + 1 : -1;
    }
}
