package dev.turnstile.api.retry;

import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.RefreshMode;

import java.util.function.Function;

/**
 * Retry-and-sleep loops around cooperative locks, the pattern of the "take a number" article:
 * take the lock (retrying while another holds it), work, then save the work and unlock in one
 * round trip.
 */
public final class Locking {
    private Locking() {
    }

    /**
     * Locks {@code object}, retrying by {@code policy} while anyone else holds its lock or it is
     * modified under us. The lock is exclusive ({@link IndependentObject#lockExclusively}): the same
     * user in another session or process waits too, where a plain re-lock would share it. Each attempt is one transaction that reads the row, takes the lock by a
     * write guarded by the USN it read (looking again if another writer got in first), and brings
     * back the current state (its USN is cleared first, so any pending changes merge onto the
     * latest values).
     */
    public static void lockWithRetry(IndependentObject object, int timeoutSeconds, String owner, RetryPolicy policy) {
        policy.run(() -> {
            object.setUpdateSequenceNumber(null);
            object.lockExclusively(timeoutSeconds, owner);
            object.save(RefreshMode.REFRESH);
        });
    }

    /**
     * Locks {@code object} ({@link #lockWithRetry}), runs {@code action} on it, then saves what the
     * action changed together with the unlock: two round trips in all. If the action throws, its
     * changes are dropped and the object is unlocked all the same; the action's exception is
     * rethrown (with any unlock failure suppressed in it). If saving the work fails, the object is
     * unlocked without it and that failure is thrown.
     */
    public static <T> T withLock(IndependentObject object, int timeoutSeconds, String owner, RetryPolicy policy,
                                 Function<IndependentObject, T> action) {
        lockWithRetry(object, timeoutSeconds, owner, policy);
        T result;
        try {
            result = action.apply(object);
        } catch (RuntimeException | Error e) {
            try {
                object.clearPendingActions();
                object.unlock();
                object.save(RefreshMode.REFRESH);
            } catch (RuntimeException unlockFailure) {
                e.addSuppressed(unlockFailure);
            }
            throw e;
        }
        object.unlock();
        try {
            object.save(RefreshMode.REFRESH);
        } catch (RuntimeException saveFailure) {
            // The work is not saved (say, an advisory-mode writer got in first): still let the lock go.
            try {
                object.clearPendingActions();
                object.setUpdateSequenceNumber(null);
                object.unlock();
                object.save(RefreshMode.REFRESH);
            } catch (RuntimeException unlockFailure) {
                saveFailure.addSuppressed(unlockFailure);
            }
            throw saveFailure;
        }
        return result;
    }
}
