package dev.flushless.jdbc.engine;

import dev.flushless.jdbc.Fallback;
import dev.flushless.jdbc.FallbackReason;
import java.util.Map;

/**
 * How many rows of a connection's next PreparedStatement batch of a SQL text the facade hands to pgjdbc's own batch as
 * the application adds them ({@code Batches#asSentRowsAhead}), from that text's last batch (most recently used 256
 * texts), as applications repeat their batch sizes (a loader, an ORM's flushes): the size rule's {@code
 * flushless.minBatchRows - 1} by default; 0 after a larger batch, which was likely coalesced and whose rows handed to
 * pgjdbc would be copied for nothing; {@code flushless.uniqueUpdateMinRows - 1} after the unique-update rule ran one
 * as sent, so that the next runs on pgjdbc's batch as it is, without a replay of its recorded rows.
 */
final class RowsAhead {

    private final int minBatchRows;
    private final int uniqueUpdateMinRows;
    private final Map<String, Integer> lastBatches = new RecentMap<>(256);

    RowsAhead(int minBatchRows, int uniqueUpdateMinRows) {
        this.minBatchRows = minBatchRows;
        this.uniqueUpdateMinRows = uniqueUpdateMinRows;
    }

    /** The rows to hand ahead for the next batch of {@code sql}. */
    int of(String sql) {
        Integer ahead = lastBatches.get(sql);
        return ahead != null ? ahead : minBatchRows - 1;
    }

    /** Notes a batch of {@code rows} rows of {@code sql}, and {@code fallback} when it ran as sent by a plan's rule. */
    void note(String sql, int rows, Fallback fallback) {
        if (fallback != null && fallback.reason() == FallbackReason.UNIQUE_UPDATE_SMALL) {
            lastBatches.put(sql, uniqueUpdateMinRows - 1);
        } else if (rows > minBatchRows - 1) {
            lastBatches.put(sql, 0);
        } else {
            lastBatches.remove(sql);
        }
    }
}
