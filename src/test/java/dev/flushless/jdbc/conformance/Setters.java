package dev.flushless.jdbc.conformance;

import java.util.List;

/** Conformance behaviours: TODO. */
final class Setters {

    private Setters() {
    }

    static List<Behaviour> behaviours() {
        return List.of();
    }
}
