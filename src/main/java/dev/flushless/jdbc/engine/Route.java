package dev.flushless.jdbc.engine;

/**
 * How one execution the application asked for reaches the server. Decided by {@link Engine} for every execution and
 * batch; the JDBC facades only carry the decision out where it means calling pgjdbc.
 */
public enum Route {
    /**
     * {@code flushless.mode=transaction}: a plain INSERT inside an explicit transaction, kept in the connection's buffer
     * and acknowledged at once with its known count (one per row).
     */
    BUFFER,
    /**
     * {@code flushless.mode=transaction}: a write whose count the application needs, sent in the same round trip as
     * the buffered writes, after them.
     */
    RIDE_ALONG,
    /**
     * {@code flushless.groupCommit=true}: a single-row autocommit INSERT sent in one statement with concurrent ones of
     * the same SQL text from other connections.
     */
    GROUP,
    /** A batch sent as few statements as its rewrite allows (one round trip). */
    COALESCE,
    /** Exactly as the application sent it, through pgjdbc. */
    AS_SENT
}
