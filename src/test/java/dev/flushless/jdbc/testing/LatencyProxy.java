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
 * <p><b>Delay precision</b>: the delay is given in microseconds or fractional milliseconds
 * ({@link #forUrlMillis(String, double)}: 0.25 ms works). A plain {@code parkNanos} wakes 0.1-0.2 ms late on the
 * virtual machines this project runs on (timer slack plus wake-up), which is most of a sub-millisecond delay: a
 * 0.25 ms proxy measured 0.45 ms one way with parking alone. The writer therefore parks until
 * {@value #DEFAULT_SPIN_MICROS} µs (system property {@value #SPIN_PROPERTY}; 0 parks only, the behaviour before
 * 2026-11-23) before a chunk is due and busy-waits the rest ({@code Thread.onSpinWait()}; with
 * {@code -D}{@value #SPIN_YIELD_PROPERTY}{@code =true} a {@code Thread.yield()} loop, which was later under load
 * on 2 shared cores). At most {@value #DEFAULT_MAX_SPINNERS} writers per JVM (system property
 * {@value #MAX_SPINNERS_PROPERTY}) spin at a time; the others park to the due time, so many connections (W8) do
 * not turn the proxy into a CPU hog. How late chunks went out is counted ({@link #delayedChunks()},
 * {@link #meanLatenessMicros()}, {@link #maxLatenessMicros()}); the achieved round-trip delay is measured end to
 * end by the benchmarks' {@code ProxyDelayCheck} (SELECT 1 pings).
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
 * <p><b>Faults</b>: {@link #cut(Cut, String, int)} arms a one-shot fault that kills a connection (both of
 * its sockets) at a chosen moment around the client request whose bytes contain a marker (e.g. the text of
 * the statement a flush sends): before any of it reaches the server, half-way through it, after the server
 * ran it to its end but before the client sees the reply, or right after the reply. While a fault is armed,
 * each connection's client bytes are held until the request they belong to is complete (a request ends
 * with any message other than Parse, Bind, Describe, Execute, Close or CopyData; pgjdbc ends its requests
 * with Sync), so the proxy can decide before forwarding any of it. {@link #cutNow()} kills every open
 * connection at once.
 *
 * <p>The proxy listens on 127.0.0.1 only, runs daemon threads and closes all its connections on
 * {@link #close()}.
 */
public final class LatencyProxy implements AutoCloseable {

    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;
    private static final int CANCEL_REQUEST = 80877102;
    private static final Pattern HOST_PORT = Pattern.compile("^(jdbc:(?:flushless:)?postgresql://)([^/?]*)(.*)$");

    /** System property: how long before a chunk is due its writer stops parking and spins (µs; 0: park only). */
    public static final String SPIN_PROPERTY = "flushless.proxy.spinMicros";
    /** System property: how many writer threads of this JVM may spin at once. */
    public static final String MAX_SPINNERS_PROPERTY = "flushless.proxy.maxSpinners";

    static final long DEFAULT_SPIN_MICROS = 200;
    static final int DEFAULT_MAX_SPINNERS = 2;
    private static final long SPIN_NANOS =
            TimeUnit.MICROSECONDS.toNanos(Long.getLong(SPIN_PROPERTY, DEFAULT_SPIN_MICROS));
    private static final int MAX_SPINNERS = Integer.getInteger(MAX_SPINNERS_PROPERTY, DEFAULT_MAX_SPINNERS);
    /** System property: {@code true} spins with {@code Thread.yield()} instead of {@code Thread.onSpinWait()}. */
    public static final String SPIN_YIELD_PROPERTY = "flushless.proxy.spinYield";

    private static final boolean SPIN_YIELD = Boolean.getBoolean(SPIN_YIELD_PROPERTY);
    /** Writers spinning now, over all proxies of this JVM. */
    private static final AtomicInteger SPINNERS = new AtomicInteger();

    private final InetSocketAddress target;
    /** Delay of each chunk read from now on (see {@link #setDelayMillis}). */
    private volatile long delayNanos;
    /** Whether this proxy was started with a delay: only then do its links queue chunks (fixed per proxy). */
    private final boolean delayed;

    private final AtomicLong delayedChunks = new AtomicLong();
    private final AtomicLong latenessNanos = new AtomicLong();
    private final AtomicLong maxLatenessNanos = new AtomicLong();
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
    /** The armed fault, or null. */
    private volatile Fault fault;

    private final List<Link> links = new CopyOnWriteArrayList<>();

    /** Where {@link #cut(Cut, String, int)} kills the connection, relative to the request carrying the marker. */
    public enum Cut {
        /** Nothing of the request reaches the server. */
        BEFORE_REQUEST,
        /**
         * The first half of the request's bytes reaches the server: whatever complete messages it holds run,
         * but not its end (no Sync, no COMMIT at its end), so the server rolls back what it began.
         */
        MID_REQUEST,
        /**
         * The whole request reaches the server, which runs it to its end (its last ReadyForQuery is sent,
         * so what it committed is committed); the connection dies before the client receives that
         * ReadyForQuery.
         */
        BEFORE_REPLY,
        /** The reply reaches the client in full; the connection dies right after it. */
        AFTER_REPLY
    }

    /** A one-shot fault, see {@link #cut(Cut, String, int)}. */
    private static final class Fault {
        final Cut cut;
        final byte[] marker;
        /** Matching requests still to let through before the one that is cut. */
        final AtomicInteger skip;

        final java.util.concurrent.CountDownLatch fired = new java.util.concurrent.CountDownLatch(1);

        Fault(Cut cut, byte[] marker, int occurrence) {
            this.cut = cut;
            this.marker = marker;
            this.skip = new AtomicInteger(occurrence - 1);
        }
    }

    private LatencyProxy(InetSocketAddress target, long delayNanos) throws IOException {
        if (delayNanos < 0) {
            throw new IllegalArgumentException("delay must not be negative: " + delayNanos + " ns");
        }
        this.target = target;
        this.delayNanos = delayNanos;
        this.delayed = delayNanos > 0;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = daemon(this::acceptLoop, "latency-proxy-" + listener.getLocalPort() + "-accept");
        acceptor.start();
    }

    /** Starts a proxy on an ephemeral port of 127.0.0.1 forwarding to {@code host:port}, delaying each direction by {@code delayMicros}. */
    public static LatencyProxy start(String host, int port, long delayMicros) throws IOException {
        return new LatencyProxy(new InetSocketAddress(host, port), TimeUnit.MICROSECONDS.toNanos(delayMicros));
    }

    /**
     * Starts a proxy in front of the server of a {@code jdbc:[flushless:]postgresql://host[:port]/...} URL,
     * delaying each direction by {@code delayMs} milliseconds (fractional: 0.25 is 250 µs; kept to the nanosecond).
     */
    public static LatencyProxy forUrlMillis(String jdbcUrl, double delayMs) throws IOException {
        if (!(delayMs >= 0) || Double.isInfinite(delayMs)) {
            throw new IllegalArgumentException("delay must be a finite number of ms, not negative: " + delayMs);
        }
        return new LatencyProxy(targetOf(jdbcUrl), Math.round(delayMs * 1_000_000));
    }

    /** Starts a proxy in front of the server of a {@code jdbc:[flushless:]postgresql://host[:port]/...} URL. */
    public static LatencyProxy forUrl(String jdbcUrl, long delayMicros) throws IOException {
        return new LatencyProxy(targetOf(jdbcUrl), TimeUnit.MICROSECONDS.toNanos(delayMicros));
    }

    private static InetSocketAddress targetOf(String jdbcUrl) {
        Matcher m = HOST_PORT.matcher(jdbcUrl);
        if (!m.matches() || m.group(2).isEmpty() || m.group(2).contains(",")) {
            throw new IllegalArgumentException(
                    "Expected jdbc:[flushless:]postgresql://host[:port]/..., one host: " + jdbcUrl);
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
        return new InetSocketAddress(host, port);
    }

    /** The local port the proxy listens on (127.0.0.1). */
    public int port() {
        return listener.getLocalPort();
    }

    /** The one-way delay in microseconds. */
    public long delayMicros() {
        return TimeUnit.NANOSECONDS.toMicros(delayNanos);
    }

    /** How long before a chunk is due its writer stops parking and spins, in µs ({@value #SPIN_PROPERTY}). */
    public static long spinMicros() {
        return TimeUnit.NANOSECONDS.toMicros(SPIN_NANOS);
    }

    /** How many writers of this JVM may spin at once ({@value #MAX_SPINNERS_PROPERTY}). */
    public static int maxSpinners() {
        return MAX_SPINNERS;
    }

    /** The one-way delay in nanoseconds. */
    /**
     * Changes the delay of the chunks read from now on, e.g. to warm a benchmark's code up at no added delay before
     * it measures at the delay it was started with. A proxy started without delay forwards at once whatever this is
     * set to.
     */
    public void setDelayMillis(double delayMs) {
        if (delayMs < 0) {
            throw new IllegalArgumentException("delay must not be negative: " + delayMs + " ms");
        }
        this.delayNanos = Math.round(delayMs * 1e6);
    }

    public long delayNanos() {
        return delayNanos;
    }

    /** Chunks that went through the delay (both directions) since the start or the last {@link #resetCounters()}. */
    public long delayedChunks() {
        return delayedChunks.get();
    }

    /** How late, on average, a delayed chunk was written after it was due (µs; 0 when none was delayed). */
    public double meanLatenessMicros() {
        long n = delayedChunks.get();
        return n == 0 ? 0 : latenessNanos.get() / 1e3 / n;
    }

    /** The latest a delayed chunk was written after it was due (µs). */
    public double maxLatenessMicros() {
        return maxLatenessNanos.get() / 1e3;
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
        delayedChunks.set(0);
        latenessNanos.set(0);
        maxLatenessNanos.set(0);
    }

    /**
     * Arms a one-shot fault: the {@code occurrence}-th client request (counted from now, over all
     * connections) whose bytes contain {@code marker} (UTF-8; e.g. part of a statement's text, which pgjdbc
     * sends in its Parse message until a statement is prepared on the server) kills its connection at
     * {@code cut}. Replaces a fault armed before.
     */
    public void cut(Cut cut, String marker, int occurrence) {
        if (occurrence < 1) {
            throw new IllegalArgumentException("occurrence must be at least 1: " + occurrence);
        }
        fault = new Fault(cut, marker.getBytes(java.nio.charset.StandardCharsets.UTF_8), occurrence);
    }

    /** {@link #cut(Cut, String, int)} of the first request containing {@code marker}. */
    public void cut(Cut cut, String marker) {
        cut(cut, marker, 1);
    }

    /** True when the armed fault has killed its connection. */
    public boolean faultFired() {
        Fault f = fault;
        return f != null && f.fired.getCount() == 0;
    }

    /** Removes an armed fault (held bytes are then forwarded as their requests complete). */
    public void disarm() {
        fault = null;
    }

    /** Kills every connection open now (both sockets), as a network failure would. */
    public void cutNow() {
        for (Link link : links) {
            link.kill();
        }
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
        return "LatencyProxy[127.0.0.1:" + port() + " -> " + target + ", delay " + delayNanos / 1e3 + " us]";
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
            Link link = new Link(client, server);
            links.add(link);
            Exchange exchange = new Exchange(link);
            int id = client.getPort();
            try {
                pump(link, client, server, exchange.clientParser(), link.gate, clientBytes, "c2s-" + id);
                pump(link, server, client, exchange.serverParser(), link.replyCut, serverBytes, "s2c-" + id);
            } catch (IOException e) {
                closeQuietly(client);
                closeQuietly(server);
            }
        }
    }

    /**
     * Copies {@code from} to {@code to} after the delay. {@code parser} sees each chunk when it is read
     * (client to server) or when it is delivered (server to client), see {@link Exchange}; {@code filter}
     * then decides what of it goes on, and whether the connection dies after that (faults).
     */
    private void pump(
            Link link, Socket from, Socket to, ChunkParser parser, Filter filter, AtomicLong bytes, String name)
            throws IOException {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        Runnable onEnd = () -> {
            closeQuietly(from);
            closeQuietly(to);
            sockets.remove(from);
            sockets.remove(to);
            links.remove(link);
        };
        if (!delayed) {
            daemon(
                            () -> {
                                byte[] buffer = new byte[64 * 1024];
                                try {
                                    int n;
                                    while ((n = in.read(buffer)) >= 0) {
                                        parser.parse(buffer, n);
                                        bytes.addAndGet(n);
                                        if (!forward(filter.apply(buffer, n), out, link)) {
                                            break;
                                        }
                                    }
                                } catch (IOException ignored) {
                                    // peer closed
                                } finally {
                                    onEnd.run();
                                }
                            },
                            "latency-proxy-" + port() + "-" + name)
                    .start();
            return;
        }
        BlockingQueue<Chunk> queue = new LinkedBlockingQueue<>();
        daemon(
                        () -> {
                            byte[] buffer = new byte[64 * 1024];
                            try {
                                int n;
                                while ((n = in.read(buffer)) >= 0) {
                                    long due = System.nanoTime() + delayNanos;
                                    if (parser.atRead()) {
                                        parser.parse(buffer, n);
                                        Forward forward = filter.apply(buffer, n);
                                        queue.add(new Chunk(
                                                Arrays.copyOf(forward.bytes(), forward.length()),
                                                due,
                                                forward.kill(),
                                                true));
                                    } else {
                                        queue.add(new Chunk(Arrays.copyOf(buffer, n), due, false, false));
                                    }
                                }
                            } catch (IOException ignored) {
                                // peer closed
                            } finally {
                                queue.add(Chunk.END);
                            }
                        },
                        "latency-proxy-" + port() + "-read-" + name)
                .start();
        daemon(
                        () -> {
                            try {
                                while (true) {
                                    Chunk chunk = queue.take();
                                    if (chunk == Chunk.END) {
                                        break;
                                    }
                                    awaitDue(chunk.due);
                                    Forward forward;
                                    if (chunk.filtered) {
                                        forward = new Forward(chunk.bytes, chunk.bytes.length, chunk.kill);
                                    } else {
                                        parser.parse(chunk.bytes, chunk.bytes.length);
                                        forward = filter.apply(chunk.bytes, chunk.bytes.length);
                                    }
                                    bytes.addAndGet(chunk.bytes.length);
                                    if (!forward(forward, out, link)) {
                                        break;
                                    }
                                }
                            } catch (IOException | InterruptedException ignored) {
                                // peer closed or proxy closing
                            } finally {
                                onEnd.run();
                            }
                        },
                        "latency-proxy-" + port() + "-write-" + name)
                .start();
    }

    /**
     * Returns at (or just after) {@code due}: parks until {@code SPIN_NANOS} before it, then spins when fewer than
     * {@code MAX_SPINNERS} writers spin already, else parks on; records how late it returned.
     */
    private void awaitDue(long due) {
        long wait;
        while ((wait = due - System.nanoTime()) > SPIN_NANOS) {
            LockSupport.parkNanos(wait - SPIN_NANOS);
        }
        if (wait > 0 && SPIN_NANOS > 0) {
            if (SPINNERS.incrementAndGet() <= MAX_SPINNERS) {
                try {
                    while (System.nanoTime() - due < 0) {
                        if (SPIN_YIELD) {
                            Thread.yield();
                        } else {
                            Thread.onSpinWait();
                        }
                    }
                } finally {
                    SPINNERS.decrementAndGet();
                }
            } else {
                SPINNERS.decrementAndGet();
            }
        }
        while ((wait = due - System.nanoTime()) > 0) {
            LockSupport.parkNanos(wait);
        }
        long late = System.nanoTime() - due;
        delayedChunks.incrementAndGet();
        latenessNanos.addAndGet(late);
        maxLatenessNanos.accumulateAndGet(late, Math::max);
    }

    /**
     * Writes what {@code forward} lets through; false (after killing the connection) when it is a cut. A cut
     * marks the connection dying before its last bytes go out, so that nothing the peer sends in answer to
     * them (a client that got its reply and sends COMMIT at once) slips through the other direction before
     * the sockets are closed.
     */
    private static boolean forward(Forward forward, OutputStream out, Link link) throws IOException {
        if (forward.kill()) {
            link.dying = true;
        } else if (link.dying) {
            link.kill();
            return false;
        }
        if (forward.length() > 0) {
            out.write(forward.bytes(), 0, forward.length());
            out.flush();
        }
        if (forward.kill()) {
            link.kill();
            return false;
        }
        return true;
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

    /** A chunk on its way; {@code filtered}: already passed its {@link Filter} (client side), {@code kill} after it. */
    private record Chunk(byte[] bytes, long due, boolean kill, boolean filtered) {
        static final Chunk END = new Chunk(new byte[0], 0, false, true);
    }

    /** What of a chunk goes on ({@code bytes[0, length)}, possibly bytes held from earlier chunks) and whether the connection dies after it. */
    private record Forward(byte[] bytes, int length, boolean kill) {}

    /** Decides, per chunk, what goes on: faults. */
    private interface Filter {
        Forward apply(byte[] bytes, int length);
    }

    /** One proxied connection: its two sockets, and the state of the faults on it. */
    private final class Link {
        final Socket client;
        final Socket server;
        final RequestGate gate = new RequestGate(this);
        final ReplyCut replyCut = new ReplyCut();
        /** A fault that fired on a request of this connection and cuts at (or after) the ReadyForQuery ending it. */
        volatile Fault pendingReplyFault;
        /** Set when a cut is under way: nothing more is forwarded in either direction. */
        volatile boolean dying;

        Link(Socket client, Socket server) {
            this.client = client;
            this.server = server;
        }

        void kill() {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    /**
     * Server to client: lets everything through until a fault fixed the stream offset at which the
     * connection dies (the start or the end of the ReadyForQuery that ends the faulty request's exchange).
     */
    private static final class ReplyCut implements Filter {
        /** Server bytes delivered so far. */
        private long delivered;
        /** Stream offset at which the connection dies, or Long.MAX_VALUE. */
        volatile long cutAt = Long.MAX_VALUE;

        @Override
        public Forward apply(byte[] bytes, int length) {
            long start = delivered;
            delivered += length;
            long at = cutAt;
            if (at > start + length) {
                return new Forward(bytes, length, false);
            }
            return new Forward(bytes, (int) Math.max(0, at - start), true);
        }
    }

    /**
     * Client to server: frames the client's messages; while a fault is armed, holds each request's bytes until
     * the request is complete and then forwards it, or applies the fault when the request contains its marker.
     */
    private final class RequestGate implements Filter {
        private final Link link;
        private final java.io.ByteArrayOutputStream pending = new java.io.ByteArrayOutputStream();
        private boolean typed;
        private boolean opaque;
        private final byte[] header = new byte[8];
        private int headerFill;
        private long bodyLeft;
        private byte type;
        /** Holding the current request's bytes (a fault was armed when it began). */
        private boolean holding;

        RequestGate(Link link) {
            this.link = link;
        }

        @Override
        public Forward apply(byte[] bytes, int length) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream(length);
            int i = 0;
            int from = 0; // start of the bytes of this chunk not yet forwarded or held
            while (i < length) {
                if (opaque) {
                    i = length;
                    break;
                }
                boolean atBoundary = headerFill == 0 && bodyLeft == 0;
                if (atBoundary && typed && !holding && fault != null && fault.fired.getCount() > 0) {
                    out.write(bytes, from, i - from); // everything before this request goes on
                    from = i;
                    holding = true;
                }
                if (bodyLeft > 0) {
                    int take = (int) Math.min(bodyLeft, length - i);
                    bodyLeft -= take;
                    i += take;
                } else {
                    header[headerFill++] = bytes[i++];
                    if (headerFill == (typed ? 5 : 8)) {
                        headerFill = 0;
                        if (typed) {
                            type = header[0];
                            bodyLeft = int32(header, 1) - 4L;
                        } else {
                            bodyLeft = int32(header, 0) - 8L;
                            int code = (int) int32(header, 4);
                            typed = code != SSL_REQUEST && code != GSSENC_REQUEST;
                            opaque = code == CANCEL_REQUEST;
                        }
                    }
                }
                if (holding && headerFill == 0 && bodyLeft == 0 && endsRequest(type)) {
                    pending.write(bytes, from, i - from);
                    from = i;
                    holding = false;
                    byte[] request = pending.toByteArray();
                    pending.reset();
                    Forward decided = decide(request, out);
                    if (decided != null) {
                        return decided;
                    }
                }
            }
            if (holding) {
                pending.write(bytes, from, length - from);
            } else {
                out.write(bytes, from, length - from);
            }
            byte[] result = out.toByteArray();
            return new Forward(result, result.length, false);
        }

        /** A complete held request: forwards it into {@code out} (null), or the fault's cut (the connection dies). */
        private Forward decide(byte[] request, java.io.ByteArrayOutputStream out) {
            Fault f = fault;
            if (f == null
                    || f.fired.getCount() == 0
                    || indexOf(request, f.marker) < 0
                    || f.skip.getAndDecrement() > 0) {
                out.write(request, 0, request.length);
                return null;
            }
            f.fired.countDown();
            switch (f.cut) {
                case BEFORE_REQUEST: {
                    byte[] before = out.toByteArray();
                    return new Forward(before, before.length, true);
                }
                case MID_REQUEST: {
                    out.write(request, 0, request.length / 2);
                    byte[] half = out.toByteArray();
                    return new Forward(half, half.length, true);
                }
                default:
                    link.pendingReplyFault = f;
                    out.write(request, 0, request.length);
                    return null; // the rest of this chunk (normally nothing: the client waits) goes on too
            }
        }

        /** Messages after which pgjdbc (or any client) may wait for the server: everything but the extended-query parts. */
        private boolean endsRequest(byte t) {
            return t != 'P' && t != 'B' && t != 'D' && t != 'E' && t != 'C' && t != 'd';
        }
    }

    private static long int32(byte[] b, int at) {
        return ((b[at] & 0xffL) << 24) | ((b[at + 1] & 0xffL) << 16) | ((b[at + 2] & 0xffL) << 8) | (b[at + 3] & 0xffL);
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
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
        private final Link link;
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

        Exchange(Link link) {
            this.link = link;
        }

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
                    if (type == 'Z' && owed.updateAndGet(n -> Math.max(0, n - 1)) == 0) {
                        Fault f = link.pendingReplyFault;
                        if (f != null) {
                            // this ReadyForQuery ends the exchange of the request the fault fired on
                            link.pendingReplyFault = null;
                            link.replyCut.cutAt = f.cut == Cut.BEFORE_REPLY ? position - 5 : position + bodyLeft;
                        }
                        if (waiting) {
                            waiting = false;
                            roundTrips.incrementAndGet();
                        }
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
            /** Body bytes of the current message still to come. */
            long bodyLeft;
            /** Stream offset just past the last byte parsed (in {@link #onMessage}: just past the message's header). */
            long position;

            private long parsed;

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
                long chunkStart = parsed;
                parsed += length;
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
                            position = chunkStart + i;
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
                return ((header[at] & 0xffL) << 24)
                        | ((header[at + 1] & 0xffL) << 16)
                        | ((header[at + 2] & 0xffL) << 8)
                        | (header[at + 3] & 0xffL);
            }

            void onStartupPacket(int code) {}

            /** Consumes a one-byte answer at a message boundary; {@code true} when it was one. */
            boolean singleByte(byte b) {
                return false;
            }

            abstract void onMessage(byte type);
        }
    }
}
