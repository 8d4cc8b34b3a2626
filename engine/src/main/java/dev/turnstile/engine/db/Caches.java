package dev.turnstile.engine.db;

import com.github.benmanes.caffeine.cache.Caffeine;

/**
 * How the engine builds its in-memory caches: Caffeine's builder, with the cache's upkeep (evicting
 * past the bound or the expiry, removal notices) run by the thread that writes, not handed to
 * {@code ForkJoinPool.commonPool()}. A bounded cache schedules that upkeep after every write, and a
 * lock+unlock pair writes several (the locks held here, the passes in a row, when a lock was taken):
 * each woke a pool thread — five futex calls a pair where ShedLock's made almost none, and a second of
 * a core per 30 s on one thread's pairs. The upkeep itself is a few map operations.
 */
public final class Caches {
    private Caches() {
    }

    /** A cache builder whose upkeep runs on the calling thread. */
    public static Caffeine<Object, Object> builder() {
        return Caffeine.newBuilder().executor(Runnable::run);
    }
}
