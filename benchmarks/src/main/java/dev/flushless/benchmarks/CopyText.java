package dev.flushless.benchmarks;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.postgresql.PGConnection;

/**
 * PostgreSQL's {@code COPY} text format, as a careful engineer writes it by hand: columns separated by a tab, rows
 * ended by a newline, {@code \N} for NULL, and in a value a backslash, tab, newline and carriage return escaped with a
 * backslash (the characters the format requires escaping with the default delimiter).
 */
final class CopyText {

    /** The text format's NULL. */
    static final String NULL = "\\N";

    private CopyText() {}

    /** Appends {@code value} escaped, or {@code \N} when it is null. */
    static StringBuilder value(StringBuilder out, String value) {
        if (value == null) {
            return out.append(NULL);
        }
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '\t' -> out.append("\\t");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                default -> out.append(c);
            }
        }
        return out;
    }

    /** Runs {@code copy} (a {@code COPY .. FROM STDIN} statement) with {@code text}; returns the rows copied. */
    static long copyIn(Connection c, String copy, CharSequence text) throws SQLException {
        byte[] bytes = text.toString().getBytes(StandardCharsets.UTF_8); // pgjdbc's client_encoding is UTF8
        try {
            return c.unwrap(PGConnection.class).getCopyAPI().copyIn(copy, new ByteArrayInputStream(bytes));
        } catch (java.io.IOException e) {
            throw new SQLException("COPY failed: " + e.getMessage(), e);
        }
    }

    /**
     * Checks the escaping against the server: values that need every escape (and NULL) go through {@code COPY} into a
     * temporary table on {@code c} and must read back unchanged. Throws when they do not.
     */
    static void selfCheck(Connection c) throws SQLException {
        List<String> values = Arrays.asList(
                "plain", "tab\there", "new\nline", "carriage\rreturn", "back\\slash", "\\N", "", null, "é ü 名");
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < values.size(); i++) {
            value(text.append(i).append('\t'), values.get(i)).append('\n');
        }
        try (Statement s = c.createStatement()) {
            s.execute("CREATE TEMPORARY TABLE IF NOT EXISTS copy_text_check (i int, v text)");
            s.execute("TRUNCATE copy_text_check");
            copyIn(c, "COPY copy_text_check (i, v) FROM STDIN", text);
            List<String> read = new ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT v FROM copy_text_check ORDER BY i")) {
                while (rs.next()) {
                    read.add(rs.getString(1));
                }
            }
            s.execute("DROP TABLE copy_text_check");
            if (!read.equals(values)) {
                throw new IllegalStateException("COPY text escaping: wrote " + values + ", read back " + read);
            }
        }
    }
}
