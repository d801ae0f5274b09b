package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.LineMap;
import com.sun.source.tree.MethodTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreeScanner;
import com.sun.source.util.Trees;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;

/**
 * Keeps the hand-written main sources readable: no file over {@value #MAX_FILE_LINES} lines, no method (constructors
 * included; from its first modifier or annotation to its closing brace, Javadoc not counted) over
 * {@value #MAX_METHOD_LINES}. The generated pass-through classes ({@code wrapper/*Delegation.java}, written by
 * {@code DelegationSources} and held to it by {@code DelegationSourcesTest}) are exempt.
 *
 * <p>{@link #OVER_THE_LIMITS} lists what was over the limits when the test was written, in files that were being
 * changed for other issues at the time: split them when you next work there, then delete their entries (the test
 * fails on an entry that is no longer needed, so the list only shrinks). Do not add entries: split the file or the
 * method instead.
 */
class SourceSizeTest {

    static final int MAX_FILE_LINES = 600;
    static final int MAX_METHOD_LINES = 80;

    private static final Path MAIN = Path.of("src/main/java");

    /** Marks a file as generated (with its path, {@code wrapper/*Delegation.java}): its "do not edit" note. */
    private static final String GENERATED = "-Dtest=DelegationSourcesTest -Dflushless.regenerate=true";

    /**
     * Known excesses, by file under {@code src/main/java/dev/flushless/jdbc/}: {@code "file"} for the file's length,
     * a method name for that method (every method of that name in the file).
     */
    private static final Map<String, Set<String>> OVER_THE_LIMITS = Map.of();

    private static Map<String, List<String>> found;

    /** What is over a limit: {@code file -> ["file: N lines", "method: N lines (from line L)"]}. */
    private static synchronized Map<String, List<String>> excesses() throws IOException {
        if (found == null) {
            found = measure();
        }
        return found;
    }

    private static Map<String, List<String>> measure() throws IOException {
        List<Path> sources;
        try (Stream<Path> files = Files.walk(MAIN)) {
            sources = files.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        List<Path> handWritten = new ArrayList<>();
        for (Path source : sources) {
            if (!generated(source)) {
                handWritten.add(source);
            }
        }
        assertTrue(handWritten.size() > 50, "no main sources found under " + MAIN.toAbsolutePath());
        Map<String, List<String>> found = new TreeMap<>();
        for (Path source : handWritten) {
            long lines = Files.readAllLines(source, StandardCharsets.UTF_8).size();
            if (lines > MAX_FILE_LINES) {
                found.computeIfAbsent(name(source), k -> new ArrayList<>()).add("file: " + lines + " lines");
            }
        }
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, StandardCharsets.UTF_8)) {
            JavacTask task = (JavacTask) compiler.getTask(
                    null, files, null, List.of("-proc:none"), null, files.getJavaFileObjectsFromPaths(handWritten));
            SourcePositions positions = Trees.instance(task).getSourcePositions();
            for (CompilationUnitTree unit : task.parse()) {
                String name = name(Path.of(unit.getSourceFile().toUri()));
                LineMap lines = unit.getLineMap();
                new TreeScanner<Void, Void>() {
                    @Override
                    public Void visitMethod(MethodTree method, Void unused) {
                        long first = lines.getLineNumber(positions.getStartPosition(unit, method));
                        long last = lines.getLineNumber(positions.getEndPosition(unit, method));
                        if (last - first + 1 > MAX_METHOD_LINES) {
                            found.computeIfAbsent(name, k -> new ArrayList<>())
                                    .add(method.getName() + ": " + (last - first + 1) + " lines (from line " + first
                                            + ")");
                        }
                        return super.visitMethod(method, unused);
                    }
                }.scan(unit, null);
            }
        }
        return found;
    }

    private static boolean generated(Path source) throws IOException {
        return source.getParent().endsWith(Path.of("dev/flushless/jdbc/wrapper"))
                && source.getFileName().toString().endsWith("Delegation.java")
                && Files.readString(source, StandardCharsets.UTF_8).contains(GENERATED);
    }

    /** The path under {@code dev/flushless/jdbc/}. */
    private static String name(Path source) {
        return MAIN.toAbsolutePath()
                .resolve("dev/flushless/jdbc")
                .relativize(source.toAbsolutePath())
                .toString()
                .replace('\\', '/');
    }

    private static String what(String excess) {
        return excess.substring(0, excess.indexOf(':'));
    }

    @Test
    void handWrittenSourcesStayWithinTheLimits() throws IOException {
        List<String> over = new ArrayList<>();
        excesses().forEach((file, list) -> {
            for (String excess : list) {
                if (!OVER_THE_LIMITS.getOrDefault(file, Set.of()).contains(what(excess))) {
                    over.add(file + " " + excess);
                }
            }
        });
        assertEquals(
                List.of(),
                over,
                "over the limits (files " + MAX_FILE_LINES + " lines, methods " + MAX_METHOD_LINES
                        + "): split the class by what its parts do, or the method into named steps");
    }

    @Test
    void everyKnownExcessIsStillThere() throws IOException {
        Map<String, List<String>> found = excesses();
        List<String> stale = new ArrayList<>();
        OVER_THE_LIMITS.forEach((file, names) -> {
            for (String name : names) {
                if (found.getOrDefault(file, List.of()).stream().noneMatch(e -> what(e).equals(name))) {
                    stale.add(file + " " + name);
                }
            }
        });
        assertEquals(
                List.of(), stale, "within the limits now: delete these entries from SourceSizeTest.OVER_THE_LIMITS");
    }

    @Test
    void theGeneratedDelegationIsRecognised() throws IOException {
        Path connection = MAIN.resolve("dev/flushless/jdbc/wrapper/ConnectionDelegation.java");
        assertTrue(generated(connection), connection + " should be recognised as generated");
        assertFalse(generated(MAIN.resolve("dev/flushless/jdbc/wrapper/WrappedConnection.java")));
    }
}
