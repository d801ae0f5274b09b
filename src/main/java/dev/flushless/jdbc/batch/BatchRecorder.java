package dev.flushless.jdbc.batch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The parameter values of one prepared statement as the application set them, and the rows it added to
 * its batch. Parameters persist between {@code addBatch()} calls until cleared, exactly as in pgjdbc, so a
 * row is a snapshot of the current values; an unset position stays {@code null}.
 */
public final class BatchRecorder {

    private Bind[] current = new Bind[8];
    private List<Bind[]> rows = new ArrayList<>();

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
    }

    /** {@code addBatch()}: snapshots the current values as a row. */
    public void addRow() {
        rows.add(current.clone());
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
    }
}
