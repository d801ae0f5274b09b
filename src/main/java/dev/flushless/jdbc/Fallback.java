package dev.flushless.jdbc;

import java.util.Locale;
import java.util.Objects;

/**
 * One occurrence of a {@link FallbackReason}: the reason (counted by its code) and the text that explains this
 * occurrence (may quote SQL; DEBUG log and {@code explain} only). The text is rendered from the reason's template on
 * first use: most occurrences are only counted (a small batch running as sent is the driver's hot path), and
 * formatting a text nobody reads would cost more than the count.
 */
public final class Fallback {

    private final FallbackReason reason;
    /** The template's details (immutable: strings, numbers, enums). */
    private final Object[] details;
    /** The rendered text, or {@code null} until first asked for (a benign race: any thread renders the same text). */
    private String text;

    Fallback(FallbackReason reason, Object[] details) {
        this.reason = reason;
        this.details = details;
    }

    public FallbackReason reason() {
        return reason;
    }

    /** The text of this occurrence: the reason's template with its details filled in. */
    public String text() {
        String rendered = text;
        if (rendered == null) {
            rendered = String.format(Locale.ROOT, reason.template(), details);
            text = rendered;
        }
        return rendered;
    }

    /** The code of the reason (what the report and the metrics count). */
    public String code() {
        return reason.code();
    }

    /** Equal when the reason and the text are (as the record this class replaced). */
    @Override
    public boolean equals(Object o) {
        return o instanceof Fallback other && reason == other.reason && text().equals(other.text());
    }

    @Override
    public int hashCode() {
        return Objects.hash(reason, text());
    }

    @Override
    public String toString() {
        return text();
    }
}
