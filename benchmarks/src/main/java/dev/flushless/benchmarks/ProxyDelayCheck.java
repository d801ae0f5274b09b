package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flushless.jdbc.testing.LatencyProxy;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.BenchmarkParams;

/**
 * What delay the latency proxy achieves on this machine: {@code SELECT 1} pings (bare pgjdbc, autocommit, one
 * round trip each) directly and through a proxy at each of {@code delays} ({@code +}-separated ms), in a fork
 * placed like the benchmarks' (run.sh pins it away from the server). Per delay: the median, mean, 10th and 90th
 * percentile round trip, the achieved one-way delay (median proxied - median direct) / 2, and the proxy's own
 * count of how late its delayed chunks went out. Not a measurement of the driver; the line goes to the counts
 * file ({@code proxyPing}) and is printed as {@code [proxy ping] ...}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 0)
@Measurement(iterations = 1)
public class ProxyDelayCheck {

    @Param({"0+0.1+0.25+0.5+1+5"})
    public String delays;

    @Param({"300"})
    public int pings;

    @Benchmark
    public double ping(BenchmarkParams params) throws Exception {
        String url = Targets.benchmarkUrl();
        Ping direct = Ping.measure(url, 50, pings);
        System.out.println(String.format(
                Locale.ROOT,
                "[proxy ping] direct: round trip median %.3f ms (p10 %.3f, p90 %.3f, mean %.3f)",
                direct.medianMs(),
                direct.p10Ms(),
                direct.p90Ms(),
                direct.meanMs()));
        double last = Double.NaN;
        for (String d : delays.split("\\+")) {
            double delay = Double.parseDouble(d);
            try (LatencyProxy proxy = LatencyProxy.forUrlMillis(url, delay)) {
                Ping p = Ping.measure(proxy.proxiedUrl(url), 50, pings); // lateness counts the warm-up too
                double oneWay = (p.medianMs() - direct.medianMs()) / 2;
                ObjectNode line = new ObjectMapper().createObjectNode();
                line.put("benchmark", params.getBenchmark());
                ObjectNode r = line.putObject("proxyPing");
                r.put("delayMs", delay);
                r.put("pings", pings);
                r.put("spinMicros", LatencyProxy.spinMicros());
                r.put("maxSpinners", LatencyProxy.maxSpinners());
                p.putInto(r, "proxied");
                direct.putInto(r, "direct");
                r.put("achievedOneWayMs", oneWay);
                r.put("proxyMeanLatenessUs", proxy.meanLatenessMicros());
                r.put("proxyMaxLatenessUs", proxy.maxLatenessMicros());
                r.put("delayedChunks", proxy.delayedChunks());
                Harness.append(line);
                System.out.println(String.format(
                        Locale.ROOT,
                        "[proxy ping] D=%s ms: round trip median %.3f ms (p10 %.3f, p90 %.3f, mean %.3f);"
                                + " achieved one-way %.3f ms (median - direct median) / 2; proxy lateness mean %.0f µs,"
                                + " max %.0f µs",
                        d,
                        p.medianMs(),
                        p.p10Ms(),
                        p.p90Ms(),
                        p.meanMs(),
                        oneWay,
                        proxy.meanLatenessMicros(),
                        proxy.maxLatenessMicros()));
                last = oneWay;
            }
        }
        return last;
    }
}
