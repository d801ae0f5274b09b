package dev.flushless.jdbc.conformance;

import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;

/**
 * Everything an application observed while running one behaviour: values, update counts, result sets,
 * warnings and errors, as text lines. Two runs are equivalent when their transcripts are equal.
 */
public final class Transcript {

    /** A JDBC call whose outcome is recorded. */
    @FunctionalInterface
    public interface Call {
        Object run() throws Exception;
    }

    private final List<String> lines = new ArrayList<>();

    /** Records {@code value} under {@code label}. */
    public void add(String label, Object value) {
        lines.add(label + " = " + describe(value));
    }

    /**
     * Runs {@code call} and records its result, or the exception it threw (class, SQLState, message):
     * use it for calls that are expected to fail.
     */
    public void call(String label, Call call) {
        try {
            add(label, call.run());
        } catch (Exception e) {
            lines.add(label + " threw " + describeException(e));
        }
    }

    /** Records every row of {@code rs} with its column labels and type names, then closes it. */
    public void rows(String label, ResultSet rs) throws SQLException {
        try (rs) {
            ResultSetMetaData md = rs.getMetaData();
            StringBuilder header = new StringBuilder();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                header.append(i > 1 ? ", " : "")
                        .append(md.getColumnLabel(i))
                        .append(':')
                        .append(md.getColumnTypeName(i))
                        .append('/')
                        .append(md.getColumnType(i));
            }
            lines.add(label + " columns " + header);
            int count = 0;
            while (rs.next()) {
                StringBuilder row = new StringBuilder();
                for (int i = 1; i <= md.getColumnCount(); i++) {
                    row.append(i > 1 ? " | " : "").append(describe(rs.getObject(i)));
                }
                lines.add(label + " row " + (++count) + ": " + row);
            }
            lines.add(label + " rows = " + count);
        }
    }

    /** Records the chain of warnings (SQLState and message). */
    public void warnings(String label, SQLWarning warning) {
        int n = 0;
        for (SQLWarning w = warning; w != null; w = w.getNextWarning()) {
            lines.add(label + " warning " + (++n) + ": [" + w.getSQLState() + "] " + w.getMessage());
        }
        lines.add(label + " warnings = " + n);
    }

    public List<String> lines() {
        return List.copyOf(lines);
    }

    @Override
    public String toString() {
        return String.join("\n", lines);
    }

    static String describeException(Throwable e) {
        StringBuilder text = new StringBuilder(e.getClass().getSimpleName());
        if (e instanceof SQLException sql) {
            text.append('[').append(sql.getSQLState()).append("] ").append(sql.getMessage());
            if (e instanceof java.sql.BatchUpdateException batch) {
                text.append(" counts=").append(java.util.Arrays.toString(batch.getUpdateCounts()));
            }
        } else {
            text.append(": ").append(e.getMessage());
        }
        return text.toString();
    }

    static String describe(Object value) {
        if (value == null) {
            return "null";
        }
        if (value instanceof byte[] bytes) {
            return "bytes" + java.util.Arrays.toString(bytes);
        }
        if (value instanceof int[] ints) {
            return java.util.Arrays.toString(ints);
        }
        if (value instanceof long[] longs) {
            return java.util.Arrays.toString(longs);
        }
        if (value instanceof Object[] objects) {
            return java.util.Arrays.deepToString(objects);
        }
        if (value instanceof java.sql.Array array) {
            try {
                return "array " + array.getBaseTypeName() + describe(array.getArray());
            } catch (SQLException e) {
                return "array ?" + e.getSQLState();
            }
        }
        return value.getClass().getSimpleName() + ":" + value;
    }
}
