package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.FallbackReason;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Plans a {@code Statement} batch of different SQL texts as CTE chains: consecutive members that may share
 * one statement become {@code WITH s1 AS (... RETURNING 1), s2 AS (...) SELECT (SELECT count(*) FROM s1), ...},
 * which gives each member its exact count. All groups are sent in one round trip.
 *
 * <p>Grouping rules (PostgreSQL runs all parts of one statement on one snapshot, so no part sees another's
 * changes): a table may be written in one group either by any number of INSERTs, or by exactly one UPDATE or
 * DELETE and nothing else; a member that would break this starts a new group. Two UPDATEs of one row in a
 * statement would silently apply only one, and an UPDATE after an INSERT into the same table would not see
 * the new rows: both are excluded by the rule. Members that read other tables, have triggers, rules or
 * row-level security, or change a table that cascades to others run alone, as written. Foreign keys are checked at
 * the end of the whole statement, so a member that could satisfy a check an earlier member of its group queued (a
 * parent inserted after its child) starts a new group ({@link ForeignKeyOrder.Chain}).
 */
public final class StatementBatchPlanner {

    /** Reads a table's catalog facts. */
    @FunctionalInterface
    public interface TableLookup {
        TableInfo lookup(String table) throws SQLException;
    }

    private StatementBatchPlanner() {}

    /**
     * Plans {@code members} (the batch's texts, described) with the tables {@code lookup} finds; of {@code settings}
     * only {@code flushless.trustTriggers} and {@code flushless.exactSequences} matter here.
     */
    public static BatchPlan plan(List<StatementDescription> members, TableLookup lookup, BatchPlanner.Settings settings)
            throws SQLException {
        boolean trustTriggers = settings.trustTriggers();
        boolean exactSequences = settings.exactSequences();
        for (StatementDescription member : members) {
            if (!member.isSingleStatement()) {
                return BatchPlan.fallback(
                        FallbackReason.STATEMENT_BATCH_MEMBER,
                        "statement batch holds a text that is not exactly one statement");
            }
            StatementDescription.Kind kind = member.kind();
            if (!kind.isWrite()) {
                return BatchPlan.fallback(
                        FallbackReason.STATEMENT_BATCH_MEMBER,
                        "statement batch holds a statement other than INSERT, UPDATE or DELETE");
            }
            // a plan that fails is undone and re-run as sent: a member that drew sequence values would draw twice
            if (exactSequences
                    && (member.callsSequenceFunctions()
                            || kind == StatementDescription.Kind.INSERT
                                    && (member.chainReason() != null
                                            || lookup.lookup(member.targetTable())
                                                    .drawsFromSequences()))) {
                return BatchPlan.fallback(FallbackReason.EXACT_SEQUENCES);
            }
        }
        List<Step> steps = new ArrayList<>();
        List<Integer> group = new ArrayList<>();
        Map<Long, Boolean> writtenExclusively = new HashMap<>();
        ForeignKeyOrder.Chain checks = new ForeignKeyOrder.Chain();
        boolean chained = false;
        for (int m = 0; m < members.size(); m++) {
            StatementDescription member = members.get(m);
            TableInfo table = member.chainReason() == null ? lookup.lookup(member.targetTable()) : null;
            boolean chainable = table != null
                    && (member.kind() == StatementDescription.Kind.INSERT
                            ? table.insertBarrier(trustTriggers, exactSequences) == null
                            : table.barrier(trustTriggers) == null && !table.cascades());
            if (!chainable) {
                chained |= close(members, group, steps);
                writtenExclusively.clear();
                checks.clear();
                steps.add(new Step(text(member), new int[] {m}, Decoding.UPDATE_COUNT));
                continue;
            }
            boolean exclusive = member.kind() != StatementDescription.Kind.INSERT;
            Boolean previous = writtenExclusively.get(table.oid());
            if (previous != null && (exclusive || previous) || checks.breaksOrder(member, table)) {
                chained |= close(members, group, steps);
                writtenExclusively.clear();
                checks.clear();
            }
            group.add(m);
            writtenExclusively.put(table.oid(), exclusive);
            checks.add(member, table);
        }
        chained |= close(members, group, steps);
        if (!chained) {
            return BatchPlan.fallback(FallbackReason.NOTHING_SHARES);
        }
        return new BatchPlan("statement-chain", steps, null);
    }

    /** Turns the open group into a step; true when it chained two or more members. */
    private static boolean close(List<StatementDescription> members, List<Integer> group, List<Step> steps) {
        if (group.isEmpty()) {
            return false;
        }
        int[] indexes = group.stream().mapToInt(Integer::intValue).toArray();
        group.clear();
        if (indexes.length == 1) {
            steps.add(new Step(text(members.get(indexes[0])), indexes, Decoding.UPDATE_COUNT));
            return false;
        }
        StringBuilder sql = new StringBuilder("WITH ");
        for (int i = 0; i < indexes.length; i++) {
            sql.append(i > 0 ? ",\n" : "")
                    .append("flushless_s")
                    .append(i + 1)
                    .append(" AS (")
                    .append(text(members.get(indexes[i])))
                    .append("\nRETURNING 1)");
        }
        sql.append("\nSELECT ");
        for (int i = 0; i < indexes.length; i++) {
            sql.append(i > 0 ? ", " : "")
                    .append("(SELECT count(*) FROM flushless_s")
                    .append(i + 1)
                    .append(')');
        }
        steps.add(new Step(sql.toString(), indexes, Decoding.CHAIN_COUNTS));
        return true;
    }

    /** The member's text without a trailing semicolon or comment. */
    private static String text(StatementDescription member) {
        return member.text();
    }
}
