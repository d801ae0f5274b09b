package dev.flushless.jdbc.tools;

import dev.flushless.jdbc.batch.BatchPlan;
import java.io.PrintStream;
import java.util.List;

/**
 * How {@code explain} renders: plain lines, explanation lines wrapped at about 110 characters, SQL shortened unless
 * {@code --full-sql}, counts with their nouns. It decides nothing; the explaining classes hand it their findings.
 */
final class ExplainPrinter {

    private static final int SQL_SHOWN = 1500;

    private final PrintStream out;
    private final boolean fullSql;

    ExplainPrinter(PrintStream out, boolean fullSql) {
        this.out = out;
        this.fullSql = fullSql;
    }

    /** Prints {@code line} as it is. */
    void println(String line) {
        out.println(line);
    }

    /** Prints an empty line. */
    void println() {
        out.println();
    }

    /** Prints one explanation line, indented, wrapped at about 110 characters. */
    void say(String text) {
        StringBuilder line = new StringBuilder("  ");
        for (String word : text.split(" ")) {
            if (line.length() > 2 && line.length() + 1 + word.length() > 110) {
                out.println(line);
                line.setLength(0);
                line.append("  ");
            }
            line.append(line.length() > 2 ? " " : "").append(word);
        }
        out.println(line);
    }

    /** Prints {@code sql} (shortened unless --full-sql), every line indented by {@code prefix}. */
    void sql(String sql, String prefix) {
        out.println(indent(shown(sql), prefix));
    }

    /** Prints the statements a flush sends, numbered. */
    void flushSteps(List<BatchPlan.Step> steps) {
        for (int i = 0; i < steps.size(); i++) {
            out.println("    flush statement " + (i + 1) + " of " + steps.size() + ":");
            sql(steps.get(i).sql(), "      ");
        }
    }

    /** The heading line of statement {@code number} at {@code line} of the script. */
    void statementHeading(int number, int line, String sql) {
        out.println("[" + number + "] line " + line + ": "
                + oneLine(sql.substring(ExplainScript.firstSignificant(sql, 0, sql.length()))));
    }

    private String shown(String sql) {
        if (fullSql || sql.length() <= SQL_SHOWN) {
            return sql;
        }
        int head = SQL_SHOWN * 2 / 3;
        int tail = SQL_SHOWN - head;
        return sql.substring(0, head) + "\n... (" + (sql.length() - head - tail)
                + " characters left out; --full-sql prints them) ...\n" + sql.substring(sql.length() - tail);
    }

    /** {@code n noun}, with an s unless {@code n} is 1. */
    static String plural(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    /** "in one round trip" or "in N round trips". */
    static String inTrips(int trips) {
        return trips == 1 ? "in one round trip" : "in " + trips + " round trips";
    }

    /** Statement numbers as {@code [1], [2], [3]}, long lists shortened. */
    static String numbers(List<Integer> numbers) {
        if (numbers.size() <= 6) {
            StringBuilder sb = new StringBuilder();
            for (int n : numbers) {
                sb.append(sb.length() > 0 ? ", " : "").append('[').append(n).append(']');
            }
            return sb.toString();
        }
        return "[" + numbers.get(0) + "], [" + numbers.get(1) + "], ..., [" + numbers.get(numbers.size() - 1) + "]";
    }

    private static String indent(String text, String prefix) {
        return prefix + text.replace("\n", "\n" + prefix);
    }

    private static String oneLine(String sql) {
        String flat = sql.replaceAll("\\s+", " ").trim();
        return flat.length() <= 160 ? flat : flat.substring(0, 157) + "...";
    }
}
