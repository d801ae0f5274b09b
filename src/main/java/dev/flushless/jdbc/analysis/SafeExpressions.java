package dev.flushless.jdbc.analysis;

import java.util.Locale;
import java.util.Set;
import net.sf.jsqlparser.expression.ArrayConstructor;
import net.sf.jsqlparser.expression.BinaryExpression;
import net.sf.jsqlparser.expression.BooleanValue;
import net.sf.jsqlparser.expression.CastExpression;
import net.sf.jsqlparser.expression.DateTimeLiteralExpression;
import net.sf.jsqlparser.expression.DoubleValue;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.Function;
import net.sf.jsqlparser.expression.HexValue;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.LongValue;
import net.sf.jsqlparser.expression.NullValue;
import net.sf.jsqlparser.expression.SignedExpression;
import net.sf.jsqlparser.expression.StringValue;
import net.sf.jsqlparser.expression.TimeKeyExpression;
import net.sf.jsqlparser.expression.operators.relational.ExpressionList;
import net.sf.jsqlparser.schema.Column;

/**
 * Decides whether an expression computes the same value for a row whether the statement runs once per
 * row or once for many rows. Within one PostgreSQL statement every row sees the snapshot taken at the
 * statement's start, so an expression that reads the table being written (a subquery, or a function that
 * queries) would see other rows' changes when run row by row but not when coalesced. Only parameters,
 * literals, casts, operators, the target row's own columns (where allowed) and a small allow-list of
 * functions that read no table pass.
 */
final class SafeExpressions {

    /** Built-in functions that read no table; {@code nextval} is per-row and in row order either way. */
    private static final Set<String> ALLOWED_FUNCTIONS = Set.of(
            "now",
            "current_timestamp",
            "current_date",
            "current_time",
            "localtimestamp",
            "localtime",
            "clock_timestamp",
            "statement_timestamp",
            "transaction_timestamp",
            "nextval",
            "gen_random_uuid",
            "uuid_generate_v4",
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
            "length",
            "substring",
            "substr",
            "concat",
            "to_jsonb",
            "jsonb_build_object",
            "to_timestamp",
            "to_date",
            "md5");

    private SafeExpressions() {}

    /**
     * True when {@code expression} is row-independent: see the class comment.
     *
     * @param allowColumns whether references to the target row's own columns are allowed (UPDATE SET and
     *     WHERE: yes; INSERT VALUES: no, PostgreSQL rejects them there anyway, except {@code DEFAULT})
     */
    static boolean isSafe(Expression expression, boolean allowColumns) {
        if (expression == null) {
            return true;
        }
        if (expression instanceof JdbcParameter
                || expression instanceof LongValue
                || expression instanceof DoubleValue
                || expression instanceof StringValue
                || expression instanceof NullValue
                || expression instanceof BooleanValue
                || expression instanceof HexValue
                || expression instanceof DateTimeLiteralExpression
                || expression instanceof TimeKeyExpression) {
            return true;
        }
        if (expression instanceof Column column) {
            return allowColumns || "DEFAULT".equalsIgnoreCase(column.getFullyQualifiedName());
        }
        if (expression instanceof CastExpression cast) {
            return isSafe(cast.getLeftExpression(), allowColumns);
        }
        if (expression instanceof SignedExpression signed) {
            return isSafe(signed.getExpression(), allowColumns);
        }
        if (expression instanceof ArrayConstructor array) {
            return isSafeList(array.getExpressions(), allowColumns);
        }
        if (expression instanceof ExpressionList<?> list) {
            return isSafeList(list, allowColumns);
        }
        if (expression instanceof net.sf.jsqlparser.expression.operators.relational.IsNullExpression isNull) {
            return isSafe(isNull.getLeftExpression(), allowColumns);
        }
        if (expression instanceof net.sf.jsqlparser.expression.NotExpression not) {
            return isSafe(not.getExpression(), allowColumns);
        }
        if (expression instanceof net.sf.jsqlparser.expression.operators.relational.InExpression in) {
            return isSafe(in.getLeftExpression(), allowColumns) && isSafe(in.getRightExpression(), allowColumns);
        }
        if (expression instanceof net.sf.jsqlparser.expression.operators.relational.Between between) {
            return isSafe(between.getLeftExpression(), allowColumns)
                    && isSafe(between.getBetweenExpressionStart(), allowColumns)
                    && isSafe(between.getBetweenExpressionEnd(), allowColumns);
        }
        if (expression instanceof BinaryExpression binary) {
            return isSafe(binary.getLeftExpression(), allowColumns)
                    && isSafe(binary.getRightExpression(), allowColumns);
        }
        if (expression instanceof Function function) {
            String name = function.getName() == null ? "" : function.getName().toLowerCase(Locale.ROOT);
            return ALLOWED_FUNCTIONS.contains(name)
                    && function.getKeep() == null
                    && isSafe(function.getParameters(), allowColumns);
        }
        return false;
    }

    private static boolean isSafeList(java.util.List<? extends Expression> expressions, boolean allowColumns) {
        if (expressions == null) {
            return true;
        }
        for (Expression e : expressions) {
            if (!isSafe(e, allowColumns)) {
                return false;
            }
        }
        return true;
    }

    /** True when {@code expression} contains a JDBC parameter anywhere (subqueries included). */
    static boolean hasParameter(Expression expression) {
        boolean[] found = {false};
        expression.accept(
                new net.sf.jsqlparser.expression.ExpressionVisitorAdapter<Void>() {
                    @Override
                    public <S> Void visit(JdbcParameter parameter, S context) {
                        found[0] = true;
                        return null;
                    }
                },
                null);
        return found[0];
    }
}
