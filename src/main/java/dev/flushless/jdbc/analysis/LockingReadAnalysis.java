package dev.flushless.jdbc.analysis;

import static dev.flushless.jdbc.analysis.SqlAnalyzer.fold;

import dev.flushless.jdbc.analysis.SqlLexer.Token;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import java.util.ArrayList;
import java.util.List;
import net.sf.jsqlparser.expression.Expression;
import net.sf.jsqlparser.expression.JdbcParameter;
import net.sf.jsqlparser.expression.operators.relational.EqualsTo;
import net.sf.jsqlparser.parser.CCJSqlParserUtil;
import net.sf.jsqlparser.schema.Column;
import net.sf.jsqlparser.schema.Table;
import net.sf.jsqlparser.statement.Statement;
import net.sf.jsqlparser.statement.select.PlainSelect;

/**
 * Which rows a {@code SELECT ... FOR UPDATE} (or {@code NO KEY UPDATE}, {@code SHARE}, {@code KEY SHARE}) of one
 * table locks, by the values of its {@code column = ?} conjuncts ({@link StatementDescription.LockingRead}): in
 * {@code flushless.mode=transaction} an UPDATE of a row the transaction holds locked has a known count.
 */
final class LockingReadAnalysis {

    private LockingReadAnalysis() {}

    /** Whether the query's text has a top-level {@code FOR} followed by a lock strength (a locking clause). */
    static boolean locks(String sql, List<Token> tokens) {
        for (int i = 0; i + 1 < tokens.size(); i++) {
            if (tokens.get(i).depth() == 0 && tokens.get(i).isWord(sql, "for")) {
                Token next = tokens.get(i + 1);
                if (next.isWord(sql, "update")
                        || next.isWord(sql, "share")
                        || next.isWord(sql, "no")
                        || next.isWord(sql, "key")) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * What a {@code SELECT ... FOR ...} of one table locks ({@link StatementDescription.LockingRead}), or {@code null}
     * when it is not that simple: a join, a subquery in FROM, DISTINCT, grouping, a set operation, a WITH clause, or
     * no {@code column = ?} conjunct. Its other conjuncts do not matter: they only decide which of the rows with those
     * key values it returns.
     */
    static StatementDescription.LockingRead describe(String sql) {
        Statement statement;
        try {
            statement = CCJSqlParserUtil.parse(sql);
        } catch (Exception | Error e) {
            return null;
        }
        if (!(statement instanceof PlainSelect select)
                || select.getForMode() == null
                || !(select.getFromItem() instanceof Table table)
                || (select.getJoins() != null && !select.getJoins().isEmpty())
                || select.getDistinct() != null
                || select.getGroupBy() != null
                || select.getHaving() != null
                || (select.getWithItemsList() != null
                        && !select.getWithItemsList().isEmpty())
                || select.getWhere() == null) {
            return null;
        }
        StatementDescription.LockStrength strength;
        switch (select.getForMode()) {
            case UPDATE -> strength = StatementDescription.LockStrength.UPDATE;
            case NO_KEY_UPDATE -> strength = StatementDescription.LockStrength.NO_KEY_UPDATE;
            case SHARE -> strength = StatementDescription.LockStrength.SHARE;
            case KEY_SHARE -> strength = StatementDescription.LockStrength.KEY_SHARE;
            default -> {
                return null;
            }
        }
        String alias = table.getAlias() == null ? null : table.getAlias().getName();
        List<Expression> conjuncts = new ArrayList<>();
        KeyedAnalysis.flattenAnd(select.getWhere(), conjuncts);
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
                if (column != null && parameter != null && KeyedAnalysis.refersToTarget(column, table, alias)) {
                    keys.add(new KeyColumn(fold(column.getColumnName()), parameter.getIndex() - 1));
                }
            }
        }
        return keys.isEmpty()
                ? null
                : new StatementDescription.LockingRead(table.getFullyQualifiedName(), List.copyOf(keys), strength);
    }
}
