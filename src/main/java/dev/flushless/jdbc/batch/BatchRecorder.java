package dev.flushless.jdbc.batch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;

/**
 * The parameter values of one prepared statement as the application set them, and the rows it added to
 * its batch. Parameters persist between {@code addBatch()} calls until cleared, exactly as in pgjdbc, so a
 * row is a snapshot of the current values; an unset position stays {@code null}. It also keeps which rows the
 * application set up from cleared parameters, and the value last set at each position before a row
 * ({@link #valuesAfter}), since pgjdbc sends an untyped NULL with the type of the value it was set over.
 */
public final class BatchRecorder {

    private Bind[] current = new Bind[8];
    private List<Bind[]> rows = new ArrayList<>();
    /** {@code clearParameters()} was called since the last {@code addBatch()}. */
    private boolean clearedSinceRow;
    /**
     * Rows added first after a {@code clearParameters()} (kept until {@link #clearRows}, for replays of taken rows);
     * {@code null} until there is one, since most statements are never cleared and one is made per prepare.
     */
    private Set<Bind[]> afterClear;

    /** Records the setter call for 1-based {@code index}. */
    public void set(int index, Bind bind) {
        if (index > current.length) {
            current = Arrays.copyOf(current, Math.max(index, current.length * 2));
        }
        current[index - 1] = bind;
    }

    /** {@code clearParameters()}. */
    public void clearParameters() {
        Arrays.fill(current, null);
        clearedSinceRow = true;
    }

    /** {@code addBatch()}: snapshots the current values as a row. */
    public void addRow() {
        Bind[] row = current.clone();
        if (clearedSinceRow) {
            if (afterClear == null) {
                afterClear = Collections.newSetFromMap(new IdentityHashMap<>());
            }
            afterClear.add(row);
            clearedSinceRow = false;
        }
        rows.add(row);
    }

    /** Whether the application cleared the parameters before setting up {@code row}, one of this recorder's rows. */
    public boolean followsClear(Bind[] row) {
        return afterClear != null && afterClear.contains(row);
    }

    /**
     * The value last set at each position once {@code row} is set over {@code earlier} (the same for the rows before;
     * {@code null}: nothing set since a clear): a NULL leaves the earlier value, whose type pgjdbc keeps under it.
     * Updates {@code earlier} in place when it is long enough.
     */
    public static Bind[] valuesAfter(Bind[] earlier, Bind[] row) {
        Bind[] after = earlier == null
                ? new Bind[row.length]
                : earlier.length >= row.length ? earlier : Arrays.copyOf(earlier, row.length);
        for (int i = 0; i < row.length; i++) {
            if (row[i] != null && row[i].value() != null) {
                after[i] = row[i];
            }
        }
        return after;
    }

    /** {@link #valuesAfter} the recorded rows, for the current values ({@code null} after a clear since the last row). */
    public Bind[] valuesBeforeCurrent() {
        if (clearedSinceRow) {
            return null;
        }
        Bind[] values = null;
        for (Bind[] row : rows) {
            values = valuesAfter(followsClear(row) ? null : values, row);
        }
        return values;
    }

    /** The current parameter values (for restoring the application's statement after a replay). */
    public Bind[] current() {
        return current;
    }

    public List<Bind[]> rows() {
        return rows;
    }

    /** The recorded rows, removing them from the recorder. */
    public List<Bind[]> takeRows() {
        List<Bind[]> taken = rows;
        rows = new ArrayList<>();
        return taken;
    }

    /** Rows added so far. */
    public int rowCount() {
        return rows.size();
    }

    public boolean hasRows() {
        return !rows.isEmpty();
    }

    public void clearRows() {
        rows.clear();
        afterClear = null;
    }
}
