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
 * Each thread remembers its instance of the counter (values and USN) from its last success and
 * updates blindly with it: one UPDATE when nobody else took a number in between (it reads first
 * when another thread of this process did). With {@code feelingUnlucky} it fetches first every
 * time: two round trips, always. A call that lost
 * {@link #LOST_RACES} races queues on the row lock instead ({@link Escalation}).
 */
final class FirstWriterWins implements Strategy {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final boolean feelingUnlucky;
    private final Pessimistic queued;
    private final LocalTurn turn;
    private final LongAdder lostRaces;
    private final ThreadLocal<CustomObject> remembered = new ThreadLocal<>();
    /** Races a call may lose before it queues on the row lock. */
    static final int LOST_RACES = 3;

    FirstWriterWins(ObjectStore os, UUID id, RetryPolicy policy, boolean feelingUnlucky, Pessimistic queued, LocalTurn turn,
                    LongAdder lostRaces) {
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.feelingUnlucky = feelingUnlucky;
        this.queued = queued;
        this.turn = turn;
        this.lostRaces = lostRaces;
    }

    /** Threads of this process race one at a time ({@link LocalTurn}): the races left are with other processes. */
    @Override
    public NumberBlock take(int count) {
        return turn.run(() -> turn.escalation.take(policy, () -> {
            CustomObject o = remembered.get();
            if (o == null || feelingUnlucky) {
                o = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
                remembered.set(o);
            } else if (o.getUpdateSequenceNumber() != turn.knownUsn()) {
                o.refresh(); // another thread of this process saw a newer one: a blind update would lose
            }
            try {
                return Strategy.saveIncrement(o, count, lostRaces);
            } finally {
                turn.known(o.getUpdateSequenceNumber()); // what the save wrote, or the refresh after a lost race read
            }
        }, () -> {
            remembered.remove();
            turn.known(-1); // the queued save's USN is not known here: the next call reads first
            return queued.takeOnce(count);
        }));
    }
}
