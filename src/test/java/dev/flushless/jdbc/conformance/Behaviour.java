package dev.flushless.jdbc.conformance;

import java.sql.Connection;

/**
 * One row of the conformance table: a named piece of application code that runs against a connection and
 * writes what it observes into a {@link Transcript}.
 */
public record Behaviour(String name, Action action) {

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
    }

    public static Behaviour of(String name, Action action) {
        return new Behaviour(name, action);
    }
}
