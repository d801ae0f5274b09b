package dev.flushless.examples.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.SocketFactory;

/**
 * A pgjdbc {@code socketFactory} for the tests that counts client round trips: each time a connection starts
 * reading after it has written (the client sent something and now waits for the server's answer) is one
 * round trip. Connections opened with the same {@code socketFactoryArg} add to the same counter
 * ({@link #counter(String)}).
 */
public final class RoundTripCounter extends SocketFactory {

    private static final Map<String, AtomicLong> COUNTERS = new ConcurrentHashMap<>();

    private final AtomicLong counter;

    /** pgjdbc calls this with the value of {@code socketFactoryArg}. */
    public RoundTripCounter(String name) {
        this.counter = counter(name);
    }

    public static AtomicLong counter(String name) {
        return COUNTERS.computeIfAbsent(name == null ? "" : name, k -> new AtomicLong());
    }

    @Override
    public Socket createSocket() {
        return new CountingSocket(counter);
    }

    @Override
    public Socket createSocket(String host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    @Override
    public Socket createSocket(InetAddress host, int port) throws IOException {
        return connected(new InetSocketAddress(host, port), null);
    }

    @Override
    public Socket createSocket(InetAddress host, int port, InetAddress localHost, int localPort) throws IOException {
        return connected(new InetSocketAddress(host, port), new InetSocketAddress(localHost, localPort));
    }

    private Socket connected(InetSocketAddress remote, InetSocketAddress local) throws IOException {
        Socket socket = createSocket();
        if (local != null) {
            socket.bind(local);
        }
        socket.connect(remote);
        return socket;
    }

    /** A socket whose streams notice the switch from writing to reading. */
    private static final class CountingSocket extends Socket {
        private final AtomicLong counter;
        private volatile boolean sentSinceLastRead;
        private InputStream input;
        private OutputStream output;

        CountingSocket(AtomicLong counter) {
            this.counter = counter;
        }

        @Override
        public synchronized InputStream getInputStream() throws IOException {
            if (input == null) {
                InputStream raw = super.getInputStream();
                input = new InputStream() {
                    @Override
                    public int read() throws IOException {
                        awaitingAnswer();
                        return raw.read();
                    }

                    @Override
                    public int read(byte[] b, int off, int len) throws IOException {
                        awaitingAnswer();
                        return raw.read(b, off, len);
                    }

                    @Override
                    public int available() throws IOException {
                        return raw.available();
                    }

                    @Override
                    public void close() throws IOException {
                        raw.close();
                    }
                };
            }
            return input;
        }

        @Override
        public synchronized OutputStream getOutputStream() throws IOException {
            if (output == null) {
                OutputStream raw = super.getOutputStream();
                output = new OutputStream() {
                    @Override
                    public void write(int b) throws IOException {
                        raw.write(b);
                        sentSinceLastRead = true;
                    }

                    @Override
                    public void write(byte[] b, int off, int len) throws IOException {
                        raw.write(b, off, len);
                        if (len > 0) {
                            sentSinceLastRead = true;
                        }
                    }

                    @Override
                    public void flush() throws IOException {
                        raw.flush();
                    }

                    @Override
                    public void close() throws IOException {
                        raw.close();
                    }
                };
            }
            return output;
        }

        private void awaitingAnswer() {
            if (sentSinceLastRead) {
                sentSinceLastRead = false;
                counter.incrementAndGet();
            }
        }
    }
}
