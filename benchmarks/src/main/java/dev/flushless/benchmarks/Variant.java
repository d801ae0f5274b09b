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
    /** Flushless, {@code flushless.mode=batch}. */
    FLUSHLESS_BATCH;
    // Add FLUSHLESS_TRANSACTION here (flushless.mode=transaction) when that mode lands: connect() maps
    // the mode from the name, and every workload's @Param list names the variants it runs.

    /** The name used in {@code @Param} values and in the results ({@code flushless_batch}). */
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    public static Variant of(String id) {
        return valueOf(id.toUpperCase(Locale.ROOT));
    }

    /** Whether this variant runs the application's JDBC code (everything but {@link #HANDWRITTEN}). */
    public boolean applicationCode() {
        return this != HANDWRITTEN;
    }

    /** The Flushless mode, or {@code null} for pgjdbc variants. */
    public String flushlessMode() {
        String id = id();
        return id.startsWith("flushless_") ? id.substring("flushless_".length()) : null;
    }
}
