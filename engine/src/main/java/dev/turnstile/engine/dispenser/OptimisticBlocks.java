package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.retry.RetryPolicy;

import java.util.UUID;
import java.util.concurrent.atomic.LongAdder;

/**
 * How a COMBINING leader takes its batch's block: one blind USN-checked update of the counter as
 * the last leader of this engine saved it, as the engine's system user; after a race lost to
 * another process, under the row lock ({@link Escalation}). One per dispenser and engine, used
 * only by the combiner's leader, one at a time.
 */
final class OptimisticBlocks {
    /** Races a leader may lose before it takes the batch's block under the row lock. */
    static final int LOST_RACES = 1;
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final Pessimistic queued;
    private final Escalation escalation = new Escalation(LOST_RACES);
    private final LongAdder lostRaces;
    /** The counter as the last leader saved it. */
    private CustomObject remembered;

    OptimisticBlocks(ObjectStore os, UUID id, RetryPolicy policy, Pessimistic queued, LongAdder lostRaces) {
        this.lostRaces = lostRaces;
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.queued = queued;
    }

    NumberBlock take(int block) {
        return escalation.take(policy, () -> {
            NumberBlock alone = queued.takeAlone(block); // one statement under the row lock: no race to lose
            if (alone != null) {
                return alone;
            }
            if (remembered == null) {
                remembered = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
            }
            return Strategy.saveIncrement(remembered, block, lostRaces);
        }, () -> {
            remembered = null; // behind the save made here: the next optimistic batch fetches
            return queued.takeOnce(block);
        });
    }
}
