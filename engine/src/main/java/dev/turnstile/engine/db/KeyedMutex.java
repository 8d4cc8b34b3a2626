package dev.turnstile.engine.db;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * Work on one key runs one at a time in this process, work on different keys at once. An entry
 * lives while some thread runs or waits on its key, so keys seen once cost nothing after. Not fair:
 * a thread that comes as the lock is let go may go first, which keeps a busy key busy.
 */
public final class KeyedMutex {
    private final ConcurrentHashMap<Object, Entry> entries = new ConcurrentHashMap<>();

    private static final class Entry {
        final ReentrantLock lock = new ReentrantLock();
        int users; // guarded by the map's compute on its key
    }

    public <T> T oneAtATime(Object key, Supplier<T> work) {
        Entry entry = entries.compute(key, (k, e) -> {
            Entry held = e == null ? new Entry() : e;
            held.users++;
            return held;
        });
        entry.lock.lock();
        try {
            return work.get();
        } finally {
            entry.lock.unlock();
            entries.computeIfPresent(key, (k, e) -> --e.users == 0 ? null : e);
        }
    }
}
