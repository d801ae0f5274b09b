package dev.flushless.jdbc.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A user-space TCP proxy in front of a PostgreSQL server that delays each direction by a fixed time and
 * counts the round trips of the PostgreSQL protocol that go through it (kernel netem is not available on
 * the machines this project runs on).
 *
 * <p>Each direction of each connection has its own reader and writer thread: bytes read at time t are
 * written on at t + delay, in the order they were read, and the two directions never wait for each other
 * (a request travelling to the server does not hold up a response travelling to the client). With a delay
 * of zero the reader writes directly. One request/response exchange therefore costs 2 x delay plus the
 * server's work.
 *
 * <p><b>Round trips</b> are counted protocol-aware, not per TCP segment (a byte-level count overcounts:
 * the server answers part of a request, e.g. pgjdbc's {@code BEGIN}, before the client waits for it). The
 * proxy parses the client's messages and the server's replies. Every {@code Sync} and simple {@code Query}
 * asks for one {@code ReadyForQuery}. A round trip is counted when the client's last message was a
 * {@code Sync} or {@code Query}, it has sent nothing since, and the last {@code ReadyForQuery} it is owed
 * is delivered to it: the client stopped and waited for the server. Several {@code Sync}s sent in one go
 * (pipelining) therefore count once, and so does a {@code Query} the client follows with more messages
 * without waiting for its answer (pgjdbc sends {@code BEGIN} so). This agrees with counting
 * write-to-read transitions on the driver's socket ({@link RoundTripCountingSocketFactory}); the test
 * checks both. Caveat: the proxy sees the client's bytes when it reads them, so at a delay of zero a
 * client that pipelines across a TCP segment boundary could in principle be seen as waiting. The
 * connection's start-up (SSL request, start-up message, authentication) is
 * not counted. An encrypted connection cannot be parsed: use {@code sslmode=disable} through the proxy
 * (see {@link #proxiedUrl(String)}); such connections are counted in {@link #unparsedConnections()}.
 *
 * <p>The proxy listens on 127.0.0.1 only, runs daemon threads and closes all its connections on
 * {@link #close()}.
 */
public final class LatencyProxy implements AutoCloseable {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final Pattern HOST_PORT = Pattern.compile("^(jdbc:(?:flushless:)?postgresql://)([^/?]*)(.*)$");

    private final InetSocketAddress target;
    private final long delayNanos;
    private final ServerSocket listener;
    private final Thread acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final AtomicLong roundTrips = new AtomicLong();
    private final AtomicLong syncs = new AtomicLong();
    private final AtomicLong simpleQueries = new AtomicLong();
    private final AtomicLong clientBytes = new AtomicLong();
    private final AtomicLong serverBytes = new AtomicLong();
    private final AtomicLong connections = new AtomicLong();
    private final AtomicLong unparsed = new AtomicLong();
    private volatile boolean closed;

    private LatencyProxy(InetSocketAddress target, long delayNanos) throws IOException {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay must not be negative: " + delayNanos + " ns");
        }
        this.target = target;
        this.delayNanos = delayNanos;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = daemon(this::acceptLoop, "latency-proxy-" + listener.getLocalPort() + "-accept");
        acceptor.start();
    }

    /** Starts a proxy on an ephemeral port of 127.0.0.1 forwarding to {@code host:port}, delaying each direction by {@code delayMicros}. */
    public static LatencyProxy start(String host, int port, long delayMicros) throws IOException {
        return new LatencyProxy(new InetSocketAddress(host, port), TimeUnit.MICROSECONDS.toNanos(delayMicros));
    }

    /** Starts a proxy in front of the server of a {@code jdbc:[flushless:]postgresql://host[:port]/...} URL. */
    public static LatencyProxy forUrl(String jdbcUrl, long delayMicros) throws IOException {
        Matcher m = HOST_PORT.matcher(jdbcUrl);
        if (!m.matches() || m.group(2).isEmpty() || m.group(2).contains(",")) {
            throw new IllegalArgumentException("Expected jdbc:[flushless:]postgresql://host[:port]/..., one host: " + jdbcUrl);
        }
        String hostPort = m.group(2);
        String host = hostPort;
        int port = 5432;
        int colon = hostPort.lastIndexOf(':');
        if (colon > 0 && !hostPort.endsWith("]")) {
            host = hostPort.substring(0, colon);
            port = Integer.parseInt(hostPort.substring(colon + 1));
        }
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return start(host, port, delayMicros);
    }

    /** The local port the proxy listens on (127.0.0.1). */
    public int port() {
        return listener.getLocalPort();
    }

    /** The one-way delay in microseconds. */
    public long delayMicros() {
        return TimeUnit.NANOSECONDS.toMicros(delayNanos);
    }

    /**
     * {@code jdbcUrl} ({@code jdbc:postgresql://...} or {@code jdbc:flushless:postgresql://...}) pointed at
     * this proxy, with {@code sslmode=disable} added (the proxy must read the protocol).
     */
    public String proxiedUrl(String jdbcUrl) {
        Matcher m = HOST_PORT.matcher(jdbcUrl);
        if (!m.matches()) {
            throw new IllegalArgumentException("Expected jdbc:[flushless:]postgresql://host[:port]/...: " + jdbcUrl);
        }
        String rest = m.group(3);
        if (rest.isEmpty()) {
            rest = "/";
        }
        rest += (rest.contains("?") ? "&" : "?") + "sslmode=disable";
        return m.group(1) + "127.0.0.1:" + port() + rest;
    }

    /** Round trips counted since the start or the last {@link #resetCounters()} (see the class comment). */
    public long roundTrips() {
        return roundTrips.get();
    }

    /** {@code Sync} messages sent by clients (each ends one extended-protocol exchange). */
    public long syncs() {
        return syncs.get();
    }

    /** Simple-protocol {@code Query} messages sent by clients. */
    public long simpleQueries() {
        return simpleQueries.get();
    }

    /** Bytes forwarded client to server. */
    public long clientBytes() {
        return clientBytes.get();
    }

    /** Bytes forwarded server to client. */
    public long serverBytes() {
        return serverBytes.get();
    }

    /** Connections accepted since the start (not reset). */
    public long connections() {
        return connections.get();
    }

    /** Connections whose protocol could not be parsed (encrypted): their round trips are not counted. */
    public long unparsedConnections() {
        return unparsed.get();
    }

    /** Sets the round-trip, message and byte counters to zero. */
    public void resetCounters() {
        roundTrips.set(0);
        syncs.set(0);
        simpleQueries.set(0);
        clientBytes.set(0);
        serverBytes.set(0);
    }

    @Override
    public void close() {
        closed = true;
        closeQuietly(listener);
        for (Socket socket : sockets) {
            closeQuietly(socket);
        }
        sockets.clear();
        try {
            acceptor.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "LatencyProxy[127.0.0.1:" + port() + " -> " + target + ", delay " + delayMicros() + " us]";
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Socket server = new Socket();
            try {
                client.setTcpNoDelay(true);
                server.setTcpNoDelay(true);
                server.connect(target, 10_000);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
                continue;
            }
            sockets.add(client);
            sockets.add(server);
            connections.incrementAndGet();
            Exchange exchange = new Exchange();
            int id = client.getPort();
            try {
                pump(client, server, exchange.clientParser(), clientBytes, "c2s-" + id);
                pump(server, client, exchange.serverParser(), serverBytes, "s2c-" + id);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
            }
        }
    }

    /**
     * Copies {@code from} to {@code to} after the delay. {@code parser} sees each chunk when it is read
     * (client to server) or when it is delivered (server to client), see {@link Exchange}.
     */
    private void pump(Socket from, Socket to, ChunkParser parser, AtomicLong bytes, String name) throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Runnable onEnd = () -> {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
        };
        if (delayNanos == 0) {
            daemon(() -> {
                byte[] buffer = new byte[64 * 1024];
                try {
                    int n;
                    while ((n = in.read(buffer)) >= 0) {
                        parser.parse(buffer, n);
                        bytes.addAndGet(n);
                        out.write(buffer, 0, n);
                    }
                } catch (IOException ignored) {
                    // peer closed
                } finally {
                    onEnd.run();
                }
            }, "latency-proxy-" + port() + "-" + name).start();
            return;
        }
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        daemon(() -> {
            byte[] buffer = new byte[64 * 1024];
            try {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    long due = System.nanoTime() + delayNanos;
                    if (parser.atRead()) {
                        parser.parse(buffer, n);
                    }
                    queue.add(new Chunk(Arrays.copyOf(buffer, n), due));
                }
            } catch (IOException ignored) {
                // peer closed
            } finally {
                queue.add(Chunk.END);
            }
        }, "latency-proxy-" + port() + "-read-" + name).start();
        daemon(() -> {
            try {
                while (true) {
                    Chunk chunk = queue.take();
                    if (chunk == Chunk.END) {
                        break;
                    }
                    long wait;
                    while ((wait = chunk.due - System.nanoTime()) > 0) {
                        LockSupport.parkNanos(wait);
                    }
                    if (!parser.atRead()) {
                        parser.parse(chunk.bytes, chunk.bytes.length);
                    }
                    bytes.addAndGet(chunk.bytes.length);
                    out.write(chunk.bytes);
                }
            } catch (IOException | InterruptedException ignored) {
                // peer closed or proxy closing
            } finally {
                onEnd.run();
            }
        }, "latency-proxy-" + port() + "-write-" + name).start();
    }

    private static Thread daemon(Runnable body, String name) {
        Thread t = new Thread(body, name);
        t.setDaemon(true);
        return t;
    }

    private static void closeQuietly(AutoCloseable c) {
        try {
            c.close();
        } catch (Exception ignored) {
            // closing anyway
        }
    }

    private record Chunk(byte[] bytes, long due) {
        static final Chunk END = new Chunk(new byte[0], 0);
    }

    /** Sees the bytes of one direction in order. */
    private interface ChunkParser {
        void parse(byte[] bytes, int length);

        /** Whether to parse chunks when read (else when delivered to the other side). */
        boolean atRead();
    }

    /**
     * The protocol state of one proxied connection. The client side is parsed as it is read (a request
     * counts from the moment the client sent it); the server side as it is delivered to the client (a
     * reply counts from the moment the client can see it), so pipelined requests sent before the client
     * saw the previous reply are one round trip.
     */
    private final class Exchange {
        /** ReadyForQuery messages owed to the client. */
        private final AtomicInteger owed = new AtomicInteger();
        /** One-byte answers (SSL / GSS encryption requests) the server owes before its typed messages. */
        private final AtomicInteger singleByteAnswers = new AtomicInteger();
        private volatile boolean opaque;
        /**
         * The client's last message was a Sync or Query and it has sent nothing since: it waits. False as
         * soon as it starts another message (it did not wait, e.g. pgjdbc's {@code BEGIN}, sent as a simple
         * Query whose answer pgjdbc reads only with the next statement's).
         */
        private volatile boolean waiting;

        ChunkParser clientParser() {
            return new MessageReader(true) {
                @Override
                void onStartupPacket(int code) {
                    if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                        singleByteAnswers.incrementAndGet();
                        typed = false; // the start-up message follows, untyped
                    } else if (code == CANCEL_REQUEST) {
                        opaque = true; // nothing more on this connection
                    }
                }

                @Override
                void onMessage(byte type) {
                    if (type == 'S' || type == 'Q') {
                        (type == 'S' ? syncs : simpleQueries).incrementAndGet();
                        owed.incrementAndGet();
                        waiting = true;
                    }
                }
            };
        }

        ChunkParser serverParser() {
            return new MessageReader(false) {
                @Override
                boolean singleByte(byte b) {
                    if (singleByteAnswers.get() > 0) {
                        singleByteAnswers.decrementAndGet();
                        if (b == 'S' || b == 'G') {
                            opaque = true;
                            unparsed.incrementAndGet();
                        }
                        return true;
                    }
                    return false;
                }

                @Override
                void onMessage(byte type) {
                    if (type == 'Z' && owed.updateAndGet(n -> Math.max(0, n - 1)) == 0 && waiting) {
                        waiting = false;
                        roundTrips.incrementAndGet();
                    }
                }
            };
        }

        /** Splits a byte stream into PostgreSQL messages: [type byte] int32 length (including itself) body. */
        private abstract class MessageReader implements ChunkParser {
            private final boolean client;
            /** Whether messages carry a type byte (false for the client's start-up packets). */
            boolean typed;
            private final byte[] header = new byte[8];
            private int headerFill;
            private long bodyLeft;

            MessageReader(boolean client) {
                this.client = client;
                this.typed = !client;
            }

            @Override
            public boolean atRead() {
                return client;
            }

            @Override
            public void parse(byte[] bytes, int length) {
                int i = 0;
                while (i < length && !opaque) {
                    if (bodyLeft > 0) {
                        int take = (int) Math.min(bodyLeft, length - i);
                        bodyLeft -= take;
                        i += take;
                        continue;
                    }
                    if (headerFill == 0 && !client && singleByte(bytes[i])) {
                        i++;
                        continue;
                    }
                    if (headerFill == 0 && client && typed) {
                        waiting = false; // a new message: the client did not wait for the previous answer
                    }
                    header[headerFill++] = bytes[i++];
                    if (headerFill == (typed ? 5 : 8)) { // type + length, or start-up length + code
                        headerFill = 0;
                        if (typed) {
                            bodyLeft = int32(1) - 4L;
                            onMessage(header[0]);
                        } else {
                            bodyLeft = int32(0) - 8L;
                            typed = true; // after one start-up packet come typed messages ...
                            onStartupPacket((int) int32(4)); // ... unless it was an SSL/GSS request
                        }
                    }
                }
            }

            private long int32(int at) {
                return ((header[at] & 0xffL) << 24) | ((header[at + 1] & 0xffL) << 16)
                        | ((header[at + 2] & 0xffL) << 8) | (header[at + 3] & 0xffL);
            }

            void onStartupPacket(int code) {
            }

            /** Consumes a one-byte answer at a message boundary; {@code true} when it was one. */
            boolean singleByte(byte b) {
                return false;
            }

            abstract void onMessage(byte type);
        }
    }
}
