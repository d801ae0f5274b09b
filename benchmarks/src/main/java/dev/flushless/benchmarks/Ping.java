package dev.flushless.benchmarks;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;

/**
 * A ping: {@code SELECT 1} in autocommit on a bare pgjdbc connection, one round trip, timed one at a time. Through
 * the latency proxy it shows the delay the workloads actually get: (proxied round trip - direct round trip) / 2 is
 * the achieved one-way delay, proxy overhead included.
 */
record Ping(int count, double medianMs, double meanMs, double p10Ms, double p90Ms) {

    /** {@code warmup} unmeasured pings, then {@code count} measured ones, on a new connection to {@code url}. */
    static Ping measure(String url, int warmup, int count) throws SQLException {
        try (Connection c = DriverManager.getConnection(url);
                Statement s = c.createStatement()) {
            for (int i = 0; i < warmup; i++) {
                one(s);
            }
            double[] ms = new double[count];
            for (int i = 0; i < count; i++) {
                long t0 = System.nanoTime();
                one(s);
                ms[i] = (System.nanoTime() - t0) / 1e6;
            }
            double mean = Arrays.stream(ms).average().orElse(Double.NaN);
            Arrays.sort(ms);
            return new Ping(count, ms[count / 2], mean, ms[count / 10], ms[count * 9 / 10]);
        }
    }

    private static void one(Statement s) throws SQLException {
        try (ResultSet rs = s.executeQuery("SELECT 1")) {
            rs.next();
        }
    }

    void putInto(ObjectNode o, String prefix) {
        o.put(prefix + "MedianMs", medianMs);
        o.put(prefix + "MeanMs", meanMs);
        o.put(prefix + "P10Ms", p10Ms);
        o.put(prefix + "P90Ms", p90Ms);
    }
}
