package dev.flushless.jdbc.buffer;

import dev.flushless.jdbc.session.TableCatalog.TableInfo;
import java.util.ArrayList;
import java.util.List;

/**
 * The writes of one explicit transaction that were acknowledged to the application but not yet sent, in the
 * order the application issued them. Not thread-safe: a JDBC connection is used by one thread at a time.
 */
public final class TransactionBuffer {

    private final List<BufferedWrite> writes = new ArrayList<>();
    private long rows;
    private long bytes;

    public void add(BufferedWrite write) {
        writes.add(write);
        rows += write.rows().size();
        bytes += write.estimatedBytes();
    }

    public boolean isEmpty() {
        return writes.isEmpty();
    }

    /** Rows buffered (a single execution counts one). */
    public long rows() {
        return rows;
    }

    /** Estimated bytes of the buffered values. */
    public long bytes() {
        return bytes;
    }

    /** True when a read of {@code table} could see rows a buffered write inserts (inheritance and partitions included). */
    public boolean wrote(TableInfo table) {
        for (BufferedWrite write : writes) {
            if (write.table().overlaps(table)) {
                return true;
            }
        }
        return false;
    }

    /** True when a buffered write's table may draw ids from a sequence (identity or function defaults). */
    public boolean drawsFromSequences() {
        for (BufferedWrite write : writes) {
            if (write.table().drawsFromSequences()) {
                return true;
            }
        }
        return false;
    }

    /** The buffered writes, in order, leaving the buffer empty. */
    public List<BufferedWrite> take() {
        List<BufferedWrite> taken = new ArrayList<>(writes);
        discard();
        return taken;
    }

    /** Forgets the buffered writes (the transaction rolled back). */
    public void discard() {
        writes.clear();
        rows = 0;
        bytes = 0;
    }
}
