package dev.flushless.jdbc.conformance;

import java.util.List;

/** Conformance behaviours: TODO. */
final class ErrorsAndWarnings {

    private ErrorsAndWarnings() {
    }

    static List<Behaviour> behaviours() {
        return List.of();
    }
}
