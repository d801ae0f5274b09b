package dev.flushless.jdbc.wrapper;

import java.sql.*;

/**
 * Pass-through for a {@link CallableStatement} (the methods it adds to {@link PreparedStatement}): every
 * method calls the wrapped object's. Generated from the {@code java.sql} interface by {@code
 * DelegationSources} (test sources); do not edit: regenerate with {@code mvn -q test
 * -Dtest=DelegationSourcesTest -Dflushless.regenerate=true}.
 */
@SuppressWarnings("deprecation")
abstract class CallableStatementDelegation extends WrappedPreparedStatement implements CallableStatement {

    final CallableStatement callable;

    CallableStatementDelegation(CallableStatement delegate, WrappedConnection connection, String sql) {
        super(delegate, connection, sql);
        this.callable = delegate;
    }

    @Override
    public Array getArray(int p1) throws SQLException {
        return callable.getArray(p1);
    }

    @Override
    public Array getArray(String p1) throws SQLException {
        return callable.getArray(p1);
    }

    @Override
    public java.math.BigDecimal getBigDecimal(int p1) throws SQLException {
        return callable.getBigDecimal(p1);
    }

    @Override
    public java.math.BigDecimal getBigDecimal(int p1, int p2) throws SQLException {
        return callable.getBigDecimal(p1, p2);
    }

    @Override
    public java.math.BigDecimal getBigDecimal(String p1) throws SQLException {
        return callable.getBigDecimal(p1);
    }

    @Override
    public Blob getBlob(int p1) throws SQLException {
        return callable.getBlob(p1);
    }

    @Override
    public Blob getBlob(String p1) throws SQLException {
        return callable.getBlob(p1);
    }

    @Override
    public boolean getBoolean(int p1) throws SQLException {
        return callable.getBoolean(p1);
    }

    @Override
    public boolean getBoolean(String p1) throws SQLException {
        return callable.getBoolean(p1);
    }

    @Override
    public byte getByte(int p1) throws SQLException {
        return callable.getByte(p1);
    }

    @Override
    public byte getByte(String p1) throws SQLException {
        return callable.getByte(p1);
    }

    @Override
    public byte[] getBytes(int p1) throws SQLException {
        return callable.getBytes(p1);
    }

    @Override
    public byte[] getBytes(String p1) throws SQLException {
        return callable.getBytes(p1);
    }

    @Override
    public java.io.Reader getCharacterStream(int p1) throws SQLException {
        return callable.getCharacterStream(p1);
    }

    @Override
    public java.io.Reader getCharacterStream(String p1) throws SQLException {
        return callable.getCharacterStream(p1);
    }

    @Override
    public Clob getClob(int p1) throws SQLException {
        return callable.getClob(p1);
    }

    @Override
    public Clob getClob(String p1) throws SQLException {
        return callable.getClob(p1);
    }

    @Override
    public Date getDate(int p1) throws SQLException {
        return callable.getDate(p1);
    }

    @Override
    public Date getDate(int p1, java.util.Calendar p2) throws SQLException {
        return callable.getDate(p1, p2);
    }

    @Override
    public Date getDate(String p1) throws SQLException {
        return callable.getDate(p1);
    }

    @Override
    public Date getDate(String p1, java.util.Calendar p2) throws SQLException {
        return callable.getDate(p1, p2);
    }

    @Override
    public double getDouble(int p1) throws SQLException {
        return callable.getDouble(p1);
    }

    @Override
    public double getDouble(String p1) throws SQLException {
        return callable.getDouble(p1);
    }

    @Override
    public float getFloat(int p1) throws SQLException {
        return callable.getFloat(p1);
    }

    @Override
    public float getFloat(String p1) throws SQLException {
        return callable.getFloat(p1);
    }

    @Override
    public int getInt(int p1) throws SQLException {
        return callable.getInt(p1);
    }

    @Override
    public int getInt(String p1) throws SQLException {
        return callable.getInt(p1);
    }

