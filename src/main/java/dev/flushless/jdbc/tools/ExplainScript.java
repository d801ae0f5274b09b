package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.analysis.SqlAnalyzer;
import dev.flushless.jdbc.analysis.StatementDescription;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The script {@code explain} reads: its text (UTF-8, from a file or stdin), split at top-level {@code ;} by the
 * driver's own {@link SqlAnalyzer#statementSpans} and described by its {@link SqlAnalyzer}.
 */
final class ExplainScript {

    private ExplainScript() {}

    /** One statement of the script: its number (from 1), the line it starts on, and the driver's description. */
    record Item(int number, int line, StatementDescription description) {
        boolean isWrite() {
            StatementDescription.Kind kind = description.kind();
            return kind.isWrite();
        }

        boolean parameterless() {
            return description.parameterCount() == 0 && description.isSingleStatement();
        }
    }

    /** The statements of {@code script}, described by the driver's analyzer. */
    static List<Item> items(String script) {
        SqlAnalyzer analyzer = new SqlAnalyzer(4096);
        List<Item> items = new ArrayList<>();
        int line = 1;
        int counted = 0; // newlines before this offset are in line
        for (int[] span : SqlAnalyzer.statementSpans(script)) {
            int start = firstSignificant(script, span[0], span[1]);
            for (; counted < start; counted++) {
                if (script.charAt(counted) == '\n') {
                    line++;
                }
            }
            items.add(new Item(items.size() + 1, line, analyzer.describe(script.substring(span[0], span[1]))));
        }
        return items;
    }

    /** The text of {@code file} ({@code -}: {@code in}), which must be UTF-8. */
    static String read(String file, InputStream in) throws Explain.UsageException {
        String name = file.equals("-") ? "stdin" : file;
        byte[] bytes;
        try {
            if (file.equals("-")) {
                bytes = in.readAllBytes();
            } else {
                Path path = Path.of(file);
                if (Files.isDirectory(path)) {
                    throw new Explain.UsageException("cannot read " + name + ": it is a directory");
                }
                bytes = Files.readAllBytes(path);
            }
        } catch (NoSuchFileException e) {
            throw new Explain.UsageException("cannot read " + name + ": no such file");
        } catch (AccessDeniedException e) {
            throw new Explain.UsageException("cannot read " + name + ": permission denied");
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new Explain.UsageException("cannot read " + name + ": " + e.getMessage());
        }
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new Explain.UsageException("cannot read " + name + ": not UTF-8 text");
        }
    }

    /** The offset of the first character after leading whitespace and comments in {@code [start, end)}. */
    static int firstSignificant(String sql, int start, int end) {
        int i = start;
        while (i < end) {
            if (Character.isWhitespace(sql.charAt(i))) {
                i++;
            } else if (sql.startsWith("--", i)) {
                int eol = sql.indexOf('\n', i);
                i = eol < 0 || eol >= end ? end : eol + 1;
            } else if (sql.startsWith("/*", i)) {
                int close = sql.indexOf("*/", i + 2);
                i = close < 0 || close + 2 > end ? end : close + 2;
            } else {
                return i;
            }
        }
        return start;
    }
}
