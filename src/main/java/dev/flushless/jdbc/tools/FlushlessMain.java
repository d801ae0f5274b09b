package dev.flushless.jdbc.tools;

import java.io.InputStream;
import java.io.PrintStream;
import java.util.Arrays;

/**
 * The driver jar's command line ({@code Main-Class}): {@code explain} and usage. The logic lives in
 * {@link #run}, which returns the exit code and writes only to the streams it is given.
 */
public final class FlushlessMain {

    static final String USAGE = String.join(
            "\n",
            "usage: java -cp <flushless jar and its dependencies> dev.flushless.jdbc.tools.FlushlessMain <command> [options]",
            "",
            "commands:",
            "  explain [--mode batch|transaction] [--rows N] [--max-rows N] [--url JDBC_URL] [--full-sql] FILE|-",
            "      how Flushless would group and rewrite the SQL statements in FILE (- reads stdin)",
            "  help",
            "      this text",
            "",
            "'explain --help' describes the explain options.");

    private FlushlessMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.in, System.out, System.err));
    }

    /** Runs a command; returns the exit code (0 ok, 2 bad arguments or input, 1 unexpected failure). */
    public static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
        if (args.length == 0) {
            err.println(USAGE);
            return 2;
        }
        switch (args[0]) {
            case "explain":
                return Explain.run(Arrays.copyOfRange(args, 1, args.length), in, out, err);
            case "help":
            case "--help":
            case "-h":
                out.println(USAGE);
                return 0;
            default:
                err.println("flushless: unknown command '" + args[0] + "'");
                err.println(USAGE);
                return 2;
        }
    }
}
