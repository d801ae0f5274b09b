package dev.flushless.jdbc.analysis;

import static dev.flushless.jdbc.analysis.SqlAnalyzer.fold;

import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.SqlLexer.Kind;
import dev.flushless.jdbc.analysis.SqlLexer.Token;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.relational.ParenthesedExpressionList;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.statement.insert.ConflictActionType;
import net.sf.jsqlparser.statement.insert.Insert;
import net.sf.jsqlparser.statement.select.Values;
import net.sf.jsqlparser.statement.update.UpdateSet;

/**
 * {@link SqlAnalyzer}'s description of an INSERT: whether it is one row-independent VALUES tuple (what the batch
 * rewrites need), its columns, its ON CONFLICT clause, and where the tuple, its parameters and a DO UPDATE action
 * are in the text.
 */
final class InsertAnalysis {

    private InsertAnalysis() {}

    /** Describes an INSERT: its target and columns, ON CONFLICT, and where its VALUES tuple and parameters are. */
    static void describe(String sql, List<Token> tokens, Insert insert, StatementDescription.Builder b) {
        b.target(
                insert.getTable().getFullyQualifiedName(),
                insert.getTable().getAlias() == null
                        ? null
                        : insert.getTable().getAlias().getName());
        b.returning(insert.getReturningClause() != null);
        checkShape(insert, b);
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
        Tuple tuple = locateTuple(sql, tokens, insert, b);
        if (tuple == null) {
            return;
        }
        if (insert.getConflictAction() != null
                && insert.getConflictAction().getConflictActionType() == ConflictActionType.DO_UPDATE) {
            b.conflictAction(locateConflictAction(sql, tokens, tuple.close() + 1));
        }
        ParenthesedExpressionList<?> row =
                (ParenthesedExpressionList<?>) ((Values) insert.getSelect()).getExpressions();
        boolean allParameters =
                tuple.parameters() == row.size() && row.stream().allMatch(e -> e instanceof JdbcParameter);
        if (allParameters && columns.isEmpty()) {
            b.positionalTuple();
        }
        if (allParameters && !columns.isEmpty() && row.size() == columns.size()) {
            List<String> parameterColumns = new ArrayList<>(columns);
            for (int k = 0; k < row.size(); k++) {
                parameterColumns.set(((JdbcParameter) row.get(k)).getIndex() - 1, columns.get(k));
            }
            b.parameterColumns(parameterColumns);
        }
    }

    /** A fallback unless {@code insert} is a plain INSERT ... VALUES of one row-independent tuple. */
    private static void checkShape(Insert insert, StatementDescription.Builder b) {
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
    }

    /** The VALUES tuple: the token index of its closing parenthesis, and the parameters in it. */
    private record Tuple(int close, int parameters) {}

    /**
     * Finds the VALUES tuple in the text and checks that every parameter is in it (or, for ON CONFLICT without
     * RETURNING, after it); sets the tuple, the row's parameter count and where VALUES starts. Returns where the tuple
     * closes and how many parameters it holds, or {@code null} after a fallback.
     */
    private static Tuple locateTuple(String sql, List<Token> tokens, Insert insert, StatementDescription.Builder b) {
        int valuesIndex = -1;
        for (int i = 0; i < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).isWord(sql, "values")) {
                if (valuesIndex >= 0) {
                    b.fallback(FallbackReason.VALUES_NOT_LOCATED, "VALUES appears twice");
                    return null;
                }
                valuesIndex = i;
            }
        }
        if (valuesIndex < 0
                || valuesIndex + 1 >= tokens.size()
                || tokens.get(valuesIndex + 1).kind() != Kind.OPEN) {
            b.fallback(FallbackReason.VALUES_NOT_LOCATED, "VALUES tuple not found in the text");
            return null;
        }
        int close = matchingClose(tokens, valuesIndex + 1);
        if (close + 1 < tokens.size() && tokens.get(close + 1).kind() == Kind.COMMA) {
            b.fallback(FallbackReason.SEVERAL_VALUES_ROWS);
            return null;
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
                return null;
            }
            if (t.start() < tupleEnd) {
                inTuple++;
            } else if (insert.getConflictAction() == null || insert.getReturningClause() != null) {
                b.fallback(FallbackReason.PARAMETER_OUTSIDE_VALUES);
                return null;
            }
        }
        b.tuple(tupleStart, tupleEnd)
                .rowParameterCount(inTuple)
                .valuesStart(tokens.get(valuesIndex).start());
        return new Tuple(close, inTuple);
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

    private static int matchingClose(List<Token> tokens, int open) {
        int depth = tokens.get(open).depth();
        for (int i = open + 1; i < tokens.size(); i++) {
            if (tokens.get(i).kind() == Kind.CLOSE && tokens.get(i).depth() == depth) {
                return i;
            }
        }
        return tokens.size() - 1; // unreachable: the lexer rejects unbalanced parentheses
    }
}
