package dev.flushless.jdbc.analysis;

import static dev.flushless.jdbc.analysis.SqlAnalyzer.fold;

import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.SqlLexer.Kind;
import dev.flushless.jdbc.analysis.SqlLexer.Token;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.conditional.AndExpression;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.delete.Delete;
import net.sf.jsqlparser.statement.update.Update;
import net.sf.jsqlparser.statement.update.UpdateSet;

/**
 * {@link SqlAnalyzer}'s description of a keyed UPDATE or DELETE: its SET assignments (a parameter, a row-independent
 * expression, or one parameter in an arithmetic operation), and its WHERE clause as {@code column = ?} keys.
 */
final class KeyedAnalysis {

    private KeyedAnalysis() {}

    /** Describes an UPDATE. */
    static void describeUpdate(String sql, List<Token> tokens, Update update, StatementDescription.Builder b) {
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

    /** Describes a DELETE. */
    static void describeDelete(String sql, List<Token> tokens, Delete delete, StatementDescription.Builder b) {
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

    static void flattenAnd(Expression e, List<Expression> out) {
        if (e instanceof AndExpression and) {
            flattenAnd(and.getLeftExpression(), out);
            flattenAnd(and.getRightExpression(), out);
        } else {
            out.add(e);
        }
    }

    static boolean refersToTarget(Column column, Table table, String alias) {
        Table qualifier = column.getTable();
        if (qualifier == null || qualifier.getName() == null) {
            return true;
        }
        String name = fold(qualifier.getName());
        return alias != null ? name.equals(fold(alias)) : name.equals(fold(table.getName()));
    }
}
