package dev.flushless.jdbc.wrapper;

import java.sql.*;

/**
 * Pass-through for a {@link PreparedStatement} (the methods it adds to {@link Statement}; and the ones that
 * take SQL text, which pgjdbc rejects on a prepared statement): every method calls the wrapped object's.
 * Generated from the {@code java.sql} interface by {@code DelegationSources} (test sources); do not edit:
 * regenerate with {@code mvn -q test -Dtest=DelegationSourcesTest -Dflushless.regenerate=true}.
 */
@SuppressWarnings("deprecation")
abstract class PreparedStatementDelegation extends WrappedStatement implements PreparedStatement {

    final PreparedStatement prepared;

    PreparedStatementDelegation(PreparedStatement delegate, WrappedConnection connection) {
        super(delegate, connection);
        this.prepared = delegate;
    }

    @Override
    public void addBatch() throws SQLException {
        prepared.addBatch();
    }

    @Override
    public void addBatch(String p1) throws SQLException {
        prepared.addBatch(p1);
    }

    @Override
    public void clearParameters() throws SQLException {
        prepared.clearParameters();
    }

    @Override
    public boolean execute() throws SQLException {
        return prepared.execute();
    }

    @Override
    public boolean execute(String p1) throws SQLException {
        return prepared.execute(p1);
    }

    @Override
    public boolean execute(String p1, int[] p2) throws SQLException {
        return prepared.execute(p1, p2);
    }

    @Override
    public boolean execute(String p1, String[] p2) throws SQLException {
        return prepared.execute(p1, p2);
    }

    @Override
    public boolean execute(String p1, int p2) throws SQLException {
        return prepared.execute(p1, p2);
    }

    @Override
    public long executeLargeUpdate() throws SQLException {
        return prepared.executeLargeUpdate();
    }

    @Override
    public long executeLargeUpdate(String p1) throws SQLException {
        return prepared.executeLargeUpdate(p1);
    }

    @Override
    public long executeLargeUpdate(String p1, int[] p2) throws SQLException {
        return prepared.executeLargeUpdate(p1, p2);
    }

    @Override
    public long executeLargeUpdate(String p1, String[] p2) throws SQLException {
        return prepared.executeLargeUpdate(p1, p2);
    }

    @Override
    public long executeLargeUpdate(String p1, int p2) throws SQLException {
        return prepared.executeLargeUpdate(p1, p2);
    }

    @Override
    public ResultSet executeQuery() throws SQLException {
        return prepared.executeQuery();
    }

    @Override
    public ResultSet executeQuery(String p1) throws SQLException {
        return prepared.executeQuery(p1);
    }

    @Override
    public int executeUpdate() throws SQLException {
        return prepared.executeUpdate();
    }

    @Override
    public int executeUpdate(String p1) throws SQLException {
        return prepared.executeUpdate(p1);
    }

    @Override
    public int executeUpdate(String p1, int[] p2) throws SQLException {
        return prepared.executeUpdate(p1, p2);
    }

    @Override
    public int executeUpdate(String p1, String[] p2) throws SQLException {
        return prepared.executeUpdate(p1, p2);
    }

    @Override
    public int executeUpdate(String p1, int p2) throws SQLException {
        return prepared.executeUpdate(p1, p2);
    }

    @Override
    public ResultSetMetaData getMetaData() throws SQLException {
        return prepared.getMetaData();
    }

    @Override
    public ParameterMetaData getParameterMetaData() throws SQLException {
        return prepared.getParameterMetaData();
    }

    @Override
    public void setArray(int p1, Array p2) throws SQLException {
        prepared.setArray(p1, p2);
    }

    @Override
    public void setAsciiStream(int p1, java.io.InputStream p2) throws SQLException {
        prepared.setAsciiStream(p1, p2);
    }

    @Override
    public void setAsciiStream(int p1, java.io.InputStream p2, int p3) throws SQLException {
        prepared.setAsciiStream(p1, p2, p3);
    }

    @Override
    public void setAsciiStream(int p1, java.io.InputStream p2, long p3) throws SQLException {
        prepared.setAsciiStream(p1, p2, p3);
    }

    @Override
    public void setBigDecimal(int p1, java.math.BigDecimal p2) throws SQLException {
        prepared.setBigDecimal(p1, p2);
    }

    @Override
    public void setBinaryStream(int p1, java.io.InputStream p2) throws SQLException {
        prepared.setBinaryStream(p1, p2);
    }

    @Override
    public void setBinaryStream(int p1, java.io.InputStream p2, int p3) throws SQLException {
        prepared.setBinaryStream(p1, p2, p3);
    }

    @Override
    public void setBinaryStream(int p1, java.io.InputStream p2, long p3) throws SQLException {
        prepared.setBinaryStream(p1, p2, p3);
    }

    @Override
    public void setBlob(int p1, java.io.InputStream p2) throws SQLException {
        prepared.setBlob(p1, p2);
    }

    @Override
    public void setBlob(int p1, java.io.InputStream p2, long p3) throws SQLException {
        prepared.setBlob(p1, p2, p3);
    }

    @Override
    public void setBlob(int p1, Blob p2) throws SQLException {
        prepared.setBlob(p1, p2);
    }

    @Override
    public void setBoolean(int p1, boolean p2) throws SQLException {
        prepared.setBoolean(p1, p2);
    }

