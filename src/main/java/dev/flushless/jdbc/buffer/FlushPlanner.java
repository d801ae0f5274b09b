package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.BatchPlan.Decoding;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import dev.flushless.jdbc.batch.BatchPlanner;
import dev.flushless.jdbc.batch.BatchPlanner.InsertMember;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.rewrite.Rewriter;
import dev.flushless.jdbc.session.SessionFacts;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a transaction's buffered writes (INSERTs, and UPDATEs of rows it holds locked) into as few statements as the
 * grouping rules allow (pure: no I/O).
 * Consecutive executions of one SQL text become one multi-row member; members go into one CTE-chained
 * statement until a member writes a table the statement already writes (PostgreSQL gives no order among a
 * statement's parts, so a table written twice starts a new statement, which keeps its rows, and the ids its
 * sequence hands out, in the application's order) or the statement would exceed the bind-parameter limit.
 * Every statement checks, inside itself, that each member inserted exactly the rows acknowledged to the
 * application; all statements are sent in one round trip.
 */
public final class FlushPlanner {

    /** The rewrite kind under which flushed buffers are counted. */
    public static final String REWRITE_KIND = "transaction-buffer";

    private FlushPlanner() {}

    /**
     * The COPY plan of a commit's buffered {@code writes} ({@code CopyExecutor}), or {@code null}: only when they are all
     * rows of one PreparedStatement INSERT into one table and the batch planner, asked with {@code settings} (whose
     * {@code CopyChoice} the caller made: the driver with the measured round-trip time, {@code explain} without), sends
     * them as COPY. Pure; the driver's commit and {@code explain} both ask it.
     */
    public static BatchPlan copyAtCommit(List<BufferedWrite> writes, BatchPlanner.Settings settings) {
        BufferedWrite first = writes.get(0);
        List<Bind[]> rows = new ArrayList<>();
        for (BufferedWrite write : writes) {
            if (write.plainStatement()
                    || !write.sql().equals(first.sql())
                    || write.table().oid() != first.table().oid()) {
                return null;
            }
            rows.addAll(write.rows());
        }
        if (!settings.copy().pays(rows.size(), first.statement().parameterCount())) {
            return null;
        }
        BatchPlan plan = BatchPlanner.plan(first.statement(), rows, first.table(), null, settings);
        return plan.isCopy() ? plan : null;
    }

    /** The statements that write {@code writes}; each binds all its parameters itself (no batch rows). */
    public static List<Step> plan(List<BufferedWrite> writes, SessionFacts session, int maxRowsPerStatement) {
        List<Step> steps = new ArrayList<>();
        List<String> memberSql = new ArrayList<>();
        List<Bind> parameters = new ArrayList<>();
        List<Long> counts = new ArrayList<>();
        List<TableInfo> tables = new ArrayList<>();
        for (int i = 0; i < writes.size(); ) {
            BufferedWrite first = writes.get(i);
            List<Bind[]> rows = new ArrayList<>(first.rows());
            int next = i + 1;
            while (next < writes.size()
                    && writes.get(next).sql().equals(first.sql())
                    && writes.get(next).plainStatement() == first.plainStatement()) {
                rows.addAll(writes.get(next).rows());
                next++;
            }
            i = next;
            List<InsertMember> members = first.statement().kind() == StatementDescription.Kind.UPDATE
                    ? BatchPlanner.updateMembers(first.statement(), rows, first.table(), session, maxRowsPerStatement)
                    : BatchPlanner.insertMembers(first.statement(), rows, first.table(), session, maxRowsPerStatement);
            for (InsertMember member : members) {
                boolean tableTaken = tables.stream().anyMatch(t -> t.overlaps(first.table()));
                long size =
                        parameters.size() + counts.size() + member.parameters().size() + 1;
                if (!memberSql.isEmpty() && (tableTaken || size > BatchPlanner.MAX_BIND_PARAMETERS)) {
                    steps.add(step(memberSql, parameters, counts));
                    memberSql.clear();
                    parameters.clear();
                    counts.clear();
                    tables.clear();
                }
                memberSql.add(member.sql());
                parameters.addAll(member.parameters());
                counts.add((long) member.rows());
                tables.add(first.table());
            }
        }
        if (!memberSql.isEmpty()) {
            steps.add(step(memberSql, parameters, counts));
        }
        return steps;
    }

    private static Step step(List<String> memberSql, List<Bind> parameters, List<Long> counts) {
        Bind[] tail = new Bind[parameters.size() + counts.size()];
        int k = 0;
        for (Bind bind : parameters) {
            tail[k++] = bind;
        }
        for (long count : counts) {
            tail[k++] = Bind.ofLong(count);
        }
        return new Step(Rewriter.insertChain(memberSql), new int[0], Decoding.ONE_PER_ROW, 0, tail, null, null);
    }

    /**
     * The statements of a write that rides along with the buffer: the buffer's {@code flush} statements, then the
     * write's own text ({@code sql} up to the end of its one statement), whose update count is read from the shared
     * round trip. Pure; the driver and {@code explain} both build the ride with it.
     */
    public static List<Step> withRider(List<Step> flush, String sql, StatementDescription statement) {
        List<Step> steps = new ArrayList<>(flush);
        steps.add(new Step(
                sql == statement.sql() ? statement.text() : sql.substring(0, statement.textEnd()),
                new int[] {0},
                Decoding.UPDATE_COUNT,
                statement.parameterCount(),
                new Bind[0],
                null,
                null));
        return steps;
    }

    /** A plan of {@code steps} (the flushed buffer, possibly followed by a batch that rides along). */
    public static BatchPlan asPlan(List<Step> steps) {
        return new BatchPlan(REWRITE_KIND, steps, null);
    }
}