    @Override
    public long getLong(int p1) throws SQLException {
        return callable.getLong(p1);
    }

    @Override
    public long getLong(String p1) throws SQLException {
        return callable.getLong(p1);
    }

    @Override
    public java.io.Reader getNCharacterStream(int p1) throws SQLException {
        return callable.getNCharacterStream(p1);
    }

    @Override
    public java.io.Reader getNCharacterStream(String p1) throws SQLException {
        return callable.getNCharacterStream(p1);
    }

    @Override
    public NClob getNClob(int p1) throws SQLException {
        return callable.getNClob(p1);
    }

    @Override
    public NClob getNClob(String p1) throws SQLException {
        return callable.getNClob(p1);
    }

    @Override
    public String getNString(int p1) throws SQLException {
        return callable.getNString(p1);
    }

    @Override
    public String getNString(String p1) throws SQLException {
        return callable.getNString(p1);
    }

    @Override
    public Object getObject(int p1) throws SQLException {
        return callable.getObject(p1);
    }

    @Override
    public <T> T getObject(int p1, Class<T> p2) throws SQLException {
        return callable.getObject(p1, p2);
    }

    @Override
    public Object getObject(int p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return callable.getObject(p1, p2);
    }

    @Override
    public Object getObject(String p1) throws SQLException {
        return callable.getObject(p1);
    }

    @Override
    public <T> T getObject(String p1, Class<T> p2) throws SQLException {
        return callable.getObject(p1, p2);
    }

    @Override
    public Object getObject(String p1, java.util.Map<String, Class<?>> p2) throws SQLException {
        return callable.getObject(p1, p2);
    }

    @Override
    public Ref getRef(int p1) throws SQLException {
        return callable.getRef(p1);
    }

    @Override
    public Ref getRef(String p1) throws SQLException {
        return callable.getRef(p1);
    }

    @Override
    public RowId getRowId(int p1) throws SQLException {
        return callable.getRowId(p1);
    }

    @Override
    public RowId getRowId(String p1) throws SQLException {
        return callable.getRowId(p1);
    }

    @Override
    public SQLXML getSQLXML(int p1) throws SQLException {
        return callable.getSQLXML(p1);
    }

    @Override
    public SQLXML getSQLXML(String p1) throws SQLException {
        return callable.getSQLXML(p1);
    }

    @Override
    public short getShort(int p1) throws SQLException {
        return callable.getShort(p1);
    }

    @Override
    public short getShort(String p1) throws SQLException {
        return callable.getShort(p1);
    }

    @Override
    public String getString(int p1) throws SQLException {
        return callable.getString(p1);
    }

    @Override
    public String getString(String p1) throws SQLException {
        return callable.getString(p1);
    }

    @Override
    public Time getTime(int p1) throws SQLException {
        return callable.getTime(p1);
    }

    @Override
    public Time getTime(int p1, java.util.Calendar p2) throws SQLException {
        return callable.getTime(p1, p2);
    }

    @Override
    public Time getTime(String p1) throws SQLException {
        return callable.getTime(p1);
    }

    @Override
    public Time getTime(String p1, java.util.Calendar p2) throws SQLException {
        return callable.getTime(p1, p2);
    }

    @Override
    public Timestamp getTimestamp(int p1) throws SQLException {
        return callable.getTimestamp(p1);
    }

    @Override
    public Timestamp getTimestamp(int p1, java.util.Calendar p2) throws SQLException {
        return callable.getTimestamp(p1, p2);
    }

    @Override
    public Timestamp getTimestamp(String p1) throws SQLException {
        return callable.getTimestamp(p1);
    }

    @Override
    public Timestamp getTimestamp(String p1, java.util.Calendar p2) throws SQLException {
        return callable.getTimestamp(p1, p2);
    }

    @Override
    public java.net.URL getURL(int p1) throws SQLException {
        return callable.getURL(p1);
    }

