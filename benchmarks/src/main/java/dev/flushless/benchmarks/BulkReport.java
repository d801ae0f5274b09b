package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Tabulates the bulk suite ({@code benchmarks/run.sh --bulk}) from counts files: per workload, delay and Flushless
 * variant, its speed against each of the three baselines of the same trial, bare pgjdbc ({@code ×bare}), pgjdbc with
 * {@code reWriteBatchedInserts=true} ({@code ×flag}) and hand-written COPY ({@code ×copy}). A speed is the mean over
 * the rounds of the baseline's time divided by the variant's in the same round (above 1: the variant is faster), with
 * its 95% interval; forks of one configuration are pooled, as in {@link PairedReport}. Beside them, per side: time,
 * round trips and server statements per operation. A second table compares the baselines with each other the same way.
 *
 * <pre>java -cp benchmarks.jar dev.flushless.benchmarks.BulkReport --counts counts.jsonl [--out bulk.md]</pre>
 */
public final class BulkReport {

    /** The baselines, in the order of the columns, and their column names. */
    static final List<String> BASELINES = List.of("bare", "rewrite", "copy");

    static final List<String> COLUMNS = List.of("×bare", "×flag", "×copy");

    private BulkReport() {}

    public static void main(String[] args) throws IOException {
        List<Path> counts = new ArrayList<>();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--counts" -> counts.add(Path.of(args[++i]));
                case "--out" -> out = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        String md = render(counts);
        System.out.print(md);
        if (out != null) {
            Files.writeString(out, md, StandardCharsets.UTF_8);
        }
    }

    static String render(List<Path> countsFiles) throws IOException {
        PairedReport.Lines lines = PairedReport.read(countsFiles);
        List<List<JsonNode>> flushless = new ArrayList<>();
        List<List<JsonNode>> baselines = new ArrayList<>();
        for (List<JsonNode> forks : lines.single.values()) {
            if (forks.get(0).has("baselines")) { // written since the bulk suite (every LowLatencyPaired line)
                (isBaseline(forks.get(0)) ? baselines : flushless).add(forks);
            }
        }
        StringBuilder md = new StringBuilder();
        PairedReport.pings(md, lines.pings);
        table(
                md,
                "Bulk, Flushless against the three baselines (speed = baseline time / variant time per round)",
                flushless);
        table(md, "Bulk, the baselines against each other (same reading)", baselines);
        return md.toString();
    }

    private static boolean isBaseline(JsonNode pair) {
        return Variant.of(pair.path("variant").asText()).baseline();
    }

    private static void table(StringBuilder md, String title, List<List<JsonNode>> rows) {
        if (rows.isEmpty()) {
            return;
        }
        md.append("#### ").append(title).append("\n\n");
        md.append("| workload | D (ms) | variant | forks x rounds x ops | ×bare (95% CI) | ×flag (95% CI) |"
                + " ×copy (95% CI) | ms/op bare / flag / copy / variant | round trips/op bare / flag / copy / variant |"
                + " statements/op bare / flag / copy / variant | warm-up s (JIT settled) |\n"
                + "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        for (List<JsonNode> forks : rows) {
            JsonNode f = forks.get(0);
            List<String> speeds = new ArrayList<>();
            for (String b : BASELINES) {
                double[] speed = PairedReport.pooled(forks, "baselines", b, "speedPerPair");
                speeds.add(speed.length == 0 ? "–" : PairedReport.interval(speed));
            }
            md.append(String.format(
                    Locale.ROOT,
                    "| %s | %s | %s | %d x %d x %d | %s | %s | %s | %s | %s | %s | %s |\n",
                    f.path("workload").asText(),
                    f.path("delayMs").asText(),
                    f.path("variant").asText(),
                    forks.size(),
                    f.path("pairs").asInt(),
                    f.path("opsPerBlock").asInt(),
                    speeds.get(0),
                    speeds.get(1),
                    speeds.get(2),
                    perSide(forks, "MsPerOp", v -> String.format(Locale.ROOT, "%.2f", v)),
                    perSide(forks, "RoundTripsPerOp", v -> String.format(Locale.ROOT, "%.1f", v)),
                    perSide(forks, "StatementsPerOp", v -> String.format(Locale.ROOT, "%.1f", v)),
                    PairedReport.warmup(forks)));
        }
        md.append('\n');
    }

    /** {@code bare / flag / copy / variant} of one per-operation figure (mean over the forks; "–": no such side). */
    private static String perSide(List<JsonNode> forks, String figure, Function<Double, String> format) {
        List<String> values = new ArrayList<>();
        for (String b : BASELINES) {
            values.add(figure(forks, f -> f.path("baselines").path(b), "baseline" + figure, format));
        }
        values.add(figure(forks, f -> f, "variant" + figure, format));
        return String.join(" / ", values);
    }

    private static String figure(
            List<JsonNode> forks, Function<JsonNode, JsonNode> at, String field, Function<Double, String> format) {
        if (at.apply(forks.get(0)).isMissingNode()) {
            return "–"; // no such side in the trial (or the variant itself)
        }
        if (forks.stream().anyMatch(f -> !at.apply(f).has(field))) {
            return "n/a"; // not counted (server statements without pg_stat_statements)
        }
        return format.apply(forks.stream()
                .mapToDouble(f -> at.apply(f).path(field).asDouble())
                .average()
                .orElse(Double.NaN));
    }
}
