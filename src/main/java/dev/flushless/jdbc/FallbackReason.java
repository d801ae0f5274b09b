package dev.flushless.jdbc;

import java.util.Locale;

/**
 * Why rows ran as the application sent them (or ran coalesced, but not in the form asked for): a closed
 * vocabulary with stable codes. The report ({@code FlushlessReport.fallbacks()}) and the Micrometer tag
 * {@code flushless.fallbacks{reason=...}} use the {@link #code()} only, so metric back-ends never see SQL text and
 * tag values are bounded. The detail of one occurrence (a column name, an SQL fragment, a SQLState), which
 * {@link Fallback#text()} renders, goes only to the DEBUG log ({@code System.Logger} "dev.flushless.jdbc.fallback")
 * and to {@code explain}. The user guide's fallback-reason table (docs/guide.md) lists every code and is checked against this enum
 * by a test; codes are never renamed or reused once released.
 */
public enum FallbackReason {

    // ---- the statement itself (analysis) ----
    NOT_ANALYSABLE("not-analysable", "not analysable: %s"),
    EMPTY_STATEMENT("empty-statement", "empty statement"),
    SEVERAL_STATEMENTS("several-statements", "several statements in one text"),
    TOO_DEEP("too-deep", "expression nested too deeply to analyse"),
    NOT_A_WRITE("not-a-write", "not an INSERT, UPDATE or DELETE"),
    NOT_PARSED("not-parsed", "SQL not understood by the parser"),
    WITH_CLAUSE("with-clause", "%s with a WITH clause"),
    SYNTAX_NOT_POSTGRESQL("syntax-not-postgresql", "%s syntax PostgreSQL does not have"),
    INSERT_SELECT("insert-select", "INSERT ... SELECT"),
    SEVERAL_VALUES_ROWS("several-values-rows", "INSERT with several VALUES rows"),
    VALUES_NOT_ROW_INDEPENDENT("values-not-row-independent", "VALUES expression not proven row-independent: %s"),
    VALUES_NOT_LOCATED("values-not-located", "%s", "the VALUES tuple could not be located in the text (…)"),
    PARAMETER_OUTSIDE_VALUES("parameter-outside-values", "parameter outside the VALUES tuple"),
    ON_CONFLICT_NO_TARGET("on-conflict-no-target", "ON CONFLICT without a conflict target"),
    ON_CONFLICT_TARGET_NOT_COLUMNS(
            "on-conflict-target-not-columns", "ON CONFLICT ON CONSTRAINT, on an expression or on a partial index"),
    ON_CONFLICT_COLUMN_NOT_PARAMETER(
            "on-conflict-column-not-parameter", "ON CONFLICT column %s is not supplied by a parameter"),
    ON_CONFLICT_SET_NOT_ROW_INDEPENDENT(
            "on-conflict-set-not-row-independent",
            "ON CONFLICT DO UPDATE SET expression not proven row-independent: %s"),
    ON_CONFLICT_WHERE_NOT_ROW_INDEPENDENT(
            "on-conflict-where-not-row-independent", "ON CONFLICT DO UPDATE WHERE not proven row-independent"),
    ON_CONFLICT_CHANGES_TARGET("on-conflict-changes-target", "ON CONFLICT DO UPDATE changes a conflict column"),
    ON_CONFLICT_ACTION("on-conflict-action", "ON CONFLICT action %s"),
    UPDATE_FROM("update-from", "UPDATE ... FROM"),
    DELETE_USING("delete-using", "DELETE ... USING"),
    RETURNING_NOT_COALESCED("returning-not-coalesced", "%s ... RETURNING is not coalesced yet"),
    NO_WHERE("no-where", "%s without WHERE"),
    SET_COLUMN_LIST("set-column-list", "UPDATE SET of a column list"),
    SET_NOT_ROW_INDEPENDENT("set-not-row-independent", "SET expression not a single parameter or row-independent: %s"),
    SET_CHANGES_WHERE("set-changes-where", "SET changes every column the WHERE clause matches on"),
    WHERE_NO_KEY("where-no-key", "WHERE has no column = ? conjunct"),
    PARAMETER_OUTSIDE_KEYS("parameter-outside-keys", "parameters outside SET values and WHERE column = ? conjuncts"),
    WHERE_NOT_LOCATED("where-not-located", "%s", "the WHERE keyword could not be located in the text (…)"),
    WHERE_OTHER_TABLE("where-other-table", "WHERE column of another table: %s"),
    WHERE_CONJUNCT("where-conjunct", "WHERE conjunct not of the form column = ?: %s"),
    NOT_CHAINABLE("not-chainable", "%s", "a Statement batch member cannot join a CTE chain (…)"),
    NOT_ANALYSED_FOR_CHAINING("not-analysed-for-chaining", "not analysed for chaining"),

