package dev.flushless.demo;

import dev.flushless.demo.Run.Result;
import dev.flushless.demo.Run.Variant;
import dev.flushless.jdbc.stats.YugabyteFlushModel;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToLongFunction;

/**
 * The demo's table: per variant (bare pgjdbc, then each Flushless mode) the server statements, client round trips
 * and modelled YugabyteDB flushes of the first delay's runs, the wall time at every delay, and whether every run left
 * the same rows; then the notes and Flushless's own report.
 */
final class ResultTable {

    private ResultTable() {}

    /**
     * One row of the table: a name, then per variant a value and (for the Flushless variants) its change against
     * bare pgjdbc.
     */
    private record Row(String name, String[] values, String[] changes) {}

    /**
     * Prints the table. {@code runs.get(d).get(v)} is variant {@code v} at delay {@code d} (variant 0 is bare
     * pgjdbc); {@code differences} has the same shape: null where the run's data is identical to the first run's,
     * else its first difference. {@code lateness} is the proxy's mean and max lateness (µs) per delay, null for D = 0.
     */
    static String render(
            String serverDescription,
            List<List<Result>> runs,
            List<List<String>> differences,
            List<double[]> lateness) {
        List<Result> first = runs.get(0);
        int n = first.size();
        boolean stats = first.stream().allMatch(r -> r.server() != null);
        List<Row> rows = new ArrayList<>();
        rows.add(counts(
                "server statements (pg_stat_statements)",
                first,
                r -> stats ? r.server().statements() : -1));
        rows.add(counts(
                "  of which INSERT/UPDATE/DELETE",
                first,
                r -> stats ? r.server().writes() : -1));
        rows.add(counts("client round trips", first, Result::roundTrips));
        rows.add(counts("YugabyteDB flushes, modelled (*)", first, r -> flushes(r, first)));
        for (List<Result> atDelay : runs) {
            rows.add(wallTime(atDelay));
        }
        rows.add(dataRow(runs, differences));

        StringBuilder out = new StringBuilder("\n");
        table(out, rows, first);
        notes(out, serverDescription, runs, lateness, stats);
        report(out, first);
        verdict(out, runs, differences);
        return out.toString();
    }

    /**
     * Flushes of one run by the driver's YugabyteDB flush model ({@code stats/YugabyteFlushModel}), plus one per COMMIT:
     * a Flushless run's own estimate of the statements it sent; for bare pgjdbc the model's figure for the statements
     * the application issued, as a Flushless run of the same workload reports it (bare pgjdbc sends them as issued).
     */
    private static long flushes(Result r, List<Result> runs) {
        long commits = r.commits() * YugabyteFlushModel.UNBATCHED_ON_CONFLICT.commit();
        if (r.variant().mode != null) {
            return r.flushless().flushesAfter() + commits;
        }
        return runs.stream()
                        .filter(o -> o.variant().mode != null)
                        .mapToLong(o -> o.flushless().flushesBefore())
                        .findFirst()
                        .orElse(-1 - commits)
                + commits;
    }

    private static Row wallTime(List<Result> atDelay) {
        Result bare = atDelay.get(0);
        int n = atDelay.size();
        String[] times = new String[n];
        String[] speed = new String[n];
        for (int i = 0; i < n; i++) {
            Result r = atDelay.get(i);
            times[i] = Demo.seconds(r.nanos());
            speed[i] = i == 0
                    ? ""
                    : bare.nanos() >= r.nanos()
                            ? String.format(Locale.ROOT, "%.2fx faster", (double) bare.nanos() / Math.max(1, r.nanos()))
                            : String.format(
                                    Locale.ROOT, "%.2fx slower", (double) r.nanos() / Math.max(1, bare.nanos()));
        }
        return new Row("wall time, " + Demo.delayLabel(bare.delayMs()), times, speed);
    }

