package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Turns the JMH JSON results and the per-trial counts of a run into the results section of
 * {@code docs/benchmarks-suite.md} (tables of times, speedups against bare pgjdbc in the same run, round trips
 * and server statements per operation) and PNG charts (XChart).
 *
 * <pre>
 * java -cp benchmarks.jar dev.flushless.benchmarks.ChartTool --jmh a.json [--jmh b.json ...] --counts c.jsonl [--counts ...]
 *      --charts docs/benchmarks --doc docs/benchmarks-suite.md [--note "text"]
 * </pre>
 *
 * Later {@code --jmh} files override earlier ones for the same benchmark and parameters (the default run
 * measures W6 again, more precisely). The section between {@code <!-- results:start -->} and
 * {@code <!-- results:end -->} of the document is replaced.
 */
public final class ChartTool {

    static final String START = "<!-- results:start -->";
    static final String END = "<!-- results:end -->";
    static final List<String> VARIANT_ORDER =
            List.of("bare", "rewrite", "handwritten", "flushless_batch", "flushless_transaction");
    static final Map<String, String> TITLES = Map.of(
            "W1InsertBatch", "W1 insert batch",
            "W2ThreeTableTransaction", "W2 three-table transaction",
            "W3Upsert", "W3 upsert batch, 1,000 rows, 10% conflicts",
            "W4VersionedUpdate", "W4 versioned update batch, 1,000 rows",
            "W5HibernateTransaction", "W5 Hibernate-style transaction (10 parents, 50 children, 10 updates)",
            "W6PointSelect", "W6 point SELECT by primary key",
            "W6WrapperOverhead", "W6 wrapper overhead, precise (point SELECT, more forks and iterations)",
            "W7GroupSizeSweep", "W7 group-size sweep (insert batch)");

    /** One benchmark result with its counts. */
    record Row(
            String workload,
            Map<String, String> params,
            double score,
            double error,
            String unit,
            Double rtPerOp,
            Double proxyRtPerOp,
            Double stmtsPerOp) {
        String variant() {
            return params.get("variant");
        }

        String delay() {
            return params.get("delayMs");
        }

        /** The sub-table a result belongs to: its {@code rows} parameter, else its {@code commit} parameter. */
        String rows() {
            return params.getOrDefault("rows", params.getOrDefault("commit", ""));
        }
    }

    private ChartTool() {}

    public static void main(String[] args) throws Exception {
        List<Path> jmh = new ArrayList<>();
        List<Path> counts = new ArrayList<>();
        Path charts = Path.of("docs", "benchmarks");
        Path doc = Path.of("docs", "benchmarks-suite.md");
        String note = "";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--jmh" -> jmh.add(Path.of(args[++i]));
                case "--counts" -> counts.add(Path.of(args[++i]));
                case "--charts" -> charts = Path.of(args[++i]);
                case "--doc" -> doc = Path.of(args[++i]);
                case "--note" -> note = args[++i];
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        List<Row> rows = load(jmh, counts);
        Files.createDirectories(charts);
        String relCharts = doc.toAbsolutePath()
                .getParent()
                .relativize(charts.toAbsolutePath())
                .toString();
        String section = render(rows, charts, relCharts, note);
        writeSection(doc, section);
        System.out.println("[chart tool] " + rows.size() + " results -> " + doc + " and " + charts);
    }

    /** Paired overhead results (W6PairedOverhead), by delay. */
    static final Map<String, JsonNode> PAIRED = new TreeMap<>();

