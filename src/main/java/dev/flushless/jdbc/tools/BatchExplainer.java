package dev.flushless.jdbc.tools;

import static dev.flushless.jdbc.tools.ExplainPrinter.plural;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.analysis.StatementDescription.Assignment;
import dev.flushless.jdbc.analysis.StatementDescription.KeyColumn;
import dev.flushless.jdbc.batch.BatchExecutor;
import dev.flushless.jdbc.batch.BatchPlan;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.engine.Engine;
import dev.flushless.jdbc.tools.ExplainScript.Item;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Batch planning, explained: each write of the script as a {@code PreparedStatement} batch of {@code --rows} rows,
 * and each run of parameterless writes as a {@code Statement} batch, planned by the driver's own
 * {@link Engine#sizeReason}, {@link Engine#plan} and {@link Engine#planTexts}, with round trips from
 * {@link BatchExecutor#roundTrips}. Counts go to {@link ExplainSummary.Batches}.
 */
final class BatchExplainer {

    private final ExplainPrinter out;
    private final ExplainSettings settings;
    private final ExplainCatalog catalog;
    private final ExplainSummary.Batches counts = new ExplainSummary.Batches();

    BatchExplainer(ExplainPrinter out, ExplainSettings settings, ExplainCatalog catalog) {
        this.out = out;
        this.settings = settings;
        this.catalog = catalog;
    }

    /** Prints both batch sections; returns their counts. */
    ExplainSummary.Batches explain(List<Item> items) {
        preparedSection(items);
        statementSection(items);
        return counts;
    }

    // ---- PreparedStatement batches ----

    private void preparedSection(List<Item> items) {
        int rows = settings.rows();
        out.println();
        out.println(
                "== Each statement as a PreparedStatement batch of " + rows + " row" + (rows == 1 ? "" : "s") + " ==");
        for (Item item : items) {
            out.println();
            out.statementHeading(item.number(), item.line(), item.description().sql());
            if (!item.isWrite()) {
                out.println("  " + item.description().kind() + ": not an INSERT, UPDATE or DELETE; runs as sent, once");
                counts.otherStatements++;
                continue;
            }
            preparedBatch(item);
        }
    }

    /** Prints one write as a PreparedStatement batch and counts it. */
    private void preparedBatch(Item item) {
        int rows = settings.rows();
        StatementDescription d = item.description();
        BatchPlan plan = planPrepared(d);
        long sent = plan.isFallback() ? rows : plan.statements().size();
        if (plan.isFallback()) {
            out.println("  not coalesced, runs as sent: " + plan.fallbackReason());
        } else {
            out.println("  coalesced: " + plan.rewriteKind());
        }
        int trips = plan.isFallback()
                ? 0
                : plan.isCopy()
                        ? dev.flushless.jdbc.batch.CopyExecutor.roundTrips(true, false)
                        : BatchExecutor.roundTrips(plan.statements(), d.parameterCount(), true);
        out.println("  statements: " + rows + " issued -> " + sent + " sent"
                + (plan.isFallback() || sent == 1
                        ? ""
                        : trips == 1 ? " (in one round trip)" : " (in " + trips + " round trips)"));
        if (item.parameterless()) {
            out.println("  (no parameters: the rewritten SQL is not shown here; the summary counts it once, as a"
                    + " member of a Statement batch below)");
            return;
        }
        if (!plan.isFallback()) {
            BatchPlan.Step first = plan.statements().get(0);
            out.println("  first statement: " + first.rows().length + " rows, "
                    + plural(first.parameterCount(d.parameterCount()), "bind parameter"));
            out.println("  rewritten SQL (first statement):");
            out.sql(first.sql(), "    ");
        }
        counts.preparedIssued += rows;
        counts.preparedSent += sent;
        counts.preparedWritesIssued += rows;
        long flushes = plan.isFallback() ? rows : plan.estimatedFlushes(settings.flushModel());
        counts.preparedFlushesAfter += flushes;
        counts.preparedConsensusAfter += settings.flushModel().consensusFlushes(flushes, sent, false);
    }

    /**
     * The rows the batch section binds for {@code d}: {@code rows} rows, each parameter with setString ("r1" in the
     * first row), a parameter inside an expression ({@code col + ?}) with setLong (the row's number), and the
     * parameters of an ON CONFLICT DO UPDATE clause after the row's own the same in every row.
     */
    static List<Bind[]> batchRows(StatementDescription d, int rows) {
        boolean[] inExpression = new boolean[d.parameterCount()];
        for (Assignment a : d.assignments()) {
            if (a.isParameter() && a.inExpression()) {
                inExpression[a.parameter()] = true;
            }
        }
        List<Bind[]> bound = new ArrayList<>(rows);
        int perRow = d.rowParameterCount();
        for (int r = 0; r < rows; r++) {
            Bind[] row = new Bind[d.parameterCount()];
            for (int p = 0; p < row.length; p++) {
                if (p >= perRow) {
                    row[p] = Bind.ofString("x" + p); // ON CONFLICT DO UPDATE parameters: the same in every row
                } else if (inExpression[p]) {
                    row[p] = Bind.ofLong(r + 1);
                } else {
                    row[p] = Bind.ofString("r" + (r + 1));
                }
            }
            bound.add(row);
        }
        return bound;
    }

    /** The plan of a PreparedStatement batch of {@code rows} rows of {@code d}, by the driver's own rules. */
    private BatchPlan planPrepared(StatementDescription d) {
        Fallback single = Engine.sizeReason(settings.rows(), settings.minBatchRows(), "rows");
        if (single != null) {
            return BatchPlan.fallback(single);
        }
        // a connection with the --url's (or the default) flushless.* settings, but --max-rows
        try {
            return Engine.plan(
                    d,
                    batchRows(d, settings.rows()),
                    catalog.forBatch(columnsNamed(d)),
                    null,
                    settings.planner().withMaxRowsPerStatement(settings.maxRows()),
                    // the driver's own choice (ServerFacts.antiJoin): the --url's server, or the assumed one
                    d.onConflict() != StatementDescription.OnConflict.NONE && settings.antiJoin());
        } catch (SQLException e) {
            throw new IllegalStateException(e); // only the text for generated keys throws, and none are asked for
        }
    }

    /** The columns {@code d} names (offline, the synthetic table has these, typed text). */
    private static List<String> columnsNamed(StatementDescription d) {
        if (!d.isCoalescable()) {
            return List.of();
        }
        List<String> columns = new ArrayList<>(d.insertColumns());
        for (Assignment a : d.assignments()) {
            columns.add(a.column());
        }
        for (KeyColumn k : d.keys()) {
            columns.add(k.column());
        }
        for (KeyColumn k : d.conflictKeys()) {
            columns.add(k.column());
        }
        columns.addAll(d.conflictUpdatedColumns());
        return columns;
    }

    // ---- Statement batches ----

    private void statementSection(List<Item> items) {
        out.println();
        out.println("== Parameterless INSERT/UPDATE/DELETE as Statement batches ==");
        out.println("Each run of consecutive parameterless INSERT/UPDATE/DELETE statements is explained as one");
        out.println("Statement batch (addBatch each, executeBatch once); any other statement ends a run.");
        int runs = 0;
        List<Item> run = new ArrayList<>();
        for (int i = 0; i <= items.size(); i++) {
            Item item = i < items.size() ? items.get(i) : null;
            if (item != null && item.isWrite() && item.parameterless()) {
                run.add(item);
                continue;
            }
            if (!run.isEmpty()) {
                runs++;
                counts.chainIssued += run.size();
                BatchPlan plan = statementBatch(run);
                counts.chainSent +=
                        plan.isFallback() ? run.size() : plan.statements().size();
                long flushes = plan.isFallback() ? run.size() : plan.estimatedFlushes(settings.flushModel());
                counts.chainFlushes += flushes;
                counts.chainConsensus += settings.flushModel()
                        .consensusFlushes(
                                flushes,
                                plan.isFallback()
                                        ? run.size()
                                        : plan.statements().size(),
                                false);
                run.clear();
            }
        }
        if (runs == 0) {
            out.println();
            out.println("(none: every INSERT, UPDATE and DELETE has parameters)");
        }
    }

    /** Prints one Statement batch; returns its plan (a fallback when it runs as sent). */
    private BatchPlan statementBatch(List<Item> run) {
        out.println();
        String members = run.size() == 1
                ? "statement [" + run.get(0).number() + "]"
                : "statements [" + run.get(0).number() + "] to ["
                        + run.get(run.size() - 1).number() + "]";
        Fallback single = Engine.sizeReason(run.size(), settings.minBatchRows(), "SQL texts");
        if (single != null) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: " + single.text());
            return BatchPlan.fallback(single);
        }
        List<StatementDescription> descriptions =
                run.stream().map(Item::description).toList();
        Engine.Catalog tables = catalog.forBatch(List.of());
        BatchPlan plan = Engine.planTexts(descriptions, tables::lookup, settings.planner());
        if (plan.isFallback()) {
            out.println("Statement batch of " + members + ": not coalesced, runs as sent: " + plan.fallbackReason());
            out.println("  statements: " + run.size() + " issued -> " + run.size() + " sent");
            return plan;
        }
        int trips = BatchExecutor.roundTrips(plan.statements(), 0, true);
        out.println("Statement batch of " + members + ": coalesced: " + plan.rewriteKind());
        out.println("  statements: " + run.size() + " issued -> "
                + plan.statements().size() + " sent"
                + (plan.statements().size() == 1
                        ? ""
                        : trips == 1 ? " (in one round trip)" : " (in " + trips + " round trips)"));
        printChains(run, descriptions, plan);
        return plan;
    }

    /** Prints each statement of a coalesced Statement batch: a chain of members, or a member alone and why. */
    private void printChains(List<Item> run, List<StatementDescription> descriptions, BatchPlan plan) {
        int chain = 0;
        for (BatchPlan.Step step : plan.statements()) {
            StringBuilder numbers = new StringBuilder();
            for (int m : step.rows()) {
                numbers.append(numbers.length() > 0 ? ", " : "")
                        .append('[')
                        .append(run.get(m).number())
                        .append(']');
            }
            if (step.rows().length > 1) {
                out.println("  chain " + (++chain) + " of " + numbers + ":");
                out.sql(step.sql(), "    ");
            } else {
                StatementDescription member = descriptions.get(step.rows()[0]);
                String why = member.chainReason() != null
                        ? member.chainReason().text()
                        : "its neighbours write its table too (a group writes a table by INSERTs only, or by one"
                                + " UPDATE or DELETE)";
                out.println("  " + numbers + " alone, as written: " + why);
            }
        }
    }
}
