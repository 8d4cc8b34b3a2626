package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.engine.retry.SingleAttempt;

import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.IntSupplier;

/**
 * The article's cooperative lock: lock with retry-and-sleep (one transaction that also reads the
 * counter), then the increment and the unlock in one save: two round trips per block. The callers
 * of one process combine ({@link Combining}): the one that leads takes the lock once for all the
 * numbers queued behind it by the time it holds the lock, so one process polls the lock with one thread.
 */
final class CooperativeLock {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final int timeoutSeconds;
    private final String owner;
    private final LongAdder lostRaces;

    CooperativeLock(ObjectStore os, UUID id, RetryPolicy policy, int timeoutSeconds, String owner, LongAdder lostRaces) {
        this.lostRaces = lostRaces;
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.timeoutSeconds = timeoutSeconds;
        this.owner = owner;
    }

    /**
     * One combined block ({@link Combining}): lock, take, save with the unlock. The block's size is
     * asked once the lock is held, so the callers that queued while it was awaited are in it.
     */
    NumberBlock take(IntSupplier count) {
        // One policy, one budget: an attempt takes the lock once (E_OBJECT_LOCKED while another holds
        // it) and saves the increment with the unlock (E_OBJECT_MODIFIED if a writer using another
        // strategy got in meanwhile; withLock has unlocked by then); either is one attempt of it.
        return policy.call(() -> {
            CustomObject counter = os.getCustomObject(Dispenser.CLASS_NAME, id);
            try {
                Locking.withLock(counter, timeoutSeconds, owner, SingleAttempt.INSTANCE, locked -> {
                    Series.take(locked.getProperties(), count.getAsInt());
                    return null;
                });
            } catch (EngineRuntimeException e) {
                if (e.getExceptionCode() == ExceptionCode.E_OBJECT_LOCKED || e.getExceptionCode() == ExceptionCode.E_OBJECT_MODIFIED) {
                    lostRaces.increment();
                }
                throw e;
            }
            // withLock saved with REFRESH: the instance holds what was written.
            return Series.taken(counter.getProperties(), count.getAsInt(), counter.getDateLastModified());
        });
    }
}
