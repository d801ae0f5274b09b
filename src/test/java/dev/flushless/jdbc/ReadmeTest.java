package dev.flushless.jdbc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README and the user guide true: the guide's property table matches {@link FlushlessProperty} and its
 * fallback-reason table {@link FallbackReason}; CI calls the README's test and demo commands; every relative link in
 * the project's Markdown files points at a file that exists (and at a heading of it, for an anchor).
 */
class ReadmeTest {

    /** The user guide, which holds the reference tables. */
    static final Path GUIDE = Path.of("docs/guide.md");

    private static String readme() throws IOException {
        return Files.readString(Path.of("README.md"));
    }

    private static String guide() throws IOException {
        return Files.readString(GUIDE);
    }

    @Test
    void propertyTableMatchesTheEnum() throws IOException {
        String guide = guide();
        int start = guide.indexOf("<!-- properties:start -->");
        int end = guide.indexOf("<!-- properties:end -->");
        assertTrue(start >= 0 && end > start, GUIDE + " lacks the properties:start/end markers");
        List<String> documented = new ArrayList<>();
        for (String line : guide.substring(start, end).split("\n")) {
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
                "the guide's property table drifted from FlushlessProperty; copy the expected rows into " + GUIDE);
    }

    /**
     * The guide's fallback-reason table lists every {@link dev.flushless.jdbc.FallbackReason} code (the report's keys
     * and the metric tag's values) with its text, details shown as "…".
     */
    @Test
    void fallbackReasonTableMatchesTheEnum() throws IOException {
        String guide = guide();
        int start = guide.indexOf("<!-- fallback-reasons:start -->");
        int end = guide.indexOf("<!-- fallback-reasons:end -->");
        assertTrue(start >= 0 && end > start, GUIDE + " lacks the fallback-reasons:start/end markers");
        List<String> documented = new ArrayList<>();
        for (String line : guide.substring(start, end).split("\n")) {
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
                "the guide's fallback-reason table drifted from FallbackReason; copy the expected rows into " + GUIDE);
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

    /** The README stays a first screen: the reference lives in the guide. */
    @Test
    void readmeIsShort() throws IOException {
        long lines = readme().lines().count();
        assertTrue(lines < 200, "README.md has " + lines + " lines: move reference material to " + GUIDE);
    }

    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    /**
     * Every relative link of every Markdown file (outside build output) points at a file or directory that exists,
     * and an anchor at a heading of the Markdown file it names, slugged as GitHub does (lower case, punctuation
     * dropped, spaces to hyphens, repeated headings numbered). Keeps moved sections and pruned run records from
     * leaving dead links.
     */
    @Test
    void everyRelativeLinkInTheDocsResolves() throws IOException {
        List<Path> markdown;
        try (Stream<Path> files = Files.walk(Path.of("."))) {
            markdown = files.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> {
                        for (Path part : p) {
                            String name = part.toString();
                            if (name.equals("target") || name.equals(".git") || name.equals("node_modules")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted()
                    .toList();
        }
        assertTrue(markdown.contains(Path.of("./docs/guide.md")), "no Markdown files found: " + markdown);
        List<String> broken = new ArrayList<>();
        for (Path file : markdown) {
            String text = Files.readString(file).replaceAll("(?s)```.*?```", "");
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String link = m.group(1);
                if (link.matches("^[a-zA-Z][a-zA-Z+.-]*:.*")) {
                    continue; // https:, mailto:
                }
                int hash = link.indexOf('#');
                String path = hash < 0 ? link : link.substring(0, hash);
                String anchor = hash < 0 ? "" : link.substring(hash + 1);
                Path target =
                        path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                if (!Files.exists(target)) {
                    broken.add(file + ": " + link + " (no such file)");
                } else if (!anchor.isEmpty()
                        && target.toString().endsWith(".md")
                        && !anchors(target).contains(anchor)) {
                    broken.add(file + ": " + link + " (no such heading)");
                }
            }
        }
        assertEquals(List.of(), broken, "dead links in the documentation");
    }

    /** The anchors GitHub gives the headings of a Markdown file. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        Map<String, Integer> seen = new HashMap<>();
        boolean code = false;
        for (String line : Files.readAllLines(markdown)) {
            if (line.startsWith("```")) {
                code = !code;
                continue;
            }
            Matcher m = HEADING.matcher(line);
            if (code || !m.matches()) {
                continue;
            }
            String slug = m.group(1)
                    .toLowerCase(Locale.ROOT)
                    .replaceAll("[^\\p{L}\\p{N}_\\- ]", "")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }
}
