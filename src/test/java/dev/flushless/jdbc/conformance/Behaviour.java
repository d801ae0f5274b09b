package dev.flushless.jdbc.conformance;

import java.sql.Connection;

/**
 * One row of the conformance table: a named piece of application code that runs against a connection and
 * writes what it observes into a {@link Transcript}.
 */
public record Behaviour(String name, Action action, Expectation expectation) {

    /**
     * What the Flushless batch-mode run must have done, so that an equal transcript is not vacuous: the
     * rewrite kind that must have run (rows counted in the connection's stats), or a fallback reason that
     * must have been counted. {@code null} fields expect nothing.
     */
    public record Expectation(String rewriteKind, String fallbackReason) {
        static final Expectation NONE = new Expectation(null, null);
    }

    /** The application code; anything it does not catch fails the behaviour. */
    @FunctionalInterface
    public interface Action {
        void run(Env env, Transcript transcript) throws Exception;
    }

    /** What a behaviour runs against: one connection given to it, and a way to open more of the same kind. */
    public interface Env {
        /** The connection of the variant under test (bare pgjdbc or Flushless), in the behaviour's own schema. */
        Connection connection();

        /** Another connection of the same variant and schema; closed by the runner after the behaviour. */
        Connection open() throws java.sql.SQLException;

        /** A {@link javax.sql.DataSource} of the same variant and schema (Flushless: a FlushlessDataSource). */
        javax.sql.DataSource dataSource();

        /**
         * Another connection of the same variant and schema with extra {@code flushless.*} URL parameters
         * (ignored by the bare pgjdbc variant; its counters also feed the expectation check).
         */
        Connection open(String flushlessParameters) throws java.sql.SQLException;

        /**
         * A connection to the same schema that bypasses the driver (plain pgjdbc in every variant): another program,
         * whose DDL the driver does not see.
         */
        Connection openOutside() throws java.sql.SQLException;
    }

    public static Behaviour of(String name, Action action) {
        return new Behaviour(name, action, Expectation.NONE);
    }

    /** A behaviour whose batch-mode run must coalesce rows with a rewrite whose kind starts with {@code kind}. */
    public static Behaviour rewritten(String kind, String name, Action action) {
        return new Behaviour(name, action, new Expectation(kind, null));
    }

    /** The rewrite kind of a batch sent as COPY ({@code BatchPlan.COPY_KIND}). */
    static final String COPY = "insert-copy";

    /**
     * A behaviour whose batches coalesce in batch mode and, with {@code flushless.copy=always}, go as COPY (rows counted
     * as {@link #COPY}).
     */
    public static Behaviour copied(String name, Action action) {
        return new Behaviour(name, action, new Expectation(COPY, null));
    }

    /** A behaviour none of whose batches may go as COPY, even with {@code flushless.copy=always}. */
    public static Behaviour notCopied(String name, Action action) {
        return new Behaviour(name, action, new Expectation("!" + COPY, null));
    }

    /** A behaviour whose batch-mode run must fall back with a reason containing {@code reason}. */
    public static Behaviour fallsBack(String reason, String name, Action action) {
        return new Behaviour(name, action, new Expectation(null, reason));
    }
}
