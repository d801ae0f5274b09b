package dev.flushless.jdbc.robustness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import dev.flushless.jdbc.testing.PostgresExtension;
import dev.flushless.jdbc.testing.TestDatabase;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The driver's memory stays bounded under unbounded input: the driver-wide parse cache
 * ({@code flushless.parseCacheSize}) and the transaction write buffer ({@code flushless.maxBufferedRows},
 * {@code flushless.maxBufferedBytes}) stay within their limits while a child JVM with a 64 MB heap runs
 * {@link BoundsWorkload}: 2,000 distinct literal texts (10 times the cache), texts carrying 50,000-character literals (as
 * buffered INSERTs and as Statement batches), a 100,000-row transaction and a 100,000-row batch. The
 * workload checks the limits through {@link dev.flushless.jdbc.wrapper.WrapperInternals} after every call,
 * and an OutOfMemoryError ends the child with a non-zero exit.
 */
@ExtendWith(PostgresExtension.class)
class BoundsTest {

    @Test
    void parseCacheAndWriteBufferStayBoundedOnA64MegabyteHeap(TestDatabase db) throws Exception {
        db.execute(
                "CREATE TABLE bounds_lit (id int, v text)",
                "CREATE TABLE bounds_big (id int, v text)",
                "CREATE TABLE bounds_rows (id int, v text)");
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(
                java,
                "-Xmx64m",
                "-XX:+ExitOnOutOfMemoryError",
                "-cp",
                classpath,
                BoundsWorkload.class.getName(),
                db.flushlessUrl(),
                db.credentials().getProperty("user", "")));
        Path log = Files.createTempFile("flushless-bounds", ".log");
        try {
            Process child = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            boolean ended = child.waitFor(10, TimeUnit.MINUTES); // a guard against a hang, not a time assertion
            if (!ended) {
                child.destroyForcibly();
            }
            String output = Files.readString(log, StandardCharsets.UTF_8);
            System.out.println(
                    output.lines().filter(l -> l.startsWith("BOUNDS")).reduce("", (a, b) -> a + b + "\n"));
            assertTrue(ended, "the bounds workload did not end:\n" + output);
            assertEquals(
                    0,
                    child.exitValue(),
                    "the bounds workload failed (exit " + child.exitValue() + "):\n" + tail(output));
            assertTrue(output.contains("BOUNDS OK"), output);
        } finally {
            Files.deleteIfExists(log);
        }
    }

    /**
     * The cache's two bounds directly: entries, and characters of SQL (a long text pushes out the least recently
     * used ones; a text longer than the whole budget is analysed every time but never cached). The texts hold
     * two statements, which the analysis turns down before parsing (cheap), and are cached like any other.
     */
    @Test
    void parseCacheBoundsEntriesAndCharacters() {
        SqlAnalyzer analyzer = new SqlAnalyzer(16);
        long budget = 16 * SqlAnalyzer.CHARS_PER_ENTRY;
        for (int i = 0; i < 1_000; i++) {
            analyzer.describe("SELECT " + i + "; SELECT 1");
            assertTrue(analyzer.cachedCount() <= 16);
        }
        assertEquals(16, analyzer.cachedCount());
        String hot = "SELECT 'hot'; -- " + "h".repeat(20_000);
        StatementDescription first = analyzer.describe(hot);
        for (int i = 0; i < 200; i++) {
            analyzer.describe("SELECT " + i + "; -- " + "x".repeat(10_000));
            assertTrue(analyzer.cachedChars() <= budget, analyzer.cachedChars() + " > " + budget);
            assertTrue(analyzer.cachedCount() <= 16);
            assertSame(first, analyzer.describe(hot), "a text in use stays cached");
        }
        String huge = "SELECT 'huge'; -- " + "z".repeat((int) budget);
        StatementDescription once = analyzer.describe(huge);
        assertNotSame(once, analyzer.describe(huge), "a text longer than the whole budget is not cached");
        assertTrue(analyzer.cachedChars() <= budget);
        assertSame(first, analyzer.describe(hot), "a text longer than the whole budget displaces nothing");
    }

    private static String tail(String output) {
        return output.length() <= 20_000 ? output : "..." + output.substring(output.length() - 20_000);
    }
}
