package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.retry.RetryPolicy;

import java.util.function.Supplier;

/**
 * First writer wins without starvation, for one dispenser in one process. Blind updates alone let
 * the last writer win again and again (its USN is the current one) while callers in other
 * processes lose every race: one call waited 10 s in the 4-process benchmark. So after a few lost
 * races a take stops racing and waits under the row lock ({@code queued}: the database queues it
 * behind the holder, in arrival order), still a USN-moving save; and while other processes keep
 * writing, the next {@link #QUEUED_TAKES} takes of this process queue at once, since a blind update
 * would mostly wait behind their row lock and then fail its USN check. Waits between attempts and
 * every bound are the policy's. Not thread-safe: callers hold their own lock around {@link #take}.
 */
final class Escalation {
    /** Takes that go straight to the row lock after one had to. */
    static final int QUEUED_TAKES = 16;
    private final int lostRaces;
    private int queuedLeft;

    /** @param lostRaces races a take may lose before it queues */
    Escalation(int lostRaces) {
        this.lostRaces = lostRaces;
    }

    NumberBlock take(RetryPolicy policy, Supplier<NumberBlock> optimistic, Supplier<NumberBlock> queued) {
        int allowed = queuedLeft > 0 ? 0 : lostRaces;
        int[] lost = {0};
        return policy.call(() -> {
            if (lost[0] >= allowed) {
                queuedLeft = queuedLeft > 0 ? queuedLeft - 1 : QUEUED_TAKES;
                return queued.get();
            }
            try {
                return optimistic.get();
            } catch (EngineRuntimeException e) {
                if (e.getExceptionCode() == ExceptionCode.E_OBJECT_MODIFIED) {
                    lost[0]++;
                }
                throw e;
            }
        });
    }
}