    @Override
    public java.net.URL getURL(String p1) throws SQLException {
        return callable.getURL(p1);
    }

    @Override
    public void registerOutParameter(int p1, int p2) throws SQLException {
        callable.registerOutParameter(p1, p2);
    }

    @Override
    public void registerOutParameter(int p1, int p2, int p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(int p1, int p2, String p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(int p1, SQLType p2) throws SQLException {
        callable.registerOutParameter(p1, p2);
    }

    @Override
    public void registerOutParameter(int p1, SQLType p2, int p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(int p1, SQLType p2, String p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(String p1, int p2) throws SQLException {
        callable.registerOutParameter(p1, p2);
    }

    @Override
    public void registerOutParameter(String p1, int p2, int p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(String p1, int p2, String p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(String p1, SQLType p2) throws SQLException {
        callable.registerOutParameter(p1, p2);
    }

    @Override
    public void registerOutParameter(String p1, SQLType p2, int p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void registerOutParameter(String p1, SQLType p2, String p3) throws SQLException {
        callable.registerOutParameter(p1, p2, p3);
    }

    @Override
    public void setAsciiStream(String p1, java.io.InputStream p2) throws SQLException {
        callable.setAsciiStream(p1, p2);
    }

    @Override
    public void setAsciiStream(String p1, java.io.InputStream p2, int p3) throws SQLException {
        callable.setAsciiStream(p1, p2, p3);
    }

    @Override
    public void setAsciiStream(String p1, java.io.InputStream p2, long p3) throws SQLException {
        callable.setAsciiStream(p1, p2, p3);
    }

    @Override
    public void setBigDecimal(String p1, java.math.BigDecimal p2) throws SQLException {
        callable.setBigDecimal(p1, p2);
    }

    @Override
    public void setBinaryStream(String p1, java.io.InputStream p2) throws SQLException {
        callable.setBinaryStream(p1, p2);
    }

    @Override
    public void setBinaryStream(String p1, java.io.InputStream p2, int p3) throws SQLException {
        callable.setBinaryStream(p1, p2, p3);
    }

    @Override
    public void setBinaryStream(String p1, java.io.InputStream p2, long p3) throws SQLException {
        callable.setBinaryStream(p1, p2, p3);
    }

    @Override
    public void setBlob(String p1, java.io.InputStream p2) throws SQLException {
        callable.setBlob(p1, p2);
    }

    @Override
    public void setBlob(String p1, java.io.InputStream p2, long p3) throws SQLException {
        callable.setBlob(p1, p2, p3);
    }

    @Override
    public void setBlob(String p1, Blob p2) throws SQLException {
        callable.setBlob(p1, p2);
    }

    @Override
    public void setBoolean(String p1, boolean p2) throws SQLException {
        callable.setBoolean(p1, p2);
    }

    @Override
    public void setByte(String p1, byte p2) throws SQLException {
        callable.setByte(p1, p2);
    }

    @Override
    public void setBytes(String p1, byte[] p2) throws SQLException {
        callable.setBytes(p1, p2);
    }

    @Override
    public void setCharacterStream(String p1, java.io.Reader p2) throws SQLException {
        callable.setCharacterStream(p1, p2);
    }

    @Override
    public void setCharacterStream(String p1, java.io.Reader p2, int p3) throws SQLException {
        callable.setCharacterStream(p1, p2, p3);
    }

    @Override
    public void setCharacterStream(String p1, java.io.Reader p2, long p3) throws SQLException {
        callable.setCharacterStream(p1, p2, p3);
    }

    @Override
    public void setClob(String p1, java.io.Reader p2) throws SQLException {
        callable.setClob(p1, p2);
    }

    @Override
    public void setClob(String p1, java.io.Reader p2, long p3) throws SQLException {
        callable.setClob(p1, p2, p3);
    }

    @Override
    public void setClob(String p1, Clob p2) throws SQLException {
        callable.setClob(p1, p2);
    }

    @Override
    public void setDate(String p1, Date p2) throws SQLException {
        callable.setDate(p1, p2);
    }

    @Override
    public void setDate(String p1, Date p2, java.util.Calendar p3) throws SQLException {
        callable.setDate(p1, p2, p3);
    }

    @Override
    public void setDouble(String p1, double p2) throws SQLException {
        callable.setDouble(p1, p2);
    }

    @Override
    public void setFloat(String p1, float p2) throws SQLException {
        callable.setFloat(p1, p2);
    }

    @Override
    public void setInt(String p1, int p2) throws SQLException {
        callable.setInt(p1, p2);
    }

    @Override
    public void setLong(String p1, long p2) throws SQLException {
        callable.setLong(p1, p2);
    }

    @Override
    public void setNCharacterStream(String p1, java.io.Reader p2) throws SQLException {
        callable.setNCharacterStream(p1, p2);
    }

    @Override
    public void setNCharacterStream(String p1, java.io.Reader p2, long p3) throws SQLException {
        callable.setNCharacterStream(p1, p2, p3);
    }

    @Override
    public void setNClob(String p1, java.io.Reader p2) throws SQLException {
        callable.setNClob(p1, p2);
    }

    @Override
    public void setNClob(String p1, java.io.Reader p2, long p3) throws SQLException {
        callable.setNClob(p1, p2, p3);
    }

    @Override
    public void setNClob(String p1, NClob p2) throws SQLException {
        callable.setNClob(p1, p2);
    }

    @Override
    public void setNString(String p1, String p2) throws SQLException {
        callable.setNString(p1, p2);
    }

    @Override
    public void setNull(String p1, int p2) throws SQLException {
        callable.setNull(p1, p2);
    }

    @Override
    public void setNull(String p1, int p2, String p3) throws SQLException {
        callable.setNull(p1, p2, p3);
    }

    @Override
    public void setObject(String p1, Object p2) throws SQLException {
        callable.setObject(p1, p2);
    }

    @Override
    public void setObject(String p1, Object p2, int p3) throws SQLException {
        callable.setObject(p1, p2, p3);
    }

    @Override
    public void setObject(String p1, Object p2, int p3, int p4) throws SQLException {
        callable.setObject(p1, p2, p3, p4);
    }

    @Override
    public void setObject(String p1, Object p2, SQLType p3) throws SQLException {
        callable.setObject(p1, p2, p3);
    }

    @Override
    public void setObject(String p1, Object p2, SQLType p3, int p4) throws SQLException {
        callable.setObject(p1, p2, p3, p4);
    }

    @Override
    public void setRowId(String p1, RowId p2) throws SQLException {
        callable.setRowId(p1, p2);
    }

    @Override
    public void setSQLXML(String p1, SQLXML p2) throws SQLException {
        callable.setSQLXML(p1, p2);
    }

    @Override
    public void setShort(String p1, short p2) throws SQLException {
        callable.setShort(p1, p2);
    }

    @Override
    public void setString(String p1, String p2) throws SQLException {
        callable.setString(p1, p2);
    }

    @Override
    public void setTime(String p1, Time p2) throws SQLException {
        callable.setTime(p1, p2);
    }

    @Override
    public void setTime(String p1, Time p2, java.util.Calendar p3) throws SQLException {
        callable.setTime(p1, p2, p3);
    }

    @Override
    public void setTimestamp(String p1, Timestamp p2) throws SQLException {
        callable.setTimestamp(p1, p2);
    }

    @Override
    public void setTimestamp(String p1, Timestamp p2, java.util.Calendar p3) throws SQLException {
        callable.setTimestamp(p1, p2, p3);
    }

    @Override
    public void setURL(String p1, java.net.URL p2) throws SQLException {
        callable.setURL(p1, p2);
    }

    @Override
    public boolean wasNull() throws SQLException {
        return callable.wasNull();
    }
}
