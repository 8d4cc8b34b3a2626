package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.GuardedWrite;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The cooperative lock's part in a save (the {@code locks} capability): how a lock request waits
 * for an unlock, here or in another process, and how an unlock passes the lock on. The save writes
 * the rows — the lock columns with the rest, by {@link LockRules} — and asks this hook at the
 * points where waiting matters, as it tells the change feed of writes through
 * {@link ObjectWriteListener}.
 */
public interface LockHook {
    /**
     * Runs a save's {@code attempt} (one attempt, alone or in a transaction) with the lock's
     * waiting around it, and returns the states it wrote, in the order of {@code save}'s objects
     * (null for one deleted).
     */
    List<ObjectState> save(Save save, Supplier<List<ObjectState>> attempt);

    /** An unlock of {@code id} in one statement is about to go: a moment for a request here to come and be passed it. */
    void unlockingAlone(UUID id);

    /** The lock on {@code id} as this engine last wrote it, if it is held at {@code now}; else null. */
    Held heldHere(UUID id, Instant now);

    /**
     * The longest-waiting request here for the lock on {@code id} that {@code fits}, to which an
     * unlock may pass it; the caller must {@link Waiter#decide} it. Null if none.
     */
    Waiter claimWaiter(UUID id, Predicate<Waiter> fits);

    /** {@code write} lets go of the lock on {@code id} ({@code deleted}: deletes the object): other processes' waiters are told. */
    void notifying(GuardedWrite write, UUID id, boolean deleted);

    /** {@code write}, of the row at {@code usnBefore}, was written after {@link #notifying}. */
    void notified(UUID id, GuardedWrite write, long usnBefore);

    /** The row operations the hook needs from the save: reading an object, letting go of a lock passed to nobody. */
    interface Rows {
        ObjectState read(String className, UUID id);

        /** An unlock of the row as {@code passed} shows it, by {@code actor}; null if another writer moved it on. */
        ObjectState letGo(ObjectState passed, LockRules.Actor actor);
    }

    /** Called once, when the save is ready to serve {@link Rows}. */
    void bind(Rows rows);

    /** A save: its objects in the save's order, who saves, and whether inside the host's transaction. */
    record Save(List<Request> requests, LockRules.Actor actor, boolean inHost) {
    }

    /**
     * One object of a save: its lock action, whether it carries values and the USN it states
     * (a lock request that carries neither may be passed the lock it waits for).
     */
    record Request(UUID id, String className, LockRules.Pending action, boolean valuesPending, Long usn) {
        /** Whether this request, if refused, may wait to be passed the lock. */
        public boolean mayBePassed() {
            return action.locking() && !valuesPending && usn == null;
        }
    }

    /** A lock as this engine last wrote it: the stored class, the lock, when it lapses, and the row's USN after. */
    record Held(String className, LockState lock, Instant expiry, long usn) {
    }

    /** A lock request waiting here to be passed the lock. */
    interface Waiter {
        String className();

        LockRules.Actor actor();

        LockRules.Pending request();

        /** The pass: written ({@code passed}, the row as it left it) or not (null); the waiter goes on. */
        void decide(ObjectState passed);
    }
}
