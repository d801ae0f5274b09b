package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.flushless.jdbc.testing.LatencyProxy;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

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

    /**
     * Warms a paired benchmark up in two phases. First, at no added delay (the latency proxy of each of {@code sides} set to 0), it runs
     * {@code round} (one block per side, the order varying with the round number) until at least {@code minMs} have
     * passed <em>and</em> the JIT has settled: its total compilation time grew by less than {@link #JIT_SETTLED_MS}
     * over the last {@link #JIT_WINDOW_MS}; at most {@code maxMs}. Then, with the proxies back at their delay, it runs
     * rounds for {@link #CALIBRATION_MS} so that the blocks are sized for the delay.
     *
     * <p>Why: HotSpot compiles a method with C2 after thousands of calls, and the driver's per-operation methods are
     * called once per operation. A fixed 2 s warm-up left the Flushless side of W7 partly uncompiled on the fork's
     * single CPU and measured it 0.89x of bare where a settled JIT gives 0.99x; at 1 ms a 30 s warm-up runs only
     * about 6,000 operations. Both sides warm up alike. Returns {warm-up seconds, JIT ms in the first phase, 1 if
     * the JIT settled before {@code maxMs} else 0, operations' rounds in the first phase}.
     */
    static double[] warmUp(List<Harness> sides, int minMs, int maxMs, WarmupRound round) throws Exception {
        List<LatencyProxy> proxies = new ArrayList<>();
        for (Harness h : sides) {
            if (h.proxy() != null) { // none when connected directly
                proxies.add(h.proxy());
            }
        }
        double[] delays = new double[proxies.size()];
        for (int i = 0; i < delays.length; i++) {
            delays[i] = proxies.get(i).delayNanos() / 1e6;
            proxies.get(i).setDelayMillis(0);
        }
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        boolean timed = jit != null && jit.isCompilationTimeMonitoringSupported();
        long start = System.nanoTime();
        long minEnd = start + minMs * 1_000_000L;
        long maxEnd = start + Math.max(minMs, maxMs) * 1_000_000L;
        long jit0 = timed ? jit.getTotalCompilationTime() : 0;
        long windowStart = start;
        long windowJit = jit0;
        boolean settled = !timed;
        int r = 0;
        try {
            while (true) {
                round.run(r++);
                long now = System.nanoTime();
                if (timed && now - windowStart >= JIT_WINDOW_MS * 1_000_000L) {
                    long j = jit.getTotalCompilationTime();
                    settled = j - windowJit < JIT_SETTLED_MS;
                    windowStart = now;
                    windowJit = j;
                }
                if (now >= maxEnd || (now >= minEnd && settled)) {
                    break;
                }
            }
        } finally {
            for (int i = 0; i < delays.length; i++) {
                proxies.get(i).setDelayMillis(delays[i]);
            }
        }
        long jitMs = timed ? jit.getTotalCompilationTime() - jit0 : -1;
        int undelayedRounds = r;
        long calibrationEnd = System.nanoTime() + CALIBRATION_MS * 1_000_000L;
        do {
            round.run(r++);
        } while (System.nanoTime() < calibrationEnd);
        return new double[] {(System.nanoTime() - start) / 1e9, jitMs, settled ? 1 : 0, undelayedRounds};
    }

    /** The warm-up's second phase, at the trial's delay (ms). */
    static final long CALIBRATION_MS = 2000;

    /** The JIT counts as settled when it compiled for less than this many ms in the last window. */
    static final long JIT_SETTLED_MS = 5;

    static final long JIT_WINDOW_MS = 1000;

    /** Records {@link #warmUp}'s result: {@code warmupSeconds}, {@code warmupJitMs}, {@code warmupJitSettled}. */
    static void putWarmup(ObjectNode o, double[] warmup) {
        o.put("warmupSeconds", warmup[0]);
        o.put("warmupJitMs", warmup[1]);
        o.put("warmupJitSettled", warmup[2] > 0);
        o.put("warmupUndelayedRounds", (long) warmup[3]);
    }

    /** One warm-up round of a paired benchmark. */
    interface WarmupRound {
        void run(int round) throws Exception;
    }
}
