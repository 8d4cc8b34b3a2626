package dev.turnstile.engine.locks;

import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.api.LockStatistics;
import dev.turnstile.engine.db.Caches;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * Cooperative locks this engine's sessions took, were refused and released since it opened, and
 * how long the released ones were held (from the save that locked to the one that unlocked, both
 * here): what the metrics report ({@code turnstile.lock.*}). A lock that lapses, or that another
 * engine releases, counts as taken and not as held.
 */
public final class LockCounts {
    private final LongAdder granted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder heldNanos = new LongAdder();
    /** When each lock taken here was taken; bounded, so locks that lapse are forgotten. */
    private final Cache<UUID, Long> takenAt = Caches.builder().maximumSize(10_000).expireAfterWrite(Duration.ofDays(1)).build();

    void granted(UUID id) {
        granted.increment();
        takenAt.put(id, System.nanoTime());
    }

    void refusal() {
        refused.increment();
    }

    void released(UUID id) {
        Long at = takenAt.asMap().remove(id);
        if (at != null) {
            released.increment();
            heldNanos.add(System.nanoTime() - at);
        }
    }

    public LockStatistics snapshot() {
        return new LockStatistics(granted.sum(), refused.sum(), released.sum(), Duration.ofNanos(heldNanos.sum()));
    }
}
