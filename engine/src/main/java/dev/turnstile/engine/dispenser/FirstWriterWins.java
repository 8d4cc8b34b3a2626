package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Dispenser;
import dev.turnstile.api.NumberBlock;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RetryPolicy;

import java.util.UUID;

/**
 * Each thread remembers its instance of the counter (values and USN) from its last success and
 * updates blindly with it: one UPDATE when nobody else took a number in between. With
 * {@code feelingUnlucky} it fetches first every time: two round trips, always. A call that lost
 * {@value #CONFLICTS_BEFORE_QUEUEING} races in a row takes its numbers under the row lock instead,
 * queued in the database behind the others: under contention a caller waits its turn, and never
 * loses forever. Not on H2 ({@code queued} null): there, row-locked takes mixed with these
 * updates on one row issued numbers twice (see {@link DispenserServices#queuesOnTheRowLock}).
 */
final class FirstWriterWins implements Strategy {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final boolean feelingUnlucky;
    private final Pessimistic queued;
    static final int CONFLICTS_BEFORE_QUEUEING = 3;
    private final ThreadLocal<CustomObject> remembered = new ThreadLocal<>();

    FirstWriterWins(ObjectStore os, UUID id, RetryPolicy policy, boolean feelingUnlucky, Pessimistic queued) {
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.feelingUnlucky = feelingUnlucky;
        this.queued = queued;
    }

    @Override
    public NumberBlock take(int count) {
        int[] attempts = {0};
        return policy.call(() -> {
            if (queued != null && ++attempts[0] > CONFLICTS_BEFORE_QUEUEING) {
                remembered.remove(); // stale once the row lock moved the counter
                return queued.takeOnce(count);
            }
            CustomObject o = remembered.get();
            if (o == null || feelingUnlucky) {
                o = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
                remembered.set(o);
            }
            return Strategy.saveIncrement(o, count);
        });
    }
}
