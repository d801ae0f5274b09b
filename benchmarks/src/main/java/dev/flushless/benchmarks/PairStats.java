package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;

/** Statistics of paired comparisons (mean of per-pair ratios, 95% interval) shared by the paired benchmarks. */
final class PairStats {

    static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    private PairStats() {}

    static double mean(double[] x) {
        return Arrays.stream(x).average().orElse(Double.NaN);
    }

    /** Half-width of the 95% confidence interval of the mean of {@code x} (Student t; NaN below 2 values). */
    static double ci95(double[] x) {
        if (x.length < 2) {
            return Double.NaN;
        }
        double m = mean(x);
        double var = Arrays.stream(x).map(v -> (v - m) * (v - m)).sum() / (x.length - 1);
        return W6PairedOverhead.tQuantile975(x.length - 1) * Math.sqrt(var / x.length);
    }

    /** Puts {@code name} (mean), {@code name + "Ci95"} and the per-pair values {@code name + "s"} into {@code o}. */
    static void put(ObjectNode o, String name, double[] perPair) {
        o.put(name, mean(perPair));
        o.put(name + "Ci95", ci95(perPair));
        ArrayNode a = o.putArray(name + "PerPair");
        for (double v : perPair) {
            a.add(v);
        }
    }

    /** CPU time of the calling thread in ns (ThreadMXBean; -1 when the JVM does not measure it). */
    static long threadCpuNanos() {
        return THREADS.isCurrentThreadCpuTimeSupported() ? THREADS.getCurrentThreadCpuTime() : -1;
    }
}
