package dev.flushless.jdbc.testing;

import java.io.FilterInputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * A pgjdbc {@code socketFactory} that counts round trips on the driver's own socket: a round trip is a
 * transition from writing to reading (the driver sent something and now waits for the answer). Connections
 * opened with the same {@code socketFactoryArg} share one {@link Counter}:
 *
 * <pre>{@code
 * props.setProperty("socketFactory", RoundTripCountingSocketFactory.class.getName());
 * props.setProperty("socketFactoryArg", "my-counter");
 * ... RoundTripCountingSocketFactory.counter("my-counter").roundTrips()
 * }</pre>
 *
 * {@link #properties(String)} builds those two properties. The connection's start-up (SSL negotiation,
 * authentication, parameter exchange) is counted too: {@link Counter#reset()} after connecting.
 */
public final class RoundTripCountingSocketFactory extends SocketFactory {

    private static final ConcurrentMap<String, Counter> COUNTERS = new ConcurrentHashMap<>();

    private final Counter counter;

    /** Used by pgjdbc with the {@code socketFactoryArg} property. */
    public RoundTripCountingSocketFactory(String key) {
        this.counter = counter(key == null ? "" : key);
    }

    /** Used by pgjdbc when no {@code socketFactoryArg} is given: the counter named "". */
    public RoundTripCountingSocketFactory() {
        this("");
    }

    /** The counter shared by the connections opened with {@code socketFactoryArg=key}. */
    public static Counter counter(String key) {
        return COUNTERS.computeIfAbsent(key, k -> new Counter());
    }

    /** The pgjdbc connection properties that make a connection count into {@code counter(key)}. */
    public static Properties properties(String key) {
        Properties p = new Properties();
        p.setProperty("socketFactory", RoundTripCountingSocketFactory.class.getName());
        p.setProperty("socketFactoryArg", key);
        return p;
    }

    @Override
    public Socket createSocket() {
        return new CountingSocket(counter);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        Socket s = createSocket();
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        Socket s = createSocket();
        s.bind(new java.net.InetSocketAddress(localHost, localPort));
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        Socket s = createSocket();
        s.connect(new java.net.InetSocketAddress(host, port));
        return s;
    }

    @Override
    public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
            throws IOException {
        Socket s = createSocket();
        s.bind(new java.net.InetSocketAddress(localAddress, localPort));
        s.connect(new java.net.InetSocketAddress(address, port));
        return s;
    }

    /** Round trips (write-to-read transitions) and bytes of the sockets that share it. */
    public static final class Counter {
        private final AtomicLong roundTrips = new AtomicLong();
        private final AtomicLong bytesWritten = new AtomicLong();
        private final AtomicLong bytesRead = new AtomicLong();

        public long roundTrips() {
            return roundTrips.get();
        }

        public long bytesWritten() {
            return bytesWritten.get();
        }

        public long bytesRead() {
            return bytesRead.get();
        }

        public void reset() {
            roundTrips.set(0);
            bytesWritten.set(0);
            bytesRead.set(0);
        }

        @Override
        public String toString() {
            return "roundTrips=" + roundTrips() + " written=" + bytesWritten() + " read=" + bytesRead();
        }
    }

    /** A socket whose streams report write-to-read transitions to a counter (one flag per socket). */
    private static final class CountingSocket extends Socket {
        private final Counter counter;
        /** Written since the last read: the next read waits for an answer. */
        private volatile boolean wrote;

        private InputStream in;
        private OutputStream out;

        CountingSocket(Counter counter) {
            this.counter = counter;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (in == null) {
                in = new FilterInputStream(super.getInputStream()) {
                    @Override
                    public int read() throws IOException {
                        beforeRead();
                        int b = super.read();
                        if (b >= 0) {
                            counter.bytesRead.incrementAndGet();
                        }
                        return b;
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        beforeRead();
                        int n = super.read(b, off, len);
                        if (n > 0) {
                            counter.bytesRead.addAndGet(n);
                        }
                        return n;
                    }
                };
            }
            return in;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (out == null) {
                OutputStream raw = super.getOutputStream();
                out = new FilterOutputStream(raw) {
                    @Override
                    public void write(int b) throws IOException {
                        raw.write(b);
                        counter.bytesWritten.incrementAndGet();
                        wrote = true;
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        raw.write(b, off, len);
                        if (len > 0) {
                            counter.bytesWritten.addAndGet(len);
                            wrote = true;
                        }
                    }
                };
            }
            return out;
        }

        private void beforeRead() {
            if (wrote) {
                wrote = false;
                counter.roundTrips.incrementAndGet();
            }
        }
    }
}
