package dev.flushless.jdbc.differential;

import java.util.ArrayList;
import java.util.List;

/**
 * A generated program: a schema, a list of JDBC {@link Step}s, and what the application does when a step fails
 * inside an explicit transaction ({@link Recovery}), as real applications do: roll back (the transcripts stay
 * comparable because every run then carries on with the same next step).
 *
 * @param seed the seed it was generated from (for the report)
 */
record Program(long seed, Schema schema, List<Step> steps, Recovery recovery) {

    /** What the runner does after a step failed while autocommit is off. */
    enum Recovery {
        /** {@code rollback()}. */
        ROLLBACK,
        /** {@code rollback(savepoint)} to the newest savepoint this transaction set and did not release, else {@code rollback()}. */
        ROLLBACK_TO_SAVEPOINT
    }

    Program withSteps(List<Step> replaced) {
        return new Program(seed, schema, List.copyOf(replaced), recovery);
    }

    /** Counts the JDBC calls the steps make (setters, addBatch, executions, transaction calls). */
    int jdbcCalls() {
        int calls = 0;
        for (Step step : steps) {
            if (step instanceof Step.Exec e) {
                calls += 2 + (e.params() == null ? 0 : e.params().size()) + (e.keys() ? 1 : 0);
            } else if (step instanceof Step.Batch b) {
                calls += 2 + b.rowParams().stream().mapToInt(r -> r.size() + 1).sum() + (b.keys() ? 1 : 0);
            } else if (step instanceof Step.TextBatch t) {
                calls += 2 + t.members().size();
            } else if (step instanceof Step.Query q) {
                calls += 3 + (q.params() == null ? 0 : q.params().size());
            } else {
                calls += 1;
            }
        }
        return calls;
    }

    /** The program as Java-like source: the schema, the recovery rule, and one numbered block per step. */
    String java() {
        List<String> out = new ArrayList<>();
        out.add("// seed " + seed + "; schema:");
        for (String ddl : schema.ddl(false)) {
            out.add("//   " + ddl + ";");
        }
        out.add("// on an error while autocommit is off the runner calls "
                + (recovery == Recovery.ROLLBACK
                        ? "c.rollback()"
                        : "c.rollback(newest open savepoint), else c.rollback()")
                + " and goes on with the next step");
        for (int i = 0; i < steps.size(); i++) {
            List<String> lines = steps.get(i).java();
            out.add("/* " + i + " */ " + lines.get(0));
            for (int l = 1; l < lines.size(); l++) {
                out.add("        " + lines.get(l));
            }
        }
        return String.join("\n", out);
    }
}
