package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.batch.Bind;
import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.List;

/**
 * One application write kept in a transaction's buffer: a plain {@code INSERT ... VALUES (tuple)} (its update
 * count, one per row, was known and acknowledged at once), the table it writes, and the rows it was executed
 * with (one for a single execution, one per {@code addBatch()} for a batch).
 *
 * @param plainStatement the text came through a {@code Statement} (no parameters; a {@code ?} in it is an
 *     operator), not a {@code PreparedStatement}
 * @param batch the write was a JDBC batch (errors then name the batch row)
 */
public record BufferedWrite(
        StatementDescription statement, TableInfo table, List<Bind[]> rows, boolean plainStatement, boolean batch) {

    /** The SQL text the application executed. */
    public String sql() {
        return statement.sql();
    }

    /**
     * Estimated bytes of the write's values (for {@code flushless.maxBufferedBytes}): its bound values, and
     * for a plain {@code Statement} its whole text. A JDBC Statement has no parameters, so its values travel
     * as literals inside its text, and every such text is a string of its own that the buffer keeps until it
     * is sent: counting only bound values let a transaction of INSERTs with large literals buffer
     * {@code flushless.maxBufferedRows} texts whatever their size.
     */
    public long estimatedBytes() {
        long bytes = plainStatement ? 40L + 2L * sql().length() : 0;
        for (Bind[] row : rows) {
            bytes += 16;
            for (int p = 0; p < statement.parameterCount(); p++) {
                bytes += row[p].estimatedBytes();
            }
        }
        return bytes;
    }
}
