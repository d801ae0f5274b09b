package dev.flushless.jdbc.wrapper;

import java.io.InputStream;
import java.io.Reader;
import java.sql.Blob;
import java.sql.Clob;
import java.sql.NClob;
import java.sql.PreparedStatement;
import java.sql.Ref;
import java.sql.RowId;
import java.sql.SQLException;
import java.sql.SQLXML;

/**
 * The setters of a {@link WrappedPreparedStatement} whose values are not kept for a replay (streams, large objects,
 * references, XML): each stops recording first ({@link #unkeptValue}), and one that makes pgjdbc create a large object
 * opens the server transaction ({@link #beforeLargeObject}), then hands the value to pgjdbc.
 */
abstract class UnkeptValueSetters extends PreparedStatementDelegation {

    UnkeptValueSetters(PreparedStatement delegate, WrappedConnection connection) {
        super(delegate, connection);
    }

    /** Recording stops for the current batch: the value cannot be kept. */
    abstract void unkeptValue() throws SQLException;

    /** pgjdbc is about to create a large object (see TransactionBuffering#beforeLargeObject). */
    abstract void beforeLargeObject() throws SQLException;

    // ---- setters whose values are not kept: recording stops first ----

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, int length) throws SQLException {
        unkeptValue();
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x, long length) throws SQLException {
        unkeptValue();
        prepared.setAsciiStream(parameterIndex, x, length);
    }

    @Override
    public void setAsciiStream(int parameterIndex, InputStream x) throws SQLException {
        unkeptValue();
        prepared.setAsciiStream(parameterIndex, x);
    }

    @Override
    @SuppressWarnings("deprecation")
    public void setUnicodeStream(int parameterIndex, InputStream x, int length) throws SQLException {
        unkeptValue();
        prepared.setUnicodeStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, int length) throws SQLException {
        unkeptValue();
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x, long length) throws SQLException {
        unkeptValue();
        prepared.setBinaryStream(parameterIndex, x, length);
    }

    @Override
    public void setBinaryStream(int parameterIndex, InputStream x) throws SQLException {
        unkeptValue();
        prepared.setBinaryStream(parameterIndex, x);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, int length) throws SQLException {
        unkeptValue();
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader, long length) throws SQLException {
        unkeptValue();
        prepared.setCharacterStream(parameterIndex, reader, length);
    }

    @Override
    public void setCharacterStream(int parameterIndex, Reader reader) throws SQLException {
        unkeptValue();
        prepared.setCharacterStream(parameterIndex, reader);
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value, long length) throws SQLException {
        unkeptValue();
        prepared.setNCharacterStream(parameterIndex, value, length);
    }

    @Override
    public void setNCharacterStream(int parameterIndex, Reader value) throws SQLException {
        unkeptValue();
        prepared.setNCharacterStream(parameterIndex, value);
    }

    @Override
    public void setRef(int parameterIndex, Ref x) throws SQLException {
        unkeptValue();
        prepared.setRef(parameterIndex, x);
    }

    @Override
    public void setRowId(int parameterIndex, RowId x) throws SQLException {
        unkeptValue();
        prepared.setRowId(parameterIndex, x);
    }

    /**
     * Before a setter whose value makes pgjdbc create a large object: recording stops, and the server transaction opens
     * (see TransactionBuffering#beforeLargeObject).
     */
    private void largeObject() throws SQLException {
        unkeptValue();
        beforeLargeObject();
    }

    @Override
    public void setBlob(int parameterIndex, Blob x) throws SQLException {
        largeObject();
        prepared.setBlob(parameterIndex, x);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream, long length) throws SQLException {
        largeObject();
        prepared.setBlob(parameterIndex, inputStream, length);
    }

    @Override
    public void setBlob(int parameterIndex, InputStream inputStream) throws SQLException {
        largeObject();
        prepared.setBlob(parameterIndex, inputStream);
    }

    @Override
    public void setClob(int parameterIndex, Clob x) throws SQLException {
        largeObject();
        prepared.setClob(parameterIndex, x);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader, long length) throws SQLException {
        largeObject();
        prepared.setClob(parameterIndex, reader, length);
    }

    @Override
    public void setClob(int parameterIndex, Reader reader) throws SQLException {
        largeObject();
        prepared.setClob(parameterIndex, reader);
    }

    @Override
    public void setNClob(int parameterIndex, NClob value) throws SQLException {
        largeObject();
        prepared.setNClob(parameterIndex, value);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader, long length) throws SQLException {
        largeObject();
        prepared.setNClob(parameterIndex, reader, length);
    }

    @Override
    public void setNClob(int parameterIndex, Reader reader) throws SQLException {
        largeObject();
        prepared.setNClob(parameterIndex, reader);
    }

    @Override
    public void setSQLXML(int parameterIndex, SQLXML xmlObject) throws SQLException {
        unkeptValue();
        prepared.setSQLXML(parameterIndex, xmlObject);
    }
}
