package dev.flushless.benchmarks;

import java.util.Locale;

/**
 * The ways each workload is run. {@link #BARE}, {@link #REWRITE} and the Flushless variants run the same
 * application code (plain JDBC, as an application or Hibernate writes it); only the connection differs.
 * {@link #HANDWRITTEN} runs the statement(s) a careful engineer would write by hand: the physical limit in
 * statements and round trips.
 */
public enum Variant {
    /** pgjdbc as it comes. */
    BARE,
    /** pgjdbc with {@code reWriteBatchedInserts=true}. */
    REWRITE,
    /** The best hand-written SQL (one statement, autocommit, arrays bound as parameters). */
    HANDWRITTEN,
    /**
     * pgjdbc as it comes, loading with hand-written {@code COPY .. FROM STDIN} (text format, pgjdbc's
     * {@code CopyManager}) instead of a JDBC batch, in a transaction committed per batch like the others: the bulk
     * workloads' third baseline ({@link BulkInsert}; no other workload runs it).
     */
    COPY,
    /** Flushless, {@code flushless.mode=batch}. */
    FLUSHLESS_BATCH,
    /**
     * Flushless, {@code flushless.mode=transaction}: plain INSERTs of an explicit transaction are buffered and
     * sent with the next statement that needs them, or with the COMMIT (one implicit transaction when nothing
     * else reached the server). The {@link Harness} maps the mode from the name; each workload's {@code @Param}
     * list names the variants it runs.
     */
    FLUSHLESS_TRANSACTION,
    /**
     * Flushless with {@code flushless.groupCommit=true} (in the default {@code flushless.mode=batch}): concurrent
     * single-row autocommit INSERTs of one SQL text from connections with the same session settings run as one
     * multi-row statement. Only meaningful with several threads (W8).
     */
    FLUSHLESS_GROUP_COMMIT;

    /** The name used in {@code @Param} values and in the results ({@code flushless_batch}). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Variant of(String id) {
        return valueOf(id.toUpperCase(Locale.ROOT));
    }

    /** Whether this variant runs the application's JDBC code (everything but {@link #HANDWRITTEN} and {@link #COPY}). */
    public boolean applicationCode() {
        return this != HANDWRITTEN && this != COPY;
    }

    /** Whether this is a baseline to compare Flushless with (pgjdbc in some form: not a Flushless variant). */
    public boolean baseline() {
        return flushlessMode() == null;
    }

    /** The Flushless mode, or {@code null} for pgjdbc variants. */
    public String flushlessMode() {
        if (this == FLUSHLESS_GROUP_COMMIT) {
            return "batch";
        }
        String id = id();
        return id.startsWith("flushless_") ? id.substring("flushless_".length()) : null;
    }

    /** The Flushless URL parameters of this variant ({@code flushless.mode=...}), or {@code null} for pgjdbc variants. */
    public String flushlessUrlParameters() {
        String mode = flushlessMode();
        if (mode == null) {
            return null;
        }
        return "flushless.mode=" + mode + (this == FLUSHLESS_GROUP_COMMIT ? "&flushless.groupCommit=true" : "");
    }
}
