package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Tabulates the low-latency paired suite ({@code benchmarks/run.sh --paired}) from counts files: the proxy's
 * achieved delay ({@link ProxyDelayCheck}), the single-thread pairs ({@link LowLatencyPaired}) and the W8
 * throughput pairs ({@link W8PairedThroughput}). Forks of one configuration are pooled: the mean and 95% interval
 * are over all their pairs, and the range of the forks' own means is shown beside them. The goal column reads
 * {@code yes} when the whole interval of the speed against bare is at or above 0.98, {@code no} when it is below,
 * {@code ?} when it straddles 0.98.
 *
 * <pre>java -cp benchmarks.jar dev.flushless.benchmarks.PairedReport --counts counts.jsonl [--out paired.md]</pre>
 */
public final class PairedReport {

    static final double GOAL = 0.98;

    private PairedReport() {}

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
        Lines lines = read(countsFiles);
        StringBuilder md = new StringBuilder();
        pings(md, lines.pings);
        single(md, lines.single);
        threaded(md, lines.threaded);
        return md.toString();
    }

    /** The lines of counts files by kind: proxy pings, and the pairs by configuration (forks of one together). */
    static final class Lines {
        final List<JsonNode> pings = new ArrayList<>();
        /** One application thread ({@link LowLatencyPaired}): configuration -> its forks' {@code lowLatencyPair}s. */
        final Map<String, List<JsonNode>> single = new LinkedHashMap<>();
        /** W8 ({@link W8PairedThroughput}). */
        final Map<String, List<JsonNode>> threaded = new LinkedHashMap<>();
    }

    static Lines read(List<Path> countsFiles) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Lines lines = new Lines();
        for (Path file : countsFiles) {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode n = json.readTree(line);
                if (n.has("proxyPing")) {
                    lines.pings.add(n.get("proxyPing"));
                } else if (n.has("lowLatencyPair")) {
                    JsonNode r = n.get("lowLatencyPair");
                    // forks of one configuration: same benchmark and parameters (the line's params hold the variant)
                    String key = n.path("benchmark").asText() + "|"
                            + n.path("params").toString() + "|"
                            + r.path("variant").asText();
                    (r.has("threads") ? lines.threaded : lines.single)
                            .computeIfAbsent(key, k -> new ArrayList<>())
                            .add(r);
                }
            }
        }
        return lines;
    }

    /** The achieved proxy delay table ({@link ProxyDelayCheck}), if there are pings. */
    static void pings(StringBuilder md, List<JsonNode> pings) {
        if (!pings.isEmpty()) {
            md.append("#### Achieved proxy delay (SELECT 1 pings, bare pgjdbc)\n\n");
            md.append(
                    "| D (ms) | round trip median (ms) | p10 - p90 (ms) | direct median (ms) | achieved one-way (ms) |"
                            + " proxy lateness mean / max (µs) |\n|---:|---:|---:|---:|---:|---:|\n");
            for (JsonNode p : pings) {
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %.3f | %.3f - %.3f | %.3f | %.3f | %.0f / %.0f |\n",
                        trim(p.path("delayMs").asDouble()),
                        p.path("proxiedMedianMs").asDouble(),
                        p.path("proxiedP10Ms").asDouble(),
                        p.path("proxiedP90Ms").asDouble(),
                        p.path("directMedianMs").asDouble(),
                        p.path("achievedOneWayMs").asDouble(),
                        p.path("proxyMeanLatenessUs").asDouble(),
                        p.path("proxyMaxLatenessUs").asDouble()));
            }
            md.append('\n');
        }
    }

    private static void single(StringBuilder md, Map<String, List<JsonNode>> single) {
        if (!single.isEmpty()) {
            md.append("#### Paired, one application thread (speed = bare time / variant time per pair)\n\n");
            md.append("| workload | D (ms) | variant | forks x pairs x ops | speed vs bare (95% CI) | fork means |"
                    + " ms/op bare / variant | client CPU µs/op bare / variant | CPU ratio (95% CI) |"
                    + " round trips/op bare / variant | statements/op bare / variant | ping (ms) |"
                    + " proxy lateness µs bare / variant | warm-up s (JIT settled) | >= 0.98x |\n"
                    + "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
            for (List<JsonNode> forks : single.values()) {
                JsonNode f = forks.get(0);
                double[] speed = pooled(forks, "speedPerPair");
                double[] cpu = pooled(forks, "cpuRatioPerPair");
                md.append(String.format(
                        Locale.ROOT,
                        "| %s | %s | %s | %d x %d x %d | %s | %s | %.3f / %.3f | %.0f / %.0f | %s |"
                                + " %.2f / %.2f | %s / %s | %.3f | %.0f / %.0f | %s | %s |\n",
                        f.path("workload").asText(),
                        f.path("delayMs").asText(),
                        f.path("variant").asText(),
                        forks.size(),
                        f.path("pairs").asInt(),
                        f.path("opsPerBlock").asInt(),
                        interval(speed),
                        forkRange(forks),
                        avg(forks, "bareMsPerOp"),
                        avg(forks, "variantMsPerOp"),
                        avg(forks, "bareCpuUsPerOp"),
                        avg(forks, "variantCpuUsPerOp"),
                        interval(cpu),
                        avg(forks, "bareRoundTripsPerOp"),
                        avg(forks, "variantRoundTripsPerOp"),
                        avgOrNa(forks, "bareStatementsPerOp"),
                        avgOrNa(forks, "variantStatementsPerOp"),
                        avg(forks, "pingProxiedMedianMs"),
                        avg(forks, "bareProxyMeanLatenessUs"),
                        avg(forks, "variantProxyMeanLatenessUs"),
                        warmup(forks),
                        goal(speed)));
            }
            md.append('\n');
        }
    }

    private static void threaded(StringBuilder md, Map<String, List<JsonNode>> threaded) {
        if (!threaded.isEmpty()) {
            md.append(
                    "#### Paired W8, single-row autocommit INSERTs through HikariCP (speed = variant rows/s / bare rows/s"
                            + " per pair)\n\n");
            md.append("| threads | D (ms) | variant | forks x pairs x ms | speed vs bare (95% CI) | fork means |"
                    + " rows/s bare / variant | worker CPU µs/row bare / variant | CPU ratio (95% CI) |"
                    + " round trips/row bare / variant | statements/row bare / variant | mean group | rows match |"
                    + " proxy lateness µs bare / variant | warm-up s (JIT settled) | >= 0.98x |\n"
                    + "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---|\n");
            for (List<JsonNode> forks : threaded.values()) {
                JsonNode f = forks.get(0);
                double[] speed = pooled(forks, "speedPerPair");
                double[] cpu = pooled(forks, "cpuRatioPerPair");
                boolean match = forks.stream().allMatch(x -> x.path("rowsMatch").asBoolean());
                md.append(String.format(
                        Locale.ROOT,
                        "| %d | %s | %s | %d x %d x %d | %s | %s | %.0f / %.0f | %.0f / %.0f |"
                                + " %s | %.2f / %.2f | %s / %s | %.1f | %s | %.0f / %.0f | %s | %s |\n",
                        f.path("threads").asInt(),
                        f.path("delayMs").asText(),
                        f.path("variant").asText(),
                        forks.size(),
                        f.path("pairs").asInt(),
                        f.path("blockMs").asInt(),
                        interval(speed),
                        forkRange(forks),
                        avg(forks, "bareRowsPerSecond"),
                        avg(forks, "variantRowsPerSecond"),
                        avg(forks, "bareCpuUsPerOp"),
                        avg(forks, "variantCpuUsPerOp"),
                        interval(cpu),
                        avg(forks, "bareRoundTripsPerOp"),
                        avg(forks, "variantRoundTripsPerOp"),
                        avgOrNa(forks, "bareStatementsPerOp"),
                        avgOrNa(forks, "variantStatementsPerOp"),
                        avg(forks, "variantMeanGroupSize"),
                        match ? "yes" : "**NO**",
                        avg(forks, "bareProxyMeanLatenessUs"),
                        avg(forks, "variantProxyMeanLatenessUs"),
                        warmup(forks),
                        goal(speed)));
            }
            md.append('\n');
        }
    }

    /** Mean warm-up seconds over the forks, and whether the JIT settled in every fork (runs before it: "n/a"). */
    static String warmup(List<JsonNode> forks) {
        if (!forks.get(0).has("warmupSeconds")) {
            return "n/a";
        }
        boolean settled =
                forks.stream().allMatch(x -> x.path("warmupJitSettled").asBoolean());
        return String.format(Locale.ROOT, "%.1f (%s)", avg(forks, "warmupSeconds"), settled ? "yes" : "**no**");
    }

    /** The per-pair values at {@code path} (e.g. {@code "speedPerPair"}) of all the forks, pooled. */
    static double[] pooled(List<JsonNode> forks, String... path) {
        List<Double> all = new ArrayList<>();
        for (JsonNode f : forks) {
            JsonNode at = f;
            for (String p : path) {
                at = at.path(p);
            }
            at.forEach(v -> all.add(v.asDouble()));
        }
        return all.stream().mapToDouble(Double::doubleValue).toArray();
    }

    static String interval(double[] x) {
        double ci = PairStats.ci95(x);
        return Double.isNaN(ci)
                ? String.format(Locale.ROOT, "%.3f", PairStats.mean(x))
                : String.format(Locale.ROOT, "%.3f ± %.3f", PairStats.mean(x), ci);
    }

    private static String goal(double[] speed) {
        double m = PairStats.mean(speed);
        double ci = PairStats.ci95(speed);
        if (Double.isNaN(ci)) {
            return "?";
        }
        return m - ci >= GOAL ? "yes" : m + ci < GOAL ? "**no**" : "?";
    }

    private static String forkRange(List<JsonNode> forks) {
        if (forks.size() < 2) {
            return "";
        }
        double lo = Double.MAX_VALUE;
        double hi = -Double.MAX_VALUE;
        for (JsonNode f : forks) {
            double m = f.path("speed").asDouble();
            lo = Math.min(lo, m);
            hi = Math.max(hi, m);
        }
        return String.format(Locale.ROOT, "%.3f - %.3f", lo, hi);
    }

    static double avg(List<JsonNode> forks, String field) {
        return forks.stream()
                .mapToDouble(f -> f.path(field).asDouble(Double.NaN))
                .average()
                .orElse(Double.NaN);
    }

    static String avgOrNa(List<JsonNode> forks, String field) {
        if (forks.stream().anyMatch(f -> !f.has(field))) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", avg(forks, field));
    }

    static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