    static List<Row> load(List<Path> jmhFiles, List<Path> countsFiles) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, JsonNode> counts = new LinkedHashMap<>();
        for (Path countsFile : countsFiles) {
            for (String line : Files.readAllLines(countsFile, StandardCharsets.UTF_8)) {
                if (!line.isBlank()) {
                    JsonNode n = json.readTree(line);
                    if (n.has("paired")) {
                        PAIRED.put(n.path("params").path("delayMs").asText(), n.get("paired"));
                        continue;
                    }
                    counts.put(key(n.get("benchmark").asText(), n.get("params")), n);
                }
            }
        }
        Map<String, Row> rows = new LinkedHashMap<>();
        for (Path file : jmhFiles) {
            for (JsonNode r : json.readTree(file.toFile())) {
                String benchmark = r.get("benchmark").asText();
                String[] parts = benchmark.split("\\.");
                String workload = parts[parts.length - 2];
                if (workload.equals("W6PairedOverhead")) {
                    continue; // one-shot score not used: its result is the paired line of the counts file
                }
                Map<String, String> params = new TreeMap<>();
                r.path("params")
                        .fields()
                        .forEachRemaining(
                                e -> params.put(e.getKey(), e.getValue().asText()));
                JsonNode metric = r.get("primaryMetric");
                String k = key(benchmark, r.path("params"));
                JsonNode c = counts.get(k);
                rows.put(
                        k,
                        new Row(
                                workload,
                                params,
                                metric.get("score").asDouble(),
                                number(metric.get("scoreError")),
                                metric.get("scoreUnit").asText(),
                                optional(c, "roundTripsPerOp"),
                                optional(c, "proxyRoundTripsPerOp"),
                                optional(c, "statementsPerOp")));
            }
        }
        return new ArrayList<>(rows.values());
    }

    private static double number(JsonNode n) {
        if (n == null || n.isNull()) {
            return Double.NaN;
        }
        return n.isNumber() ? n.asDouble() : parseOrNaN(n.asText());
    }

    private static double parseOrNaN(String s) {
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    private static Double optional(JsonNode n, String field) {
        return n == null || !n.has(field) ? null : n.get(field).asDouble();
    }

    private static String key(String benchmark, JsonNode params) {
        Map<String, String> sorted = new TreeMap<>();
        params.fields()
                .forEachRemaining(e -> sorted.put(e.getKey(), e.getValue().asText()));
        return benchmark + sorted;
    }

    // ---------------------------------------------------------------------------------------------- text

    static String render(List<Row> rows, Path charts, String relCharts, String note) throws IOException {
        StringBuilder md = new StringBuilder();
        md.append(START).append('\n');
        md.append(
                "<!-- generated by benchmarks/ChartTool from the JMH JSON and counts of the run; do not edit -->\n\n");
        if (!note.isBlank()) {
            md.append(note).append("\n\n");
        }
        Map<String, List<Row>> byWorkload =
                rows.stream().collect(Collectors.groupingBy(Row::workload, TreeMap::new, Collectors.toList()));
        for (Map.Entry<String, List<Row>> e : byWorkload.entrySet()) {
            String workload = e.getKey();
            List<Row> list = e.getValue();
            md.append("### ").append(TITLES.getOrDefault(workload, workload)).append("\n\n");
            if (workload.equals("W7GroupSizeSweep")) {
                sweep(md, list, charts, relCharts);
                continue;
            }
            Map<String, List<Row>> byRows =
                    list.stream().collect(Collectors.groupingBy(Row::rows, TreeMap::new, Collectors.toList()));
            for (Map.Entry<String, List<Row>> g : byRows.entrySet()) {
                boolean numeric = g.getKey().matches("\\d+");
                String suffix = g.getKey().isEmpty() ? "" : "-" + g.getKey() + (numeric ? "rows" : "");
                if (numeric) {
                    md.append("**")
                            .append(String.format(Locale.ROOT, "%,d", Integer.parseInt(g.getKey())))
                            .append(" rows per batch**\n\n");
                } else if (!g.getKey().isEmpty()) {
                    md.append("**")
                            .append(
                                    g.getKey().equals("autocommit")
                                            ? "autocommit: the batch alone"
                                            : "in a transaction: the batch, then COMMIT")
                            .append("**\n\n");
                }
                table(md, g.getValue());
                if (workload.equals("W6WrapperOverhead")) {
                    continue;
                }
                String name = workload + suffix;
                speedupChart(
                        g.getValue(),
                        TITLES.getOrDefault(workload, workload)
                                + (g.getKey().isEmpty() ? "" : ", " + g.getKey() + (numeric ? " rows" : "")),
                        charts.resolve(name));
                md.append("![")
                        .append(name)
                        .append("](")
                        .append(relCharts)
                        .append('/')
                        .append(name)
                        .append(".png)\n\n");
            }
            if (workload.equals("W6WrapperOverhead")
                    || workload.equals("W6PointSelect") && !byWorkload.containsKey("W6WrapperOverhead")) {
                overhead(md, list, workload, charts, relCharts);
            }
        }
        if (!PAIRED.isEmpty()) {
            paired(md);
        }
        md.append(END).append('\n');
        return md.toString();
    }

    /** variant | per delay: ms/op ± error, speedup vs bare | RT/op | statements/op */
    private static void table(StringBuilder md, List<Row> rows) {
        List<String> delays = delays(rows);
        List<String> variants = variants(rows);
        md.append("| variant |");
        for (String d : delays) {
            md.append(" ").append(delayLabel(d)).append(": ms/op | vs bare |");
        }
        md.append(" round trips/op | server statements/op |\n|---|");
        md.append("---:|---:|".repeat(delays.size())).append("---:|---:|\n");
        for (String v : variants) {
            md.append("| ").append(v).append(" |");
            Row any = null;
            for (String d : delays) {
                Row r = find(rows, v, d);
                Row bare = find(rows, "bare", d);
                if (r == null) {
                    md.append(" | |");
                    continue;
                }
                any = any == null ? r : any;
                md.append(' ')
                        .append(time(r))
                        .append(" | ")
                        .append(bare == null ? "" : speedup(bare.score / r.score))
                        .append(" |");
            }
            md.append(' ')
                    .append(counts(rows, v, Row::rtPerOp))
                    .append(" | ")
                    .append(counts(rows, v, Row::stmtsPerOp))
                    .append(" |\n");
        }
        md.append('\n');
    }

    private static void sweep(StringBuilder md, List<Row> rows, Path charts, String relCharts) throws IOException {
        List<String> variants = variants(rows);
        for (String d : delays(rows)) {
            List<Row> at = rows.stream().filter(r -> r.delay().equals(d)).toList();
            TreeSet<Integer> sizes =
                    at.stream().map(r -> Integer.parseInt(r.rows())).collect(Collectors.toCollection(TreeSet::new));
            md.append("**")
                    .append(delayLabel(d))
                    .append(
                            "**: time per operation (speedup vs bare), round trips / server statements per operation\n\n");
            md.append("| rows per batch |");
            variants.forEach(v -> md.append(' ').append(v).append(" |"));
            variants.forEach(v -> md.append(' ').append(v).append(" RT / stmts |"));
            md.append("\n|---:|").append("---:|".repeat(variants.size() * 2)).append('\n');
            for (int size : sizes) {
                md.append("| ").append(String.format(Locale.ROOT, "%,d", size)).append(" |");
                List<Row> s = at.stream()
                        .filter(r -> r.rows().equals(Integer.toString(size)))
                        .toList();
                Row bare = find(s, "bare", d);
                for (String v : variants) {
                    Row r = find(s, v, d);
                    md.append(' ')
                            .append(
                                    r == null
                                            ? ""
                                            : time(r)
                                                    + (bare == null || v.equals("bare")
                                                            ? ""
                                                            : " (" + speedup(bare.score / r.score) + ")"))
                            .append(" |");
                }
                for (String v : variants) {
                    Row r = find(s, v, d);
                    md.append(' ')
                            .append(r == null ? "" : fmtCount(r.rtPerOp) + " / " + fmtCount(r.stmtsPerOp))
                            .append(" |");
                }
                md.append('\n');
            }
            md.append('\n');
            String name = "W7GroupSizeSweep-" + d.replace('.', '_') + "ms";
            sweepChart(at, variants, delayLabel(d), charts.resolve(name));
            md.append("![")
                    .append(name)
                    .append("](")
                    .append(relCharts)
                    .append('/')
                    .append(name)
                    .append(".png)\n\n");
        }
    }

    /** W6: Flushless batch mode against bare pgjdbc, per delay, with the propagated error. */
    private static void overhead(StringBuilder md, List<Row> rows, String workload, Path charts, String relCharts)
            throws IOException {
        md.append("**Wrapper overhead, flushless_batch against bare pgjdbc** (error: JMH's 99.9% confidence half-widths"
                + " of both means, propagated; a negative overhead is noise)\n\n");
        md.append("| delay | bare ms/op | flushless_batch ms/op | overhead |\n|---|---:|---:|---:|\n");
        List<String> labels = new ArrayList<>();
        List<Double> values = new ArrayList<>();
        List<Double> errors = new ArrayList<>();
        for (String d : delays(rows)) {
            Row bare = find(rows, "bare", d);
            Row fl = find(rows, "flushless_batch", d);
            if (bare == null || fl == null) {
                continue;
            }
            double ratio = fl.score / bare.score;
            double rel = Math.sqrt(sq(fl.error / fl.score) + sq(bare.error / bare.score));
            double pct = (ratio - 1) * 100;
            double err = ratio * rel * 100;
            md.append("| ")
                    .append(delayLabel(d))
                    .append(" | ")
                    .append(time(bare))
                    .append(" | ")
                    .append(time(fl))
                    .append(" | ")
                    .append(String.format(Locale.ROOT, "%+.1f%% ± %.1f%%", pct, err))
                    .append(" |\n");
            labels.add(delayLabel(d));
            values.add(pct);
            errors.add(Double.isNaN(err) ? 0 : err);
        }
        md.append('\n');
        if (!labels.isEmpty()) {
            CategoryChart chart = new CategoryChartBuilder()
                    .width(800)
                    .height(450)
                    .title("W6 point SELECT: flushless_batch overhead vs bare pgjdbc (99.9% CI)")
                    .xAxisTitle("one-way delay")
                    .yAxisTitle("overhead, %")
                    .build();
            style(chart.getStyler());
            chart.getStyler().setLegendVisible(false);
            chart.addSeries("overhead", labels, values, errors);
            BitmapEncoder.saveBitmap(
                    chart, charts.resolve(workload + "-overhead").toString(), BitmapEncoder.BitmapFormat.PNG);
            md.append("![")
                    .append(workload)
                    .append("-overhead](")
                    .append(relCharts)
                    .append('/')
                    .append(workload)
                    .append("-overhead.png)\n\n");
        }
    }

    private static void paired(StringBuilder md) {
        md.append("### W6 wrapper overhead, paired (flushless_batch against bare pgjdbc in the same fork)\n\n");
        md.append("Alternating blocks of point SELECTs on the two connections (ABBA order); mean of the per-pair"
                + " ratios with the 95% confidence interval. *Wall* is the time per SELECT; *CPU* is the calling"
                + " thread's CPU time per SELECT (the client-side work the wrapper adds).\n\n");
        md.append("| delay | pairs x SELECTs | bare ms/op | flushless ms/op | wall overhead | bare CPU µs/op |"
                + " flushless CPU µs/op | CPU overhead | CPU added, in % of bare wall time |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        List<String> keys = new ArrayList<>(PAIRED.keySet());
        keys.sort(Comparator.comparingDouble(d -> d.equals("direct") ? -1 : Double.parseDouble(d)));
        for (String d : keys) {
            JsonNode p = PAIRED.get(d);
            double addedUs = p.get("variantCpuUsPerOp").asDouble()
                    - p.get("bareCpuUsPerOp").asDouble();
            md.append("| ")
                    .append(delayLabel(d))
                    .append(" | ")
                    .append(p.get("pairs").asInt())
                    .append(" x ")
                    .append(p.get("opsPerBlock").asInt())
                    .append(" | ")
                    .append(sig(p.get("bareMsPerOp").asDouble()))
                    .append(" | ")
                    .append(sig(p.get("variantMsPerOp").asDouble()))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT,
                            "%+.1f%% ± %.1f%%",
                            (p.get("wallRatio").asDouble() - 1) * 100,
                            p.get("wallCi95").asDouble() * 100))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT, "%.1f", p.get("bareCpuUsPerOp").asDouble()))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT, "%.1f", p.get("variantCpuUsPerOp").asDouble()))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT,
                            "%+.1f%% ± %.1f%%",
                            (p.get("cpuRatio").asDouble() - 1) * 100,
                            p.get("cpuCi95").asDouble() * 100))
                    .append(" | ")
                    .append(String.format(
                            Locale.ROOT,
                            "%+.1f%%",
                            addedUs / 1000 / p.get("bareMsPerOp").asDouble() * 100))
                    .append(" |\n");
        }
        md.append('\n');
    }

    private static double sq(double x) {
        return x * x;
    }

    private static String counts(List<Row> rows, String variant, java.util.function.Function<Row, Double> f) {
        TreeSet<String> values = rows.stream()
                .filter(r -> r.variant().equals(variant))
                .map(f)
                .filter(Objects::nonNull)
                .map(ChartTool::fmtCount)
                .collect(Collectors.toCollection(TreeSet::new));
        return values.isEmpty() ? "n/a" : String.join(" / ", values);
    }

    static String fmtCount(Double v) {
        if (v == null) {
            return "n/a";
        }
        if (Math.abs(v - Math.rint(v)) < 0.005) {
            return String.format(Locale.ROOT, "%,d", Math.round(v));
        }
        return String.format(Locale.ROOT, "%,.2f", v);
    }

    static String time(Row r) {
        String s = sig(r.score);
        return Double.isNaN(r.error) ? s : s + " ± " + sig(r.error);
    }

    static String sig(double v) {
        if (Double.isNaN(v)) {
            return "n/a";
        }
        double a = Math.abs(v);
        return String.format(Locale.ROOT, a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", v);
    }

    static String speedup(double x) {
        return String.format(Locale.ROOT, "%.2f×", x);
    }

    static String delayLabel(String d) {
        return d.equals("direct") ? "direct (no proxy)" : "D=" + d + " ms";
    }

    private static Row find(List<Row> rows, String variant, String delay) {
        return rows.stream()
                .filter(r -> r.variant().equals(variant) && r.delay().equals(delay))
                .findFirst()
                .orElse(null);
    }

    static List<String> delays(List<Row> rows) {
        return rows.stream()
                .map(Row::delay)
                .distinct()
                .sorted(Comparator.comparingDouble(d -> d.equals("direct") ? -1 : Double.parseDouble(d)))
                .toList();
    }

    static List<String> variants(List<Row> rows) {
        return rows.stream()
                .map(Row::variant)
                .distinct()
                .sorted(Comparator.comparingInt(v -> {
                    int i = VARIANT_ORDER.indexOf(v);
                    return i < 0 ? 99 : i;
                }))
                .toList();
    }

    // --------------------------------------------------------------------------------------------- charts

    private static void speedupChart(List<Row> rows, String title, Path file) throws IOException {
        List<String> delays = delays(rows);
        CategoryChart chart = new CategoryChartBuilder()
                .width(800)
                .height(450)
                .title(title + ": speedup vs bare pgjdbc")
                .xAxisTitle("one-way delay of the latency proxy")
                .yAxisTitle("bare time / variant time")
                .build();
        style(chart.getStyler());
        for (String v : variants(rows)) {
            List<String> x = new ArrayList<>();
            List<Double> y = new ArrayList<>();
            for (String d : delays) {
                Row r = find(rows, v, d);
                Row bare = find(rows, "bare", d);
                if (r != null && bare != null) {
                    x.add(delayLabel(d));
                    y.add(bare.score / r.score);
                }
            }
            if (!x.isEmpty()) {
                chart.addSeries(v, x, y);
            }
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static void sweepChart(List<Row> rows, List<String> variants, String delay, Path file) throws IOException {
        XYChart chart = new XYChartBuilder()
                .width(800)
                .height(500)
                .title("W7 insert batch, " + delay + ": time per row vs rows per batch")
                .xAxisTitle("rows per batch (log)")
                .yAxisTitle("ms per row (log)")
                .build();
        style(chart.getStyler());
        chart.getStyler().setXAxisLogarithmic(true);
        chart.getStyler().setYAxisLogarithmic(true);
        for (String v : variants) {
            List<Row> rs = rows.stream()
                    .filter(r -> r.variant().equals(v))
                    .sorted(Comparator.comparingInt(r -> Integer.parseInt(r.rows())))
                    .toList();
            if (rs.isEmpty()) {
                continue;
            }
            double[] x =
                    rs.stream().mapToDouble(r -> Integer.parseInt(r.rows())).toArray();
            double[] y = rs.stream()
                    .mapToDouble(r -> r.score / Integer.parseInt(r.rows()))
                    .toArray();
            chart.addSeries(v, x, y).setMarker(SeriesMarkers.CIRCLE).setLineStyle(new BasicStroke(2f));
        }
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    private static void style(Styler s) {
        s.setChartBackgroundColor(Color.WHITE);
        s.setLegendPosition(Styler.LegendPosition.OutsideE);
        s.setSeriesColors(new Color[] {
            new Color(0x4c72b0), new Color(0xdd8452), new Color(0x55a868), new Color(0xc44e52), new Color(0x8172b3)
        });
    }

    // ----------------------------------------------------------------------------------------------- doc

    static void writeSection(Path doc, String section) throws IOException {
        String text = Files.exists(doc) ? Files.readString(doc, StandardCharsets.UTF_8) : "";
        int start = text.indexOf(START);
        int end = text.indexOf(END);
        String updated;
        if (start >= 0 && end > start) {
            updated = text.substring(0, start)
                    + section
                    + text.substring(end + END.length() + 1 > text.length() ? text.length() : end + END.length() + 1);
        } else {
            updated = text + (text.isEmpty() || text.endsWith("\n") ? "" : "\n") + section;
        }
        if (doc.getParent() != null) {
            Files.createDirectories(doc.getParent());
        }
        Files.writeString(doc, updated, StandardCharsets.UTF_8);
    }
}
