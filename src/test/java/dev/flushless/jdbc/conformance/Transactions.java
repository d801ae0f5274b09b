package dev.flushless.jdbc.conformance;

import java.util.List;

/** Conformance behaviours: TODO. */
final class Transactions {

    private Transactions() {
    }

    static List<Behaviour> behaviours() {
        return List.of();
    }
}