    // ---- the batch and the table (planning) ----
    SINGLE_ROW("single-row", "batch of one row: nothing to coalesce"),
    SMALL_BATCH(
            "small-batch",
            "batch of %s %s, below flushless.minBatchRows (%s): coalescing would cost more than it saves",
            "a batch smaller than flushless.minBatchRows (50 on PostgreSQL by default): coalescing would cost more than"
                    + " it saves"),
    FIRST_BATCH(
            "first-batch",
            "the connection's first batch into the table in this transaction (flushless.coalesceFirstBatch=false): its"
                    + " catalog facts are read with the COMMIT",
            "the connection's first batch into a table whose catalog facts it has not read, inside a transaction, runs"
                    + " as sent (bare pgjdbc's round trips); the facts are read in the COMMIT's round trip"),
    FIRST_WRITE(
            "first-write",
            "the connection's first write into the table (flushless.bufferFirstWrite=false)",
            "mode=transaction: the connection's first single write into a table runs as sent; the table's catalog facts"
                    + " are read at its second write"),
    NEAR_SERVER(
            "near-server",
            "the server answers within flushless.bufferMinRoundTripMicros: buffering would cost more than it saves",
            "mode=transaction: reads from the server take less than flushless.bufferMinRoundTripMicros (the server is"
                    + " as near as the same host), so the transaction's writes run as sent"),
    PGJDBC_REWRITES("pgjdbc-rewrites", "pgjdbc's reWriteBatchedInserts rewrites it (its counts are SUCCESS_NO_INFO)"),
    STREAM_OR_LOB("stream-or-lob", "stream or LOB parameter"),
    UNKEPT_OBJECT("unkept-object", "setObject value of a class that cannot be kept for a replay"),
    TABLE_NOT_PLAIN("table-not-plain", "%s", "the target is not a plain table (a view, a foreign table, not found: …)"),
    TRIGGERS(
            "triggers",
            "%s",
            "the table has user triggers, rules or row-level security (…; see flushless.trustTriggers)"),
    EXACT_SEQUENCES("exact-sequences", "table draws ids from a sequence and flushless.exactSequences=true"),
    CATALOG_LOOKUP_FAILED("catalog-lookup-failed", "catalog lookup failed (SQLState %s)"),
    STANDARD_CONFORMING_STRINGS_OFF("standard-conforming-strings-off", "standard_conforming_strings is off"),
    MISSING_PARAMETER("missing-parameter", "a batch row lacks a parameter value"),
    KEYS_FOR_UPDATE_OR_DELETE("keys-for-update-or-delete", "generated keys requested for UPDATE or DELETE"),
    COLUMN_NAMED("column-named", "table has a column named %s"),
    UNIQUENESS_NOT_MODELLED(
            "uniqueness-not-modelled",
            "changes rows of a table whose uniqueness is not modelled (%s): its checks depend on the order rows change"),
    UNIQUE_KEY_OUT_OF_ORDER(
            "unique-key-out-of-order",
            "sets a column of a unique key (%s) in statements out of batch"
                    + " order (a repeated key): unique checks would run in another order than row by row"),
    UNIQUE_UPDATE_SMALL(
            "unique-update-small",
            "sets a column of a unique key (%s) in a batch of %s rows, below flushless.uniqueUpdateMinRows (%s): the"
                    + " in-order unique check costs more than the statements it replaces",
            "a keyed UPDATE batch that sets a column of a unique key, smaller than flushless.uniqueUpdateMinRows (100"
                    + " on PostgreSQL by default): the in-order unique check costs more than the statements it"
                    + " replaces"),
    SUBTRANSACTION_LIMIT(
            "subtransaction-limit",
            "the transaction took %s guard savepoints, the driver's cap: later batches and writes run as sent",
            "inside a transaction that already took 48 of the driver's guard savepoints: later batches and writes run"
                    + " as sent, so that the backend's 64 cached subtransaction IDs do not overflow"),
    FOREIGN_KEY_ORDER("foreign-key-order", "%s", "a foreign key would be checked in another order than row by row (…)"),
    NOT_PGJDBC("not-pgjdbc", "the delegate connection is not pgjdbc: parameter types unknown"),
    COLUMN_NOT_FOUND("column-not-found", "%s", "a column the statement names is not in the catalog (…)"),
    VALUE_TOO_LONG("value-too-long", "%s", "a bound value is longer than its varchar/char column allows (…)"),
    PARAMETER_NOT_MATCHED("parameter-not-matched", "parameter %s not matched to a column"),
    EQUALITY_NOT_MODELLED(
            "equality-not-modelled", "%s", "a key value of a type whose equality the driver does not model (…)"),
    SETTER_TYPE_NOT_MODELLED("setter-type-not-modelled", "parameter %s: setter whose declared type is not modelled"),
    TYPE_NOT_NAMEABLE("type-not-nameable", "parameter %s: column type %s cannot be named in a cast"),
    MIXED_TYPES("mixed-types", "%s", "the rows bind a parameter with different or undeclared types (…)"),
    UPSERT_KEYS_NOT_TARGET(
            "upsert-keys-not-target", "generated keys of ON CONFLICT that do not include the conflict columns"),
    UPSERT_OUT_OF_ORDER("upsert-out-of-order", "%s", "upsert rows would need statements out of batch order (…)"),
    STATEMENT_BATCH_MEMBER(
            "statement-batch-member",
            "%s",
            "a Statement batch holds a text that is not one INSERT, UPDATE or DELETE (…)"),
    NOTHING_SHARES("nothing-shares", "no two statements of the batch can share one statement"),

