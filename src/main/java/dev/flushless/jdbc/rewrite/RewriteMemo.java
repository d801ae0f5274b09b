package dev.flushless.jdbc.rewrite;

import java.util.Arrays;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * The texts {@link Rewriter} already built, by what they were built from. The rewriter is pure (one text per input),
 * so a text is reused for as long as it is kept: a transaction's flush or a keyed batch of a statement seen before
 * builds no string (texts over {@link #MAX_TEXT_CHARS} characters are not kept). Keys hold the statement by identity (the analyzer hands out one description per cached text) and
 * copies of the arrays. Bounded: at {@link #MAX_ENTRIES} texts it starts again empty.
 */
final class RewriteMemo {

    static final int MAX_ENTRIES = 4096;
    /** Longer texts (multi-row VALUES lists of big batches) are built each time, not kept. */
    static final int MAX_TEXT_CHARS = 32_768;

    private static final ConcurrentHashMap<Key, String> TEXTS = new ConcurrentHashMap<>();

    private RewriteMemo() {}

    /** One input: the form's name, then its parts (compared by {@code equals}, arrays by content). */
    private static final class Key {
        private final Object[] parts;
        private final int hash;

        Key(Object[] parts) {
            this.parts = parts;
            this.hash = Arrays.deepHashCode(parts);
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && key.hash == hash && Arrays.deepEquals(key.parts, parts);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    /**
     * The text built from {@code parts} by {@code build}: the one kept, or a new one (then kept). {@code parts} holds
     * everything the text depends on; arrays in it are copied before they are kept.
     */
    static String text(Supplier<String> build, Object... parts) {
        String text = TEXTS.get(new Key(parts));
        if (text != null) {
            return text;
        }
        text = build.get();
        if (text.length() > MAX_TEXT_CHARS) {
            return text;
        }
        if (TEXTS.size() >= MAX_ENTRIES) {
            TEXTS.clear();
        }
        Object[] kept = parts.clone();
        for (int i = 0; i < kept.length; i++) {
            kept[i] = copy(kept[i]);
        }
        TEXTS.put(new Key(kept), text);
        return text;
    }

    private static Object copy(Object part) {
        if (part instanceof Object[] array) {
            return array.clone();
        }
        if (part instanceof boolean[] array) {
            return array.clone();
        }
        if (part instanceof java.util.List<?> list) {
            return java.util.List.copyOf(list);
        }
        return part;
    }
}
