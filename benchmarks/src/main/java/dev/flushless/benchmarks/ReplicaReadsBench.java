package dev.flushless.benchmarks;

import dev.flushless.jdbc.FlushlessConnection;
import dev.flushless.jdbc.stats.FlushlessReport;
import dev.flushless.jdbc.testing.LatencyProxy;
import dev.flushless.jdbc.testing.StandbyPair;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Replica reads (#30): a read-mostly web workload against a real primary and a real hot standby (embedded binaries),
 * the primary behind the latency proxy at {@code --primary-ms} one way (15), the replica at {@code --replica-ms}
 * (0.25). 80% read-only transactions (a point read of the thread's own row, a point read of another row, a range read
 * of 20 rows), 20% write transactions (an UPDATE of the thread's own row, committed). Each thread checks that its
 * read-only transactions see its own last committed value: a smaller value is a stale read. Variants: bare pgjdbc
 * (everything on the primary), Flushless routing without read-your-writes ({@code flushless.readYourWrites=false}) and
 * Flushless with it (the default). Prints p50/p99 per transaction kind, throughput and stale reads per cell.
 *
 * <pre>
 * java -cp benchmarks/target/benchmarks.jar dev.flushless.benchmarks.ReplicaReadsBench
 *      [--threads 1,4,16] [--seconds 8] [--warmup-seconds 2] [--primary-ms 15] [--replica-ms 0.25]
 * </pre>
 */
public final class ReplicaReadsBench {

    private static final int ROWS = 1000;

    private ReplicaReadsBench() {}

    public static void main(String[] args) throws Exception {
        int[] threads = {1, 4, 16};
        double seconds = 8;
        double warmup = 2;
        double primaryMs = 15;
        double replicaMs = 0.25;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--threads" ->
                    threads = Arrays.stream(args[++i].split(","))
                            .mapToInt(Integer::parseInt)
                            .toArray();
                case "--seconds" -> seconds = Double.parseDouble(args[++i]);
                case "--warmup-seconds" -> warmup = Double.parseDouble(args[++i]);
                case "--primary-ms" -> primaryMs = Double.parseDouble(args[++i]);
                case "--replica-ms" -> replicaMs = Double.parseDouble(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]);
            }
        }
        try (StandbyPair pair = StandbyPair.start()) {
            pair.createDatabase("bench");
            try (Connection c = DriverManager.getConnection(pair.primaryUrl("bench"));
                    Statement s = c.createStatement()) {
                s.execute("CREATE TABLE kv (id int PRIMARY KEY, v bigint NOT NULL, pad text NOT NULL)");
                s.execute("INSERT INTO kv SELECT g, 0, repeat('x', 100) FROM generate_series(1, " + ROWS + ") g");
                s.execute("VACUUM ANALYZE kv");
            }
            pair.awaitReplay();
            try (LatencyProxy primaryProxy = LatencyProxy.start("localhost", pair.primaryPort(), micros(primaryMs));
                    LatencyProxy replicaProxy =
                            LatencyProxy.start("localhost", pair.standbyPort(), micros(replicaMs))) {
                String primary = "jdbc:postgresql://localhost:" + primaryProxy.port() + "/bench?user=postgres";
                String flushless = "jdbc:flushless:postgresql://localhost:" + primaryProxy.port()
                        + "/bench?user=postgres&flushless.replicas=localhost:" + replicaProxy.port();
                System.out.printf(
                        Locale.ROOT,
                        "Replica reads: PostgreSQL %d primary + hot standby; primary %.2f ms one way, replica %.2f ms;"
                                + " %.0f s per cell after %.0f s warm-up%n",
                        pair.versionNum,
                        primaryMs,
                        replicaMs,
                        seconds,
                        warmup);
                System.out.println("| threads | variant | read-only tx p50 ms | p99 ms | write tx p50 ms | p99 ms |"
                        + " tx/s | read-only tx | write tx | stale reads | on replica | waits | to primary |");
                System.out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
                for (int n : threads) {
                    run(n, "bare pgjdbc", primary, seconds, warmup);
                    run(
                            n,
                            "routing, no read-your-writes",
                            flushless + "&flushless.readYourWrites=false",
                            seconds,
                            warmup);
                    run(n, "routing, read-your-writes", flushless, seconds, warmup);
                }
            }
        }
    }

    private static long micros(double ms) {
        return Math.round(ms * 1000);
    }

    /** One cell: {@code threads} threads, each with its own connection, for {@code seconds} after the warm-up. */
    private static void run(int threads, String variant, String url, double seconds, double warmup) throws Exception {
        List<Worker> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            workers.add(new Worker(url, t + 1));
        }
        long start = System.nanoTime();
        long measureFrom = start + (long) (warmup * 1e9);
        long end = measureFrom + (long) (seconds * 1e9);
        List<Thread> running = new ArrayList<>();
        for (Worker w : workers) {
            Thread t = new Thread(() -> w.loop(measureFrom, end));
            t.start();
            running.add(t);
        }
        for (Thread t : running) {
            t.join();
        }
        long[] reads = workers.stream()
                .flatMapToLong(w -> w.readNanos.stream().mapToLong(Long::longValue))
                .sorted()
                .toArray();
        long[] writes = workers.stream()
                .flatMapToLong(w -> w.writeNanos.stream().mapToLong(Long::longValue))
                .sorted()
                .toArray();
        long stale = workers.stream().mapToLong(w -> w.stale).sum();
        long replicaReads = 0;
        long waits = 0;
        long toPrimary = 0;
        for (Worker w : workers) {
            if (w.error != null) {
                throw w.error;
            }
            if (w.report != null) {
                replicaReads += w.report.replicaReads();
                waits += w.report.replicaWaits();
                toPrimary += w.report.primaryReads().values().stream()
                        .mapToLong(Long::longValue)
                        .sum();
            }
        }
        System.out.printf(
                Locale.ROOT,
                "| %d | %s | %.2f | %.2f | %.2f | %.2f | %.0f | %d | %d | %d | %s | %s | %s |%n",
                threads,
                variant,
                percentile(reads, 50),
                percentile(reads, 99),
                percentile(writes, 50),
                percentile(writes, 99),
                (reads.length + writes.length) / seconds,
                reads.length,
                writes.length,
                stale,
                url.contains("flushless.replicas") ? Long.toString(replicaReads) : "-",
                url.contains("flushless.replicas") ? Long.toString(waits) : "-",
                url.contains("flushless.replicas") ? Long.toString(toPrimary) : "-");
    }

    private static double percentile(long[] sorted, int p) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))] / 1e6;
    }

    /** One application thread: its own connection, its own row. */
    private static final class Worker {
        final String url;
        final int id;
        final List<Long> readNanos = new ArrayList<>();
        final List<Long> writeNanos = new ArrayList<>();
        long stale;
        long written;
        Exception error;
        FlushlessReport report;
        static final AtomicLong VERSION = new AtomicLong(System.currentTimeMillis() * 1000);

        Worker(String url, int id) {
            this.url = url;
            this.id = id;
        }

        void loop(long measureFrom, long end) {
            try (Connection c = DriverManager.getConnection(url);
                    PreparedStatement update = c.prepareStatement("UPDATE kv SET v = ? WHERE id = ?");
                    PreparedStatement point = c.prepareStatement("SELECT v, pad FROM kv WHERE id = ?");
                    PreparedStatement range = c.prepareStatement("SELECT id, v FROM kv WHERE id BETWEEN ? AND ?")) {
                c.setAutoCommit(false);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long now;
                while ((now = System.nanoTime()) < end) {
                    boolean measured = now >= measureFrom;
                    if (random.nextInt(5) == 0) {
                        long value = VERSION.incrementAndGet();
                        long t0 = System.nanoTime();
                        c.setReadOnly(false);
                        update.setLong(1, value);
                        update.setInt(2, id);
                        update.executeUpdate();
                        c.commit();
                        long took = System.nanoTime() - t0;
                        written = value;
                        if (measured) {
                            writeNanos.add(took);
                        }
                    } else {
                        long t0 = System.nanoTime();
                        c.setReadOnly(true);
                        point.setInt(1, id);
                        long seen;
                        try (ResultSet rs = point.executeQuery()) {
                            rs.next();
                            seen = rs.getLong(1);
                        }
                        point.setInt(1, 100 + random.nextInt(ROWS - 100));
                        try (ResultSet rs = point.executeQuery()) {
                            rs.next();
                        }
                        int from = 100 + random.nextInt(ROWS - 120);
                        range.setInt(1, from);
                        range.setInt(2, from + 19);
                        try (ResultSet rs = range.executeQuery()) {
                            while (rs.next()) {
                                rs.getLong(2);
                            }
                        }
                        c.commit();
                        long took = System.nanoTime() - t0;
                        if (seen < written) {
                            stale++;
                        }
                        if (measured) {
                            readNanos.add(took);
                        }
                    }
                }
                c.setReadOnly(false);
                if (c.isWrapperFor(FlushlessConnection.class)) {
                    report = c.unwrap(FlushlessConnection.class).report();
                }
            } catch (SQLException | RuntimeException e) {
                error = e;
            }
        }
    }
}
