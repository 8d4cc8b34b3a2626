package dev.turnstile.engine.locks;

import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.db.Caches;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.objects.LockHook;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Locks this engine let go while other processes waited for them (its unlock's note told them),
 * whose next requests here wait for those processes first. Without it the releasing process, a
 * round trip away, asked again before a woken process could, and kept the lock: 4 processes on a
 * cooperative-lock dispenser, one served while the others' callers waited up to a second (issue
 * 16). Waiting for one unlock only let 4 processes take turns two by two; staying out the whole
 * time left the lock idle when only one other process waited (docs/BENCHMARKS.md).
 */
final class HandOvers {
    /** More turns than any hand-over has (a process per turn). */
    private static final int ALL_TURNS = 1_000_000;

    /** Null when the hand-over is off. */
    private final Cache<UUID, HandOver> handedOver;
    private final long handOverNanos;
    private final WakeUps unlockWaiters;
    private final StoredUsn storedUsn;

    /** An object's USN as stored now. */
    @FunctionalInterface
    interface StoredUsn {
        long of(String className, UUID id);
    }

    HandOvers(Duration handOver, WakeUps unlockWaiters, StoredUsn storedUsn) {
        this.handOverNanos = handOver.toNanos();
        this.handedOver = handOver.isZero() ? null : Caches.builder().maximumSize(10_000).expireAfterWrite(handOver).build();
        this.unlockWaiters = unlockWaiters;
        this.storedUsn = storedUsn;
    }

    /**
     * A lock this engine let go while {@code turnsLeft} other processes waited for it, and until when
     * (System.nanoTime) at most its next requests here wait for their unlocks; {@code usn}, the
     * object's USN as the unlock left it.
     */
    private record HandOver(long untilNanos, AtomicInteger turnsLeft, long usn) {
    }

    /** An unlock here that told {@code processes} other processes' waiters, leaving the row at {@code usnAfter}. */
    void handedOver(UUID id, int processes, long usnAfter) {
        if (processes > 0 && handedOver != null) {
            handedOver.put(id, new HandOver(System.nanoTime() + handOverNanos, new AtomicInteger(processes), usnAfter));
        }
    }

    /**
     * A request for a lock this engine handed over a moment ago waits for the other processes first:
     * until as many unlocks of it elsewhere as processes were waiting when it let go (this process
     * says it waits, so their unlocks tell it; this engine's own notes are not heard), or the
     * hand-over time after the unlock. {@code listen} starts hearing notes.
     */
    void await(LockHook.Request request, WakeUps.Ticket ticket, Runnable listen) {
        UUID id = request.id();
        HandOver h = handedOver == null ? null : handedOver.getIfPresent(id);
        // Until that hand-over has run its turns: a later unlock here (another thread's) starts another,
        // for the requests after it, and a request already waiting goes (2 JVMs x 2 threads: 350 -> 450 pairs/s).
        while (h != null && h == handedOver.getIfPresent(id)) {
            long left = h.untilNanos() - System.nanoTime();
            if (left <= 0) {
                return;
            }
            listen.run();
            if (ticket.announceFor(left) && h.turnsLeft().addAndGet(-turnsTakenUnheard(request, h)) <= 0) {
                handedOver.asMap().remove(id, h);
                return;
            }
            ticket.awaitWakeUp(left); // woken by an unlock: look whether turns are left
        }
    }

    /**
     * The turns of hand-over {@code h} that other processes took and gave back unheard: asked when
     * this process had only just said it waits, so unlocks elsewhere before then sent it no note (a
     * waiter there locked and let go while nothing here waited: without this look the next request
     * here sat out the whole hand-over). A turn is a lock and an unlock, two USNs; a turn still held
     * is heard when it ends. A save between them counts too: the hand-over may end early, never late.
     */
    private int turnsTakenUnheard(LockHook.Request request, HandOver h) {
        try {
            return (int) Math.min(ALL_TURNS, (storedUsn.of(request.className(), request.id()) - h.usn()) / 2);
        } catch (EngineRuntimeException e) {
            return ALL_TURNS; // deleted, or unreadable: the request itself will say
        }
    }

    /**
     * Another process unlocked {@code id}: one turn of a hand-over of it taken; the last ends it, and
     * every request here waiting for it goes — one takes the lock, the others wait for it to be passed
     * on, where waking one left the rest asleep to the hand-over's end, and the lock went back to the
     * other process after a single turn here.
     */
    void turnTaken(UUID id) {
        HandOver h = handedOver == null ? null : handedOver.getIfPresent(id);
        if (h != null && h.turnsLeft().decrementAndGet() <= 0 && handedOver.asMap().remove(id, h)) {
            unlockWaiters.wake(id);
        }
    }

    /** Unlocks elsewhere may have been missed: no turns to count. */
    void forgetAll() {
        if (handedOver != null) {
            handedOver.invalidateAll();
        }
    }
}
