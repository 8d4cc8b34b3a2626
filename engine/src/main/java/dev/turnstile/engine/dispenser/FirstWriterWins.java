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
 * {@code feelingUnlucky} it fetches first every time: two round trips, always.
 */
final class FirstWriterWins implements Strategy {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final boolean feelingUnlucky;
    private final ThreadLocal<CustomObject> remembered = new ThreadLocal<>();

    FirstWriterWins(ObjectStore os, UUID id, RetryPolicy policy, boolean feelingUnlucky) {
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.feelingUnlucky = feelingUnlucky;
    }

    @Override
    public NumberBlock take(int count) {
        return policy.call(() -> {
            CustomObject o = remembered.get();
            if (o == null || feelingUnlucky) {
                o = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
                remembered.set(o);
            }
            return Strategy.saveIncrement(o, count);
        });
    }
}
