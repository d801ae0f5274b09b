package dev.flushless.jdbc.conformance;

import java.util.List;

/** Conformance behaviours: TODO. */
final class Batches {

    private Batches() {
    }

    static List<Behaviour> behaviours() {
        return List.of();
    }
}
