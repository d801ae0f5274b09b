package dev.flushless.jdbc.differential;

import java.sql.BatchUpdateException;
import java.sql.SQLException;
import java.util.Arrays;
import java.util.Objects;

/**
 * What the application observed at one step: its values (update counts, generated keys, rows), or the error it
 * raised (exception class, SQLState, a {@code BatchUpdateException}'s update counts, its message), and what the
 * runner's recovery after that error observed. Messages are compared too: exactly, but for the numbers in them
 * where the step re-ran a failed attempt (deviation 4 changes ids, and the server's details repeat values), and for
 * an error of buffered writes (deviation 1), Flushless's message must carry the server's.
 *
 * @param deferred an oracle-side error of buffered writes sent at this step (documented deviation 1): it matches
 *     any error with the same SQLState, since Flushless raises it as its own {@code SQLException} with the
 *     server's SQLState, whatever the call
 * @param sequences the state of every sequence after the step ({@code name=last_value/is_called}), or
 *     {@code null} when the schema has none; compared separately (see {@link Runner})
 * @param reRuns a Flushless run's own account (its fallback counters) of what failed during the step and was undone
 *     and re-run as sent ({@link #BUFFER_RERUN}, {@link #STATEMENT_RERUN}); not compared, it only tells the oracle
 *     where the known sequence drift occurs
 */
record StepResult(
        String value,
        String errorClass,
        String sqlState,
        String errorCounts,
        String message,
        boolean deferred,
        String recovery,
        String sequences,
        int reRuns) {

    /** {@link #reRuns} bit: buffered writes were sent together, failed, and were re-run as sent. */
    static final int BUFFER_RERUN = 1;
    /** {@link #reRuns} bit: the step's own coalesced statement failed and was re-run as sent. */
    static final int STATEMENT_RERUN = 2;
    /** {@link #reRuns} bit: rollback() sent the buffered writes (to draw their ids) and they failed, not re-run. */
    static final int ROLLBACK_DRAW_FAILED = 4;

    static StepResult ok(String value) {
        return new StepResult(value, null, null, null, null, false, null, null, 0);
    }

    static StepResult error(Throwable e) {
        if (e instanceof SQLException sql) {
            String counts = null;
            if (e instanceof BatchUpdateException batch) {
                counts = Arrays.toString(batch.getUpdateCounts());
            }
            return new StepResult(
                    null,
                    e.getClass().getSimpleName(),
                    sql.getSQLState(),
                    counts,
                    e.getMessage(),
                    false,
                    null,
                    null,
                    0);
        }
        return new StepResult(null, e.getClass().getName(), null, null, String.valueOf(e), false, null, null, 0);
    }

    /** An oracle-side error of the buffered writes sent at this step. */
    static StepResult deferredError(SQLException server) {
        return new StepResult(
                null, "SQLException", server.getSQLState(), null, server.getMessage(), true, null, null, 0);
    }

    boolean ok() {
        return errorClass == null;
    }

    StepResult withRecovery(String text) {
        return new StepResult(value, errorClass, sqlState, errorCounts, message, deferred, text, sequences, reRuns);
    }

    StepResult withSequences(String state) {
        return new StepResult(value, errorClass, sqlState, errorCounts, message, deferred, recovery, state, reRuns);
    }

    StepResult withReRuns(int bits) {
        return new StepResult(value, errorClass, sqlState, errorCounts, message, deferred, recovery, sequences, bits);
    }

    boolean attempted() {
        return reRuns != 0;
    }

    /** The compared form: values, or class, SQLState and batch counts of the error, then the recovery. */
    String render() {
        String main = ok()
                ? "ok " + value
                : deferred
                        ? "error (buffered writes) [" + sqlState + "]"
                        : "error " + errorClass + "[" + sqlState + "]"
                                + (errorCounts == null ? "" : " counts=" + errorCounts);
        return recovery == null ? main : main + " | recovery: " + recovery;
    }

    /** The rendering with the message, for reports. */
    String describe() {
        return render() + (message == null ? "" : "\n        message: " + message.replace("\n", " "));
    }

    /**
     * True when the variant's observation is what this (reference) observation allows: equal renderings, or, for a
     * deferred error, any error with the same SQLState and the same recovery.
     */
    boolean allows(StepResult variant) {
        if (deferred) {
            return !variant.ok()
                    && Objects.equals(sqlState, variant.sqlState())
                    && Objects.equals(recovery, variant.recovery())
                    && carries(variant.message(), message, variant);
        }
        return render().equals(variant.render()) && (ok() || sameMessage(message, variant.message(), variant));
    }

    /**
     * The error messages agree: equal (pgjdbc's own message, from the statement re-run as sent), or, where the step
     * re-ran a failed attempt, equal but for numbers (the ids a failed attempt drew are gone, deviation 4, and
     * messages quote the failing row's values).
     */
    private static boolean sameMessage(String reference, String seen, StepResult variant) {
        if (Objects.equals(reference, seen)) {
            return true;
        }
        if (reference == null || seen == null) {
            return false;
        }
        String a = withoutRenderedTypes(reference);
        String b = withoutRenderedTypes(seen);
        return a.equals(b) || variant.attempted() && a.replaceAll("[0-9]+", "#").equals(b.replaceAll("[0-9]+", "#"));
    }

    /**
     * pgjdbc's message for a failed batch entry renders the statement with its parameters, each with the type pgjdbc
     * knows for it ({@code ('2024-01-16'::date)}), and it knows more types once the statement's text was described on
     * the connection: after a failed coalesced attempt that ran the application's text for some rows, the re-run's
     * message shows types bare pgjdbc's first execution does not (a known limit, docs/semantics.md). The types are
     * dropped from such renderings before comparing; the values, the statement and the server's error stay compared.
     */
    static String withoutRenderedTypes(String message) {
        return message.startsWith("Batch entry ")
                ? message.replaceAll("'::[A-Za-z0-9_ \"]+(\\[\\])?\\)", "')")
                : message;
    }

    /** A deferred error's message carries the server's (Flushless adds which buffered write failed, and where). */
    private static boolean carries(String seen, String server, StepResult variant) {
        if (server == null || seen == null) {
            return server == null;
        }
        String core = server.replaceAll("\\s+", " ").trim();
        String text = seen.replaceAll("\\s+", " ");
        return text.contains(core)
                || variant.attempted() && text.replaceAll("[0-9]+", "#").contains(core.replaceAll("[0-9]+", "#"));
    }
}