    private static Row dataRow(List<List<Result>> runs, List<List<String>> differences) {
        int n = runs.get(0).size();
        String[] data = new String[n];
        String[] none = new String[n];
        for (int v = 0; v < n; v++) {
            boolean identical = true;
            for (List<String> atDelay : differences) {
                identical &= atDelay.get(v) == null;
            }
            data[v] = v == 0 && runs.size() == 1 ? "" : identical ? "identical" : "DIFFERENT";
            none[v] = "";
        }
        return new Row("resulting data (every table, by PK)", data, none);
    }

    /** Each variant's column: the value right-aligned, then its change against bare pgjdbc left-aligned. */
    private static void table(StringBuilder out, List<Row> rows, List<Result> first) {
        int n = first.size();
        int nameWidth = 0;
        int[] valueWidth = new int[n];
        int[] changeWidth = new int[n];
        for (Row row : rows) {
            nameWidth = Math.max(nameWidth, row.name().length());
            for (int i = 0; i < n; i++) {
                valueWidth[i] = Math.max(valueWidth[i], row.values()[i].length());
                changeWidth[i] = Math.max(changeWidth[i], row.changes()[i].length());
            }
        }
        int[] width = new int[n];
        for (int i = 0; i < n; i++) {
            width[i] =
                    Math.max(first.get(i).variant().title.length(), valueWidth[i] + (i == 0 ? 0 : 2 + changeWidth[i]));
            valueWidth[i] = width[i] - (i == 0 ? 0 : 2 + changeWidth[i]);
        }
        StringBuilder header = new StringBuilder(" ".repeat(nameWidth));
        for (int i = 0; i < n; i++) {
            String title = first.get(i).variant().title;
            header.append(" | ").append(pad(title, width[i], i == 0));
        }
        String rule = "-".repeat(header.length());
        out.append(header.toString().stripTrailing()).append('\n').append(rule).append('\n');
        for (Row row : rows) {
            StringBuilder line = new StringBuilder(pad(row.name(), nameWidth, false));
            for (int i = 0; i < n; i++) {
                line.append(" | ").append(pad(row.values()[i], valueWidth[i], true));
                if (i > 0) {
                    line.append("  ").append(pad(row.changes()[i], changeWidth[i], false));
                }
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
        out.append(rule).append('\n');
    }

    private static void notes(
            StringBuilder out,
            String serverDescription,
            List<List<Result>> runs,
            List<double[]> lateness,
            boolean stats) {
        List<Result> first = runs.get(0);
        Result bare = first.get(0);
        boolean sameCommits = first.stream().allMatch(r -> r.commits() == bare.commits());
        String commits = sameCommits
                ? String.format(Locale.ROOT, "%,d transactions in each run", bare.commits())
                : String.join(
                                ", ",
                                first.stream()
                                        .map(r -> String.format(Locale.ROOT, "%s %,d", r.variant().label, r.commits()))
                                        .toList())
                        + " transactions";
        out.append(Demo.wrap(
                "(*) a model, not a measurement: the driver's YugabyteDB flush model (stats/YugabyteFlushModel,"
                        + " docs/semantics.md) applied to the statements each run sent, as Flushless's report counts"
                        + " them (bare pgjdbc: one per write statement the application issued, which bare pgjdbc sends"
                        + " as issued; a statement writing more than 3,072 rows costs one more per 3,072, and a"
                        + " multi-row INSERT ... ON CONFLICT one per row, as on releases that do not batch ON CONFLICT),"
                        + " plus one per COMMIT ("
                        + commits
                        + ", counted by the workload). The run itself was on "
                        + serverDescription
                        + ".",
                104,
                "    "));
        if (!stats) {
            out.append("    Server statements n/a: pg_stat_statements is not preloaded or not readable there.\n");
        }
        StringBuilder delays = new StringBuilder("Latency: D is the delay added to each direction of every connection");
        delays.append(" by the project's latency proxy (a user-space TCP proxy from the driver's test-jar), so a round")
                .append(" trip costs 2 x D more; D = 0 connects directly. At every delay each variant ran the same")
                .append(" workload " + Demo.ROUNDS + " times into fresh databases, the variants in alternating order;")
                .append(" the wall time is the faster run (other work on the machine only adds time), the other counts")
                .append(" are the first delay's")
                .append(sameCounts(runs) ? " (the same at every delay)." : "; " + countsElsewhere(runs) + ".");
        for (int d = 0; d < runs.size(); d++) {
            if (lateness.get(d) != null) {
                delays.append(String.format(
                        Locale.ROOT,
                        " At %s the proxy sent its chunks %.0f µs late on average (max %.0f µs).",
                        Demo.delayTag(runs.get(d).get(0).delayMs()),
                        lateness.get(d)[0],
                        lateness.get(d)[1]));
            }
        }
        List<Result> last = runs.get(runs.size() - 1);
        double largest = last.get(0).delayMs();
        if (largest > 0) {
            delays.append(String.format(Locale.ROOT, " At D = %s ms the round trips alone take", Demo.millis(largest)));
            for (int v = 0; v < first.size(); v++) {
                Result r = first.get(v);
                delays.append(String.format(
                        Locale.ROOT,
                        "%s %.2f s of %s's time",
                        v == 0 ? "" : v == first.size() - 1 ? " and" : ",",
                        r.roundTrips() * 2 * largest / 1000,
                        r.variant().title));
            }
            delays.append(" (round trips x 2 x D); the rest is client and server work, which batch mode shrinks by"
                    + " sending fewer statements.");
        }
        delays.append(" Runs this short vary by 10-20 % from one to the next on a busy machine (the server and the"
                + " proxy share its CPUs); the statements, round trips and data do not.");
        out.append(Demo.wrap(delays.toString(), 104, "    "));
        out.append(Demo.wrap(roundTripNote(first), 104, "    "));
    }

    /** Whether every delay's run of each variant sent the same statements and round trips as the first delay's. */
    private static boolean sameCounts(List<List<Result>> runs) {
        return countsElsewhere(runs).isEmpty();
    }

    /** The round trips and server statements of the later delays' runs that differ from the first delay's. */
    private static String countsElsewhere(List<List<Result>> runs) {
        List<String> differing = new ArrayList<>();
        for (List<Result> atDelay : runs.subList(1, runs.size())) {
            for (int v = 0; v < atDelay.size(); v++) {
                Result first = runs.get(0).get(v);
                Result r = atDelay.get(v);
                if (r.roundTrips() != first.roundTrips()
                        || (r.server() != null && !r.server().equals(first.server()))) {
                    differing.add(String.format(
                            Locale.ROOT,
                            "%s at %s: %,d round trips%s",
                            r.variant().label,
                            Demo.delayTag(r.delayMs()),
                            r.roundTrips(),
                            r.server() == null
                                    ? ""
                                    : String.format(
                                            Locale.ROOT,
                                            ", %,d statements",
                                            r.server().statements())));
                }
            }
        }
        return String.join("; ", differing);
    }

    private static String roundTripNote(List<Result> first) {
        StringBuilder note =
                new StringBuilder("Round trips: counted on the client's sockets (write-to-read turns), pool"
                        + " start-up excluded; per phase in the progress lines above.");
        if (first.stream().anyMatch(r -> r.variant() == Variant.BATCH)) {
            note.append(" pgjdbc already sends each JDBC batch in one round trip, so batch mode saves statements, not"
                    + " round trips: its gain grows with the server's work per statement, not with D.");
        }
        if (first.stream().anyMatch(r -> r.variant() == Variant.TRANSACTION)) {
            note.append(" Transaction mode buffers each transaction's INSERTs and sends them with the first statement"
                    + " that needs them (an UPDATE or DELETE batch rides along in its round trip) or with the commit."
                    + " The round trips left are reads, sequence fetches (Hibernate's nextval sends nothing buffered:"
                    + " these tables take their ids from Hibernate, not from sequence defaults), and the"
                    + " UPDATE/DELETE batches after the first, whose counts Hibernate checks at once (the cancellations"
                    + " alternate DELETE batches of an order's lines and of the order: about two round trips per order"
                    + " in every run).");
        }
        return note.toString();
    }

    private static void report(StringBuilder out, List<Result> first) {
        for (Result r : first) {
            if (r.variant().mode == null) {
                continue;
            }
            out.append(String.format(
                    Locale.ROOT,
                    "%nFlushless's own report (flushless.mode=%s run, %s): %,d statements issued"
                            + " by the application, %,d sent%n",
                    r.variant().mode,
                    Demo.delayTag(r.delayMs()),
                    r.flushless().issued(),
                    r.flushless().sent()));
            out.append("  rewrites by kind (rows): ")
                    .append(describe(r.flushless().rewrites()))
                    .append('\n');
            out.append("  fallbacks by reason (rows run as sent): ")
                    .append(describe(r.flushless().fallbacks()))
                    .append('\n');
        }
        out.append('\n');
    }

    private static void verdict(StringBuilder out, List<List<Result>> runs, List<List<String>> differences) {
        boolean identical = true;
        int databases = 0;
        for (int d = 0; d < runs.size(); d++) {
            for (int v = 0; v < runs.get(d).size(); v++) {
                databases += Demo.ROUNDS;
                String difference = differences.get(d).get(v);
                if (difference != null) {
                    identical = false;
                    Result r = runs.get(d).get(v);
                    out.append("DATA DIFFERS between the first bare pgjdbc run and ")
                            .append(r.variant().title)
                            .append(r.variant().mode == null ? "" : " (flushless.mode=" + r.variant().mode + ")")
                            .append(" at ")
                            .append(Demo.delayTag(r.delayMs()))
                            .append(": ")
                            .append(difference)
                            .append('\n');
                }
            }
        }
        if (identical) {
            out.append("Data: identical (every table's rows, ordered by primary key, in ")
                    .append(databases == 2 ? "both" : "all " + databases)
                    .append(" databases).\n");
        }
    }

    private static String pad(String text, int width, boolean right) {
        String fill = " ".repeat(Math.max(0, width - text.length()));
        return right ? fill + text : text + fill;
    }

    /** A row of counts, each Flushless one with its change against bare pgjdbc (n/a where a count is negative). */
    private static Row counts(String name, List<Result> results, ToLongFunction<Result> count) {
        int n = results.size();
        String[] values = new String[n];
        String[] changes = new String[n];
        long bare = count.applyAsLong(results.get(0));
        for (int i = 0; i < n; i++) {
            long value = count.applyAsLong(results.get(i));
            values[i] = value < 0 ? "n/a" : String.format(Locale.ROOT, "%,d", value);
            changes[i] = i == 0 || value < 0 || bare < 0 ? "" : ratio(bare, value, "fewer", "more");
        }
        return new Row(name, values, changes);
    }

    private static String ratio(long bare, long flushless, String better, String worse) {
        if (bare == flushless) {
            return "same";
        }
        if (flushless == 0) {
            return "all gone";
        }
        double r = (double) bare / flushless;
        if (r > 1 / 1.25 && r < 1.25) {
            return String.format(Locale.ROOT, "%+.1f %%", 100.0 * (flushless - bare) / bare);
        }
        return r >= 1
                ? String.format(Locale.ROOT, "%.1fx %s", r, better)
                : String.format(Locale.ROOT, "%.1fx %s", 1 / r, worse);
    }

    private static String describe(Map<String, Long> counts) {
        if (counts.isEmpty()) {
            return "none";
        }
        StringBuilder sb = new StringBuilder();
        counts.forEach((k, v) -> sb.append(sb.length() == 0 ? "" : ", ")
                .append(k)
                .append(' ')
                .append(String.format(Locale.ROOT, "%,d", v)));
        return sb.toString();
    }
}
