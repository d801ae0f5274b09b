package dev.flushless.jdbc.differential;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * Delta debugging of a failing program: drops chunks of steps (halving the chunk size when nothing can go), then
 * single batch rows and Statement-batch members, then single steps again, as long as the program still fails
 * the same mode's comparison. Stops at a deadline with what it has.
 */
final class Shrinker {

    /** Whether a candidate program still shows the mismatch. */
    @FunctionalInterface
    interface Failing {
        boolean test(Program candidate) throws SQLException;
    }

    private final Failing failing;
    private final long deadline;
    int attempts;

    Shrinker(Failing failing, long deadlineMillis) {
        this.failing = failing;
        this.deadline = deadlineMillis;
    }

    Program shrink(Program program) throws SQLException {
        Program current = dropChunks(program);
        boolean changed = true;
        while (changed && !late()) {
            changed = false;
            Program rows = dropRows(current);
            if (rows.steps() != current.steps()) {
                current = rows;
                changed = true;
            }
            Program steps = dropChunks(current);
            if (steps.steps().size() < current.steps().size()) {
                current = steps;
                changed = true;
            }
        }
        return current;
    }

    private boolean late() {
        return System.currentTimeMillis() > deadline;
    }

    private boolean fails(Program candidate) throws SQLException {
        attempts++;
        return failing.test(candidate);
    }

    private Program dropChunks(Program program) throws SQLException {
        List<Step> steps = new ArrayList<>(program.steps());
        int parts = 2;
        while (steps.size() >= 2 && !late()) {
            int chunk = (steps.size() + parts - 1) / parts;
            boolean reduced = false;
            for (int start = 0; start < steps.size() && !late(); start += chunk) {
                List<Step> candidate = new ArrayList<>(steps.subList(0, start));
                candidate.addAll(steps.subList(Math.min(steps.size(), start + chunk), steps.size()));
                if (fails(program.withSteps(candidate))) {
                    steps = candidate;
                    parts = Math.max(parts - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (parts >= steps.size()) {
                    break;
                }
                parts = Math.min(steps.size(), parts * 2);
            }
        }
        return program.withSteps(steps);
    }

    private Program dropRows(Program program) throws SQLException {
        List<Step> steps = new ArrayList<>(program.steps());
        boolean changed = false;
        for (int i = 0; i < steps.size() && !late(); i++) {
            for (int row = steps.get(i).rows() - 1; row >= 0 && !late(); row--) {
                Step smaller = steps.get(i).withoutRow(row);
                if (smaller == null) {
                    break;
                }
                List<Step> candidate = new ArrayList<>(steps);
                candidate.set(i, smaller);
                if (fails(program.withSteps(candidate))) {
                    steps = candidate;
                    changed = true;
                }
            }
        }
        return changed ? program.withSteps(steps) : program;
    }
}
