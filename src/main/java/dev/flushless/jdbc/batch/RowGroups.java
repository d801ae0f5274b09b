package dev.flushless.jdbc.batch;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.BatchPlan.Step;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a batch's rows are divided among statements: chunks within the row and bind-parameter limits, waves of
 * upsert rows (a key at most once per statement), and whether the statements keep batch order. Pure.
 */
final class RowGroups {

    private RowGroups() {}

    /**
     * Most rows one statement may carry: at most {@code maxRows}, and at most what fits in
     * {@link BatchPlanner#MAX_BIND_PARAMETERS} with {@code parametersPerRow} per row besides {@code fixedParameters};
     * at least one.
     */
    static int rowsPerStatement(int maxRows, int parametersPerRow, int fixedParameters) {
        return Math.max(
                1,
                Math.min(
                        maxRows, (BatchPlanner.MAX_BIND_PARAMETERS - fixedParameters) / Math.max(1, parametersPerRow)));
    }

    /** The rows {@code 0 .. rows - 1} in consecutive chunks of at most {@code chunkRows}. */
    static List<int[]> chunks(int rows, int chunkRows) {
        List<int[]> chunks = new ArrayList<>();
        for (int start = 0; start < rows; start += chunkRows) {
            int size = Math.min(chunkRows, rows - start);
            int[] chunk = new int[size];
            for (int i = 0; i < size; i++) {
                chunk[i] = start + i;
            }
            chunks.add(chunk);
        }
        return chunks;
    }

    /** {@code members} in consecutive chunks of at most {@code chunkRows}. */
    static List<int[]> chunks(List<Integer> members, int chunkRows) {
        List<int[]> chunks = new ArrayList<>();
        for (int start = 0; start < members.size(); start += chunkRows) {
            int size = Math.min(chunkRows, members.size() - start);
            int[] chunk = new int[size];
            for (int i = 0; i < size; i++) {
                chunk[i] = members.get(start + i);
            }
            chunks.add(chunk);
        }
        return chunks;
    }

    /**
     * The rows of an upsert batch grouped by statement, wave by wave: within a wave keyed by the values bound after
     * the VALUES tuple, in order of first appearance. A row's wave counts the earlier rows with its key
     * ({@code rowKeys}; {@code null} for DO NOTHING, where every row is wave 0): PostgreSQL refuses to let one ON
     * CONFLICT DO UPDATE statement affect a row twice, and sequentially a later row with the key updates what the
     * earlier one left. A key with a NULL never conflicts. Rows bound with different DO UPDATE parameters need
     * different statement texts' values.
     */
    static List<List<Integer>> upsertGroups(
            StatementDescription insert, List<Bind[]> rows, Object[][] rowKeys, int rowParameters) {
        Map<List<Object>, Integer> seen = new HashMap<>();
        Map<List<Object>, List<Integer>> groups = new LinkedHashMap<>();
        for (int r = 0; r < rows.size(); r++) {
            int wave = 0;
            if (rowKeys != null && !Arrays.asList(rowKeys[r]).contains(null)) {
                List<Object> key = Arrays.asList(rowKeys[r]);
                Integer previous = seen.get(key);
                wave = previous == null ? 0 : previous + 1;
                seen.put(key, wave);
            }
            List<Object> group = new ArrayList<>();
            group.add(wave);
            for (int p = rowParameters; p < insert.parameterCount(); p++) {
                group.add(rows.get(r)[p].identity());
            }
            groups.computeIfAbsent(group, g -> new ArrayList<>()).add(r);
        }
        List<Map.Entry<List<Object>, List<Integer>>> ordered = new ArrayList<>(groups.entrySet());
        ordered.sort((a, b) -> Integer.compare(
                (Integer) a.getKey().get(0), (Integer) b.getKey().get(0)));
        return ordered.stream().map(Map.Entry::getValue).toList();
    }

    /**
     * True when the steps' rows, statement after statement, are the batch rows in ascending order. pgjdbc hands out
     * a batch's generated keys in batch order (each execution's RETURNING rows after the previous one's), and the
     * coalesced keys are the statements' returned rows concatenated, each statement's in VALUES order. A DO UPDATE
     * batch that repeats a key sends the repeat in a later statement (one statement may not affect a row twice),
     * and one whose DO UPDATE clause binds parameters is grouped by their values: either can put a later batch row
     * in an earlier statement, and its key would then come back before the keys of rows that precede it.
     */
    static boolean inBatchOrder(List<Step> steps) {
        int previous = -1;
        for (Step step : steps) {
            for (int row : step.rows()) {
                if (row <= previous) {
                    return false;
                }
                previous = row;
            }
        }
        return true;
    }
}
