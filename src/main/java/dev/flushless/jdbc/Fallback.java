package dev.flushless.jdbc;

/**
 * One occurrence of a {@link FallbackReason}: the reason (counted by its code) and the text that explains this
 * occurrence (may quote SQL; DEBUG log and {@code explain} only).
 */
public record Fallback(FallbackReason reason, String text) {

    /** The code of the reason (what the report and the metrics count). */
    public String code() {
        return reason.code();
    }

    @Override
    public String toString() {
        return text;
    }
}
