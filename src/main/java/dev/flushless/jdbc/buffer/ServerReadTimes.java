package dev.flushless.jdbc.buffer;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The least time of a read as sent among all the driver's connections to one server (host and port), over the last one
 * to two seconds: a bound on the round trip from above, as one connection's own reads give ({@link ExchangeTimes}), and
 * a much tighter one where many connections share a saturated host. There the server's processes and the application's
 * threads queue for the same cores, so every read of one connection may have waited for a CPU, and the least of its
 * own 64 reads measures the queue rather than the distance (BenchBase at 64 terminals on two cores: its transactions
 * then buffered, and the buffer's one larger statement cost more CPU than the round trip it saved). Among the reads of
 * all connections, some meet no queue. All connections to one host and port cross the same network, so their least
 * read bounds the round trip of each. Thread-safe; a read costs one volatile read and, only when it is the least so
 * far, one compare-and-set.
 */
final class ServerReadTimes {

    /** The length of one period: the estimate is the least of the current period's reads and the previous one's. */
    static final long PERIOD_NANOS = 1_000_000_000L;

    private static final ConcurrentHashMap<String, ServerReadTimes> SERVERS = new ConcurrentHashMap<>();

    private final AtomicLong current = new AtomicLong(Long.MAX_VALUE);
    private volatile long previous = Long.MAX_VALUE;
    /** The period {@link #current} collects. */
    private volatile long period;

    ServerReadTimes(long nowNanos) {
        this.period = Math.floorDiv(nowNanos, PERIOD_NANOS);
    }

    /** The times of the server of a pgjdbc connection (its host and port), or {@code null} when it is not known. */
    static ServerReadTimes of(java.sql.Connection pgjdbc) {
        String key = dev.flushless.jdbc.batch.RoundTripTime.serverKey(pgjdbc);
        return key == null ? null : SERVERS.computeIfAbsent(key, k -> new ServerReadTimes(System.nanoTime()));
    }

    void add(long nanos) {
        add(nanos, System.nanoTime());
    }

    void add(long nanos, long nowNanos) {
        long now = Math.floorDiv(nowNanos, PERIOD_NANOS);
        // a read timed just before another thread moved on joins the new period: the periods never go back
        if (now > period) {
            rotate(now);
        }
        long least = current.get();
        while (nanos < least && !current.compareAndSet(least, nanos)) {
            least = current.get();
        }
    }

    private synchronized void rotate(long now) {
        if (now <= period) {
            return; // another thread moved on first
        }
        previous = now == period + 1 ? current.get() : Long.MAX_VALUE;
        current.set(Long.MAX_VALUE);
        period = now;
    }

    /** The least read of the current and the previous period in nanoseconds, or -1 when none was timed. */
    long leastNanos() {
        return leastNanos(System.nanoTime());
    }

    long leastNanos(long nowNanos) {
        long now = Math.floorDiv(nowNanos, PERIOD_NANOS);
        long at = period;
        long least;
        if (now <= at) {
            least = Math.min(current.get(), previous);
        } else if (now == at + 1) {
            least = current.get(); // nothing read in this period yet: the last one's
        } else {
            least = Long.MAX_VALUE;
        }
        return least == Long.MAX_VALUE ? -1 : least;
    }
}
