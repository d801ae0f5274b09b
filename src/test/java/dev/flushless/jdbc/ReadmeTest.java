package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Keeps the README true: its property table matches {@link FlushlessProperty}; CI calls its test command. */
class ReadmeTest {

    private static String readme() throws IOException {
        return Files.readString(Path.of("README.md"));
    }

    @Test
    void propertyTableMatchesTheEnum() throws IOException {
        String readme = readme();
        int start = readme.indexOf("<!-- properties:start -->");
        int end = readme.indexOf("<!-- properties:end -->");
        assertTrue(start >= 0 && end > start, "README lacks the properties:start/end markers");
        List<String> documented = new ArrayList<>();
        for (String line : readme.substring(start, end).split("\n")) {
            if (line.startsWith("| `flushless.")) {
                documented.add(line.trim());
            }
        }
        List<String> expected = new ArrayList<>();
        for (FlushlessProperty property : FlushlessProperty.values()) {
            expected.add("| `" + property.key() + "` | `" + property.defaultValue() + "` | " + property.allowedValues()
                    + " | " + property.description() + " |");
        }
        assertEquals(
                String.join("\n", expected),
                String.join("\n", documented),
                "README property table drifted from FlushlessProperty; copy the expected rows into README.md");
    }

    /**
     * The README's fallback-reason table lists every {@link dev.flushless.jdbc.FallbackReason} code (the report's keys
     * and the metric tag's values) with its text, details shown as "…".
     */
    @Test
    void fallbackReasonTableMatchesTheEnum() throws IOException {
        String readme = readme();
        int start = readme.indexOf("<!-- fallback-reasons:start -->");
        int end = readme.indexOf("<!-- fallback-reasons:end -->");
        assertTrue(start >= 0 && end > start, "README lacks the fallback-reasons:start/end markers");
        List<String> documented = new ArrayList<>();
        for (String line : readme.substring(start, end).split("\n")) {
            if (line.startsWith("| `")) {
                documented.add(line.trim());
            }
        }
        List<String> expected = new ArrayList<>();
        for (dev.flushless.jdbc.FallbackReason reason : dev.flushless.jdbc.FallbackReason.values()) {
            expected.add("| `" + reason.code() + "` | " + reason.meaning().replace("|", "\\|") + " |");
        }
        assertEquals(
                String.join("\n", expected),
                String.join("\n", documented),
                "README fallback-reason table drifted from FallbackReason; copy the expected rows into README.md");
    }

    @Test
    void ciRunsTheReadmeCommands() throws IOException {
        String readme = readme();
        String ci = Files.readString(Path.of(".ci/run"));
        assertTrue(readme.contains("\nmvn -B verify "), "README must show the test command");
        assertTrue(ci.contains("\nmvn -B verify\n"), ".ci/run must call the test command");
        assertTrue(readme.contains("\nexamples/demo/run.sh "), "README must show the demo command");
        assertTrue(ci.contains("\nexamples/demo/run.sh\n"), ".ci/run must run the demo command");
    }
}
