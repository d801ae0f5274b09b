package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.postgresql.util.PSQLException;
import org.postgresql.util.PSQLState;

/** {@link Errors}: the SQLStates and classes of the driver's own exceptions, and no SQLState literal elsewhere. */
class ErrorsTest {

    @Test
    void factoriesGiveTheSqlStatesTheDriverAlwaysGave() {
        assertEquals("08001", Errors.cannotConnect("m").getSQLState());
        assertEquals("0A000", Errors.notSupported("m").getSQLState());
        assertEquals("22023", Errors.invalidSetting("m").getSQLState());
        assertEquals("XX000", Errors.internal("m").getSQLState());
        assertEquals("99999", Errors.unexpected("m").getSQLState());
        SQLException cause = new SQLException("server", "23505", 7);
        SQLException failed = Errors.inFailedTransaction("m", cause);
        assertEquals("25P02", failed.getSQLState());
        assertSame(cause, failed.getCause());
        assertEquals("XX000", Errors.internal("m", cause).getSQLState());
        assertEquals("99999", Errors.unexpected("m", cause).getSQLState());
        assertEquals("23505", Errors.keepingState("m", cause).getSQLState());
        assertEquals(0, Errors.keepingState("m", cause).getErrorCode());
        assertEquals(
                "08006",
                Errors.connectionLost("m", new SQLException("no state")).getSQLState());
        assertEquals(
                "57P01",
                Errors.connectionLost("m", new SQLException("x", "57P01")).getSQLState());
        BatchUpdateException batch = Errors.batchFailed("m", PSQLState.UNIQUE_VIOLATION, new int[] {-3, -3}, cause);
        assertEquals("23505", batch.getSQLState());
        assertEquals(7, batch.getErrorCode());
        assertArrayEquals(new int[] {-3, -3}, batch.getUpdateCounts());
        assertSame(cause, batch.getCause());
        PSQLException pg = Errors.asPgjdbc("m", PSQLState.INVALID_CURSOR_STATE);
        assertEquals("24000", pg.getSQLState());
        assertEquals("m", pg.getMessage());
        for (SQLException e : List.of(Errors.cannotConnect("m"), Errors.internal("m"), Errors.invalidSetting("m"))) {
            assertSame(SQLException.class, e.getClass());
            assertNull(e.getCause());
        }
        assertTrue(Errors.isConnectionException("08003"));
        assertTrue(Errors.isConnectionException("08P01"));
        assertFalse(Errors.isConnectionException("57P01"));
        assertFalse(Errors.isConnectionException(null));
    }

    /** A SQLState written as a string literal: five digits or capitals in quotes. */
    private static final Pattern SQLSTATE_LITERAL = Pattern.compile("\"[0-9A-Z]{5}\"");

    @Test
    void noSqlStateLiteralOutsideErrors() throws IOException {
        List<String> found = new ArrayList<>();
        Path main = Path.of("src/main/java");
        try (Stream<Path> files = Files.walk(main)) {
            for (Path file : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
                if (file.getFileName().toString().equals("Errors.java")) {
                    continue;
                }
                List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++) {
                    Matcher literal = SQLSTATE_LITERAL.matcher(lines.get(i));
                    if (literal.find()) {
                        found.add(main.relativize(file) + ":" + (i + 1) + ": "
                                + lines.get(i).trim());
                    }
                }
            }
        }
        assertEquals(
                List.of(),
                found,
                "Use org.postgresql.util.PSQLState, or a constant and factory in "
                        + "dev.flushless.jdbc.Errors, for these SQLStates");
    }
}
