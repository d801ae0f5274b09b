package dev.flushless.jdbc.batch;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The round-trip time to one server, measured on exchanges where the server does next to nothing (the start of a COPY:
 * the server answers its CopyInResponse at once), shared by the driver's connections to that server. The estimate is
 * the least of the last 16 samples: a sample is the network's time plus whatever delayed one side, so the least is the
 * network's, and the window follows a change of route. Thread-safe.
 */
public final class RoundTripTime {

    private static final ConcurrentHashMap<String, RoundTripTime> SERVERS = new ConcurrentHashMap<>();

    private final long[] samples = new long[16];
    private int count;

    /** An estimate of its own (a connection whose server is not known). */
    public RoundTripTime() {}

    /** The estimate of the server {@code key} (host and port), shared by every connection to it. */
    public static RoundTripTime of(String key) {
        return SERVERS.computeIfAbsent(key, k -> new RoundTripTime());
    }

    /** The estimate of the server of a pgjdbc connection (its host and port); else one of the connection's own. */
    public static RoundTripTime of(java.sql.Connection connection) {
        String key = serverKey(connection);
        return key == null ? new RoundTripTime() : of(key);
    }

    /** The host and port a pgjdbc connection is connected to, {@code host:port}; {@code null} when not pgjdbc. */
    public static String serverKey(java.sql.Connection connection) {
        try {
            if (connection.isWrapperFor(org.postgresql.core.BaseConnection.class)) {
                org.postgresql.util.HostSpec host = connection
                        .unwrap(org.postgresql.core.BaseConnection.class)
                        .getQueryExecutor()
                        .getHostSpec();
                return host.getHost() + ':' + host.getPort();
            }
        } catch (java.sql.SQLException | RuntimeException e) {
            // not known
        }
        return null;
    }

    /** Records one exchange of {@code nanos}. */
    public synchronized void record(long nanos) {
        samples[count % samples.length] = nanos;
        count++;
    }

    /** The estimate in microseconds, negative when nothing was measured yet. */
    public synchronized double micros() {
        if (count == 0) {
            return -1;
        }
        return Arrays.stream(samples, 0, Math.min(count, samples.length)).min().getAsLong() / 1000.0;
    }
}
