package dev.flushless.jdbc.wrapper;

import dev.flushless.jdbc.Errors;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.postgresql.util.PSQLState;

/**
 * The generated keys of a coalesced batch that ran as several statements: their result sets read one
 * after the other as one forward-only result set, as pgjdbc returns a batch's keys. Every getter goes to
 * pgjdbc's own result set for the current row, so values convert exactly as pgjdbc converts them.
 */
final class CombinedResultSet extends WrappedResultSet {

    private final List<ResultSet> parts;
    private final List<Statement> owners;
    private final int total;
    private int part;
    private int row;

    /**
     * @param parts scrollable result sets positioned before their first row
     * @param owners the statements that produced them, closed with this result set
     */
    CombinedResultSet(List<ResultSet> parts, List<Statement> owners, WrappedStatement statement) throws SQLException {
        super(parts.get(0), statement);
        this.parts = parts;
        this.owners = owners;
        int rows = 0;
        for (ResultSet rs : parts) {
            rs.last();
            rows += rs.getRow();
            rs.beforeFirst();
        }
        this.total = rows;
    }

    @Override
    public boolean next() throws SQLException {
        while (!delegate.next()) {
            if (part + 1 >= parts.size()) {
                row = total + 1;
                return false;
            }
            delegate = parts.get(++part);
        }
        row++;
        return true;
    }

    @Override
    public int getRow() throws SQLException {
        delegate.getRow(); // keeps pgjdbc's closed check
        return row > total ? 0 : row;
    }

    @Override
    public boolean isBeforeFirst() throws SQLException {
        delegate.getRow();
        return row == 0 && total > 0;
    }

    @Override
    public boolean isAfterLast() throws SQLException {
        delegate.getRow();
        return row > total && total > 0;
    }

    @Override
    public boolean isFirst() throws SQLException {
        delegate.getRow();
        return row == 1 && total > 0;
    }

    @Override
    public boolean isLast() throws SQLException {
        delegate.getRow();
        return row == total && total > 0;
    }

    @Override
    public int getType() throws SQLException {
        delegate.getType();
        return ResultSet.TYPE_FORWARD_ONLY;
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return parts.get(0).getMetaData();
    }

    @Override
    public void close() throws SQLException {
        for (ResultSet rs : parts) {
            rs.close();
        }
        for (Statement owner : owners) {
            owner.close();
        }
    }

    @Override
    public boolean isClosed() throws SQLException {
        return parts.get(0).isClosed();
    }

    // Forward-only, as pgjdbc's generated keys are: the same error pgjdbc gives for these calls.
    private static SQLException forwardOnly() {
        return Errors.asPgjdbc(
                "Operation requires a scrollable ResultSet, but this ResultSet is FORWARD_ONLY.",
                PSQLState.INVALID_CURSOR_STATE);
    }

    @Override
    public boolean previous() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean first() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean last() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public void beforeFirst() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public void afterLast() throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean absolute(int rowNumber) throws SQLException {
        throw forwardOnly();
    }

    @Override
    public boolean relative(int rows) throws SQLException {
        throw forwardOnly();
    }
}
