package dev.flushless.jdbc.conformance;

import java.util.List;

/** Conformance behaviours: TODO. */
final class Pooling {

    private Pooling() {
    }

    static List<Behaviour> behaviours() {
        return List.of();
    }
}
