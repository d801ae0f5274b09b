package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** {@link FlushlessConfig}: defaults, parsing, and the exact errors for bad settings (no database needed). */
class FlushlessConfigTest {

    private static Properties settings(String... keysAndValues) {
        Properties settings = new Properties();
        for (int i = 0; i < keysAndValues.length; i += 2) {
            settings.setProperty(keysAndValues[i], keysAndValues[i + 1]);
        }
        return settings;
    }

    @Test
    void defaultsAreTheEnumsDefaults() throws SQLException {
        FlushlessConfig config = FlushlessConfig.defaults();
        assertSame(config, FlushlessConfig.defaults());
        assertEquals(FlushlessConfig.Mode.BATCH, config.mode());
        assertEquals(4096, config.maxRowsPerStatement());
        assertFalse(config.trustTriggers());
        assertFalse(config.exactSequences());
        assertEquals(2048, config.parseCacheSize());
        assertEquals(10_000, config.maxBufferedRows());
        assertEquals(16_777_216, config.maxBufferedBytes());
        assertFalse(config.groupCommit());
        assertEquals(200, config.groupCommitMaxDelayMicros());
        assertEquals(1000, config.groupCommitMaxRows());
        assertEquals(FlushlessConfig.OnConflict.AUTO, config.onConflict());
        assertEquals(0, config.followerReadsStalenessMs());
        assertEquals("mode=batch", config.toString());

        FlushlessConfig empty = FlushlessConfig.from(settings("user", "someone", "ApplicationName", "x"));
        assertEquals(FlushlessConfig.Mode.BATCH, empty.mode());
        assertEquals(4096, empty.maxRowsPerStatement());
    }

    @Test
    void everySettingIsReadTrimmedAndCaseInsensitively() throws SQLException {
        FlushlessConfig config = FlushlessConfig.from(settings(
                "flushless.mode", " Transaction ",
                "flushless.maxRowsPerStatement", "65535",
                "flushless.trustTriggers", "TRUE",
                "flushless.exactSequences", "true",
                "flushless.parseCacheSize", "16",
                "flushless.maxBufferedRows", " 7 ",
                "flushless.maxBufferedBytes", "1024",
                "flushless.groupCommit", "true",
                "flushless.groupCommit.maxDelayMicros", "0",
                "flushless.groupCommit.maxRows", "2",
                "flushless.onConflict", "ANTIJOIN",
                "flushless.followerReads", "5000"));
        assertEquals(FlushlessConfig.Mode.TRANSACTION, config.mode());
        assertEquals(65535, config.maxRowsPerStatement());
        assertTrue(config.trustTriggers());
        assertTrue(config.exactSequences());
        assertEquals(16, config.parseCacheSize());
        assertEquals(7, config.maxBufferedRows());
        assertEquals(1024, config.maxBufferedBytes());
        assertTrue(config.groupCommit());
        assertEquals(0, config.groupCommitMaxDelayMicros());
        assertEquals(2, config.groupCommitMaxRows());
        assertEquals(FlushlessConfig.OnConflict.ANTIJOIN, config.onConflict());
        assertEquals(5000, config.followerReadsStalenessMs());
        assertEquals("mode=transaction", config.toString());
        assertEquals(
                FlushlessConfig.OnConflict.NATIVE,
                FlushlessConfig.from(settings("flushless.onConflict", "native")).onConflict());
        assertEquals(
                FlushlessConfig.Mode.OFF,
                FlushlessConfig.from(settings("flushless.mode", "off")).mode());
    }

    @Test
    void badChoiceIsExactlyReported() {
        SQLException e =
                assertThrows(SQLException.class, () -> FlushlessConfig.from(settings("flushless.mode", "Turbo ")));
        assertEquals("22023", e.getSQLState());
        assertEquals(
                "Invalid value 'Turbo ' for Flushless setting flushless.mode: allowed values are off, batch,"
                        + " transaction (default batch). Fix the JDBC URL or connection properties.",
                e.getMessage());
        SQLException bool =
                assertThrows(SQLException.class, () -> FlushlessConfig.from(settings("flushless.groupCommit", "yes")));
        assertEquals("22023", bool.getSQLState());
        assertEquals(
                "Invalid value 'yes' for Flushless setting flushless.groupCommit: allowed values are true, false"
                        + " (default false). Fix the JDBC URL or connection properties.",
                bool.getMessage());
    }

    @Test
    void badNumberIsExactlyReported() {
        for (String value : new String[] {"0", "65536", "many", "", "1.5"}) {
            SQLException e = assertThrows(
                    SQLException.class, () -> FlushlessConfig.from(settings("flushless.groupCommit.maxRows", value)));
            assertEquals("22023", e.getSQLState());
            assertEquals(
                    "Invalid value '" + value + "' for Flushless setting flushless.groupCommit.maxRows: allowed"
                            + " values are whole numbers from 2 to 65535 (default 1000). Fix the JDBC URL or connection"
                            + " properties.",
                    e.getMessage());
        }
    }

    @Test
    void firstBadSettingInEnumOrderIsReported() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> FlushlessConfig.from(settings(
                        "flushless.followerReads",
                        "-1",
                        "flushless.maxRowsPerStatement",
                        "0",
                        "flushless.onConflict",
                        "x")));
        assertTrue(e.getMessage().contains("flushless.maxRowsPerStatement"), e.getMessage());
    }

    @Test
    void unknownKeyIsReportedBeforeBadValues() {
        SQLException e = assertThrows(
                SQLException.class,
                () -> FlushlessConfig.from(settings("flushless.mode", "turbo", "flushless.maxRows", "5")));
        assertEquals("22023", e.getSQLState());
        StringBuilder known = new StringBuilder();
        for (FlushlessProperty property : FlushlessProperty.values()) {
            known.append(known.length() == 0 ? "" : ", ").append(property.key());
        }
        assertEquals(
                "Unknown Flushless setting 'flushless.maxRows' (value '5'): known settings are " + known
                        + ". Remove it or correct its spelling.",
                e.getMessage());
    }

    @Test
    void everyDefaultIsAnAllowedValue() throws SQLException {
        for (FlushlessProperty property : FlushlessProperty.values()) {
            assertEquals(property.defaultValue(), property.validate(property.defaultValue()), property.key());
        }
    }
}
