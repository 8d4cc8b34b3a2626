package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.RefreshMode;

import java.time.Instant;

/** How numbers reach the counter; one implementation per {@link dev.turnstile.api.DispenserStrategy}. */
interface Strategy {
    Series.Taken take(int count);

    /**
     * One first-writer-wins attempt on an instance that holds the counter's values: move the
     * counter on and save with the instance's USN. On E_OBJECT_MODIFIED the instance is fetched
     * again before the failure goes back to the retry policy, so the next attempt starts fresh.
     */
    static Series.Taken saveIncrement(CustomObject o, int count, Instant now) {
        Series.Taken taken = Series.take(o.getProperties(), count, now);
        try {
            o.save(RefreshMode.REFRESH);
            return taken;
        } catch (EngineRuntimeException e) {
            o.clearPendingActions();
            if (e.getExceptionCode() == ExceptionCode.E_OBJECT_MODIFIED) {
                o.refresh();
            }
            throw e;
        }
    }
}