    @Override
    public void setByte(int p1, byte p2) throws SQLException {
        prepared.setByte(p1, p2);
    }

    @Override
    public void setBytes(int p1, byte[] p2) throws SQLException {
        prepared.setBytes(p1, p2);
    }

    @Override
    public void setCharacterStream(int p1, java.io.Reader p2) throws SQLException {
        prepared.setCharacterStream(p1, p2);
    }

    @Override
    public void setCharacterStream(int p1, java.io.Reader p2, int p3) throws SQLException {
        prepared.setCharacterStream(p1, p2, p3);
    }

    @Override
    public void setCharacterStream(int p1, java.io.Reader p2, long p3) throws SQLException {
        prepared.setCharacterStream(p1, p2, p3);
    }

    @Override
    public void setClob(int p1, java.io.Reader p2) throws SQLException {
        prepared.setClob(p1, p2);
    }

    @Override
    public void setClob(int p1, java.io.Reader p2, long p3) throws SQLException {
        prepared.setClob(p1, p2, p3);
    }

    @Override
    public void setClob(int p1, Clob p2) throws SQLException {
        prepared.setClob(p1, p2);
    }

    @Override
    public void setDate(int p1, Date p2) throws SQLException {
        prepared.setDate(p1, p2);
    }

    @Override
    public void setDate(int p1, Date p2, java.util.Calendar p3) throws SQLException {
        prepared.setDate(p1, p2, p3);
    }

    @Override
    public void setDouble(int p1, double p2) throws SQLException {
        prepared.setDouble(p1, p2);
    }

    @Override
    public void setFloat(int p1, float p2) throws SQLException {
        prepared.setFloat(p1, p2);
    }

    @Override
    public void setInt(int p1, int p2) throws SQLException {
        prepared.setInt(p1, p2);
    }

    @Override
    public void setLong(int p1, long p2) throws SQLException {
        prepared.setLong(p1, p2);
    }

    @Override
    public void setNCharacterStream(int p1, java.io.Reader p2) throws SQLException {
        prepared.setNCharacterStream(p1, p2);
    }

    @Override
    public void setNCharacterStream(int p1, java.io.Reader p2, long p3) throws SQLException {
        prepared.setNCharacterStream(p1, p2, p3);
    }

    @Override
    public void setNClob(int p1, java.io.Reader p2) throws SQLException {
        prepared.setNClob(p1, p2);
    }

    @Override
    public void setNClob(int p1, java.io.Reader p2, long p3) throws SQLException {
        prepared.setNClob(p1, p2, p3);
    }

    @Override
    public void setNClob(int p1, NClob p2) throws SQLException {
        prepared.setNClob(p1, p2);
    }

    @Override
    public void setNString(int p1, String p2) throws SQLException {
        prepared.setNString(p1, p2);
    }

    @Override
    public void setNull(int p1, int p2) throws SQLException {
        prepared.setNull(p1, p2);
    }

    @Override
    public void setNull(int p1, int p2, String p3) throws SQLException {
        prepared.setNull(p1, p2, p3);
    }

    @Override
    public void setObject(int p1, Object p2) throws SQLException {
        prepared.setObject(p1, p2);
    }

    @Override
    public void setObject(int p1, Object p2, int p3) throws SQLException {
        prepared.setObject(p1, p2, p3);
    }

    @Override
    public void setObject(int p1, Object p2, int p3, int p4) throws SQLException {
        prepared.setObject(p1, p2, p3, p4);
    }

    @Override
    public void setObject(int p1, Object p2, SQLType p3) throws SQLException {
        prepared.setObject(p1, p2, p3);
    }

    @Override
    public void setObject(int p1, Object p2, SQLType p3, int p4) throws SQLException {
        prepared.setObject(p1, p2, p3, p4);
    }

    @Override
    public void setRef(int p1, Ref p2) throws SQLException {
        prepared.setRef(p1, p2);
    }

    @Override
    public void setRowId(int p1, RowId p2) throws SQLException {
        prepared.setRowId(p1, p2);
    }

    @Override
    public void setSQLXML(int p1, SQLXML p2) throws SQLException {
        prepared.setSQLXML(p1, p2);
    }

    @Override
    public void setShort(int p1, short p2) throws SQLException {
        prepared.setShort(p1, p2);
    }

    @Override
    public void setString(int p1, String p2) throws SQLException {
        prepared.setString(p1, p2);
    }

    @Override
    public void setTime(int p1, Time p2) throws SQLException {
        prepared.setTime(p1, p2);
    }

    @Override
    public void setTime(int p1, Time p2, java.util.Calendar p3) throws SQLException {
        prepared.setTime(p1, p2, p3);
    }

    @Override
    public void setTimestamp(int p1, Timestamp p2) throws SQLException {
        prepared.setTimestamp(p1, p2);
    }

    @Override
    public void setTimestamp(int p1, Timestamp p2, java.util.Calendar p3) throws SQLException {
        prepared.setTimestamp(p1, p2, p3);
    }

    @Override
    public void setURL(int p1, java.net.URL p2) throws SQLException {
        prepared.setURL(p1, p2);
    }

    @Override
    public void setUnicodeStream(int p1, java.io.InputStream p2, int p3) throws SQLException {
        prepared.setUnicodeStream(p1, p2, p3);
    }
}