    // ---- ON CONFLICT as an anti-join (noted: the rows ran coalesced in the native form) ----
    /** Why the anti-join form does not apply; counted only inside {@link #ANTI_JOIN_NOT_APPLIED}'s note. */
    ANTI_JOIN_PROBLEM(
            "antijoin-problem", "%s", "why the anti-join form does not apply (only inside antijoin-not-applied: …)"),
    ANTI_JOIN_NOT_APPLIED("antijoin-not-applied", "onConflict=antijoin not applied, native ON CONFLICT used: %s"),
    ANTI_JOIN_RETRIED(
            "antijoin-retried",
            "onConflict=antijoin: unique violation (SQLState 23505, a concurrent insert"
                    + " of the same key?), retried as native ON CONFLICT"),
    ANTI_JOIN_RAISED(
            "antijoin-raised",
            "onConflict=antijoin: unique violation on the conflict target in a" + " transaction, raised"),

    // ---- undone and re-run as sent ----
    COALESCED_FAILED("coalesced-failed", "coalesced statement failed (SQLState %s), re-run as sent"),
    BUFFER_FAILED("buffer-failed", "buffered writes failed when sent together, re-run as sent"),
    DRAW_BEFORE_ROLLBACK_FAILED(
            "draw-before-rollback-failed", "writes sent before rollback() to draw their ids failed"),
    GROUP_FAILED("group-failed", "group commit failed, re-run alone"),

    // ---- group commit's measured choice (noted: the INSERT ran as sent, at once) ----
    /**
     * A leader could have waited for company, but its lane measured that its rows take longer each with waits than
     * without (see {@code GroupCommit.Lane#observe}): the INSERT ran at once, alone.
     */
    GROUP_WAIT_UNPAID(
            "group-wait-unpaid", "group commit: waiting for company measured slower than none, INSERT ran at once");

    private final String code;
    private final String template;
    private final String meaning;

    FallbackReason(String code, String template) {
        this(code, template, template.replace("%s", "…"));
    }

    FallbackReason(String code, String template, String meaning) {
        this.code = code;
        this.template = template;
        this.meaning = meaning;
    }

    /** What the reason means, details shown as "…" (the user guide's table). */
    public String meaning() {
        return meaning;
    }

    /** The stable code: the report's key, the metric tag's value, the user guide's table's first column. */
    public String code() {
        return code;
    }

    /** The text of this reason with its details left as {@code %s}. */
    public String template() {
        return template;
    }

    /**
     * An occurrence of this reason with {@code details} filling the template's {@code %s} in order. The text is
     * rendered when first asked for ({@link Fallback#text()}); a detail that is not an immutable value is rendered
     * now, so that the text says what it would have said at this call.
     */
    public Fallback because(Object... details) {
        for (int i = 0; i < details.length; i++) {
            Object detail = details[i];
            if (!(detail == null
                    || detail instanceof String
                    || detail instanceof Integer
                    || detail instanceof Long
                    || detail instanceof Enum<?>)) {
                details[i] = String.format(Locale.ROOT, "%s", detail);
            }
        }
        return new Fallback(this, details);
    }

    /** An occurrence of a reason without details. */
    public Fallback get() {
        return because();
    }

    /** The reason whose code is {@code code}, or {@code null}. */
    public static FallbackReason ofCode(String code) {
        for (FallbackReason reason : values()) {
            if (reason.code.equals(code)) {
                return reason;
            }
        }
        return null;
    }
}
