package dev.flushless.jdbc.engine;

import java.util.LinkedHashMap;
import java.util.Map;

/** A map that keeps its {@code capacity} most recently used entries (access order), for per-connection memos. */
final class RecentMap<K, V> extends LinkedHashMap<K, V> {
    private static final long serialVersionUID = 1L;

    private final int capacity;

    RecentMap(int capacity) {
        super(64, 0.75f, true);
        this.capacity = capacity;
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<K, V> eldest) {
        return size() > capacity;
    }
}
