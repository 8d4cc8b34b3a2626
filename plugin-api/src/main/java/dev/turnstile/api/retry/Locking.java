package dev.turnstile.api.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.RefreshMode;

import java.util.Map;
import java.util.Objects;
import java.util.UUID;
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
     *
     * <p>Through an outage, by {@code policy} if it retries {@link ExceptionCode#E_DATABASE_UNAVAILABLE}:
     * a save of the work whose outcome the outage hid is tried again (guarded by the USN the lock
     * was taken at, it can only write once); if it had committed, the row shows it — the USN one on,
     * unlocked, the work in it — and the call returns. An unlock without the work is made only
     * while the row still carries this call's lock (its token): never another request's lock, the
     * same user's on another thread or node included; else the lock is already gone.
     */
    public static <T> T withLock(IndependentObject object, int timeoutSeconds, String owner, RetryPolicy policy,
                                 Function<IndependentObject, T> action) {
        lockWithRetry(object, timeoutSeconds, owner, policy);
        UUID token = object.getLockToken();
        T result;
        try {
            result = action.apply(object);
        } catch (RuntimeException | Error e) {
            letGo(object, token, policy, e);
            throw e;
        }
        object.unlock();
        try {
            saveWithUnlock(object, policy);
        } catch (RuntimeException saveFailure) {
            // The work is not saved (say, an advisory-mode writer got in first): still let the lock go.
            letGo(object, token, policy, saveFailure);
            throw saveFailure;
        }
        return result;
    }

    /**
     * Saves {@code object}'s work with its unlock; after a failure that hid whether it committed (the
     * database unavailable), again by {@code policy}. A retry refused for a moved USN looks whether
     * the save before it committed, its answer lost: the row one USN on, unlocked, every value as saved.
     */
    private static void saveWithUnlock(IndependentObject object, RetryPolicy policy) {
        try {
            object.save(RefreshMode.REFRESH);
            return;
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_DATABASE_UNAVAILABLE) {
                throw e;
            }
        }
        long lockedUsn = object.getUpdateSequenceNumber();
        Map<String, Object> saving = object.getProperties().toMap();
        try {
            policy.run(() -> {
                try {
                    object.save(RefreshMode.REFRESH);
                } catch (EngineRuntimeException e) {
                    if (e.getExceptionCode() == ExceptionCode.E_DATABASE_UNAVAILABLE) {
                        throw e;
                    }
                    throw new Refused(e); // a refusal stands: no retry writes what it refused
                }
            });
        } catch (Refused refused) {
            if (refused.failure.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED || !savedBefore(object, lockedUsn, saving)) {
                throw refused.failure;
            }
        }
    }

    /** Whether the row is as {@code object}'s save of {@code saving} with the unlock, at {@code lockedUsn}, left it; the instance refreshed. */
    private static boolean savedBefore(IndependentObject object, long lockedUsn, Map<String, Object> saving) {
        object.refresh();
        return object.getUpdateSequenceNumber() == lockedUsn + 1 && object.getLockToken() == null
                && saving.entrySet().stream().allMatch(v -> object.getProperties().isPropertyPresent(v.getKey())
                && Objects.equals(object.getProperties().getObjectValue(v.getKey()), v.getValue()));
    }

    /**
     * Unlocks {@code object} if it still carries the lock {@code token} names, whatever was written
     * since (an unlock without a USN, of the lock the instance shows: the engine lets go of that
     * lock only), again by {@code policy} while the database is unavailable. A failure is added to
     * {@code failure}, suppressed, and the lock lapses at its timeout.
     */
    private static void letGo(IndependentObject object, UUID token, RetryPolicy policy, Throwable failure) {
        try {
            policy.run(() -> {
                object.clearPendingActions();
                if (!token.equals(object.getLockToken())) {
                    return; // the row, as last read, carries another lock or none: this one is gone
                }
                object.setUpdateSequenceNumber(null);
                object.unlock();
                try {
                    object.save(RefreshMode.REFRESH);
                } catch (EngineRuntimeException e) {
                    if (e.getExceptionCode() != ExceptionCode.E_OBJECT_NOT_LOCKED) {
                        throw e;
                    } // already let go (by a save whose answer was lost), lapsed or broken
                }
            });
        } catch (RuntimeException unlockFailure) {
            failure.addSuppressed(unlockFailure);
        }
    }

    /** A refusal carried past the policy, which would retry it by its code (so it is not kept as the cause). */
    private static final class Refused extends RuntimeException {
        final EngineRuntimeException failure;

        Refused(EngineRuntimeException failure) {
            super(failure.getMessage(), null, false, false);
            this.failure = failure;
        }
    }
}
