package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.NumberBlock;

import java.util.concurrent.atomic.LongAdder;

/** How numbers reach the counter; one implementation per {@link dev.turnstile.api.dispenser.DispenserStrategy}. */
interface Strategy {
    NumberBlock take(int count);

    /**
     * One first-writer-wins attempt on an instance that holds the counter's values: move the
     * counter on and save with the instance's USN; the numbers are read back from what the save
     * wrote. On E_OBJECT_MODIFIED the instance is fetched again before the failure goes back to
     * the retry policy, so the next attempt starts fresh, and counted in {@code lostRaces}.
     */
    static NumberBlock saveIncrement(CustomObject o, int count, LongAdder lostRaces) {
        Series.take(o.getProperties(), count);
        try {
            o.save(RefreshMode.REFRESH);
        } catch (EngineRuntimeException e) {
            o.clearPendingActions();
            if (e.getExceptionCode() == ExceptionCode.E_OBJECT_MODIFIED) {
                lostRaces.increment();
                o.refresh();
            }
            throw e;
        }
        return Series.taken(o.getProperties(), count, o.getDateLastModified());
    }
}
