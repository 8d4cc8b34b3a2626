package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineRuntimeException;

import java.time.Instant;
import java.util.UUID;

/**
 * FileNet's cooperative-lock rules, applied inside the saving transaction to the row's current
 * lock. The USN check (or the row lock of an unprotected save) makes the decision race-free: two
 * sessions deciding from the same stored lock cannot both write.
 */
public final class LockRules {
    private LockRules() {
    }

    /**
     * A lock or unlock waiting for the next save; {@link #NONE} if neither. An exclusive lock is
     * refused while anyone holds the lock, its holder too ({@code lockExclusively}) — except the
     * lock this very request took: {@code request} names the request across its attempts and is
     * the token of the lock it takes, so an attempt whose grant committed but whose answer was lost
     * is followed by a retry that finds its own lock and is granted, where it was refused by it.
     * An unlock's {@code request} is the token of the lock it lets go, the one its instance shows
     * (null if it shows none): it lets go of that lock only, never of a lock taken since by the same
     * user's next request. An operator's break is an unlock with its {@code breakReason}, recorded
     * with the save ({@code LockBreaks}).
     */
    public record Pending(boolean locking, boolean unlocking, int timeoutSeconds, String owner, boolean exclusive, UUID request,
                          String breakReason) {
        static final Pending NONE = new Pending(false, false, 0, null, false, null, null);

        static Pending lock(int timeoutSeconds, String owner, boolean exclusive, UUID request) {
            return new Pending(true, false, timeoutSeconds, owner, exclusive, request, null);
        }

        static Pending unlock(UUID token) {
            return new Pending(false, true, 0, null, false, token, null);
        }

        static Pending breakLock(UUID token, String reason) {
            return new Pending(false, true, 0, null, false, token, reason);
        }

        /** Whether this unlock is an operator's break, to be recorded with who and why. */
        public boolean breaking() {
            return breakReason != null;
        }

        /** The user whose held lock this lock request by {@code user} refreshes: {@code user}, or none if exclusive. */
        public String refreshesLockOf(String user) {
            return exclusive ? null : user;
        }

        /** Whether this unlock lets go of {@code held}: the lock its instance shows, or whatever lock it is if it shows none. */
        public boolean letsGoOf(LockState held) {
            return request == null || request.equals(held.token());
        }

        /** Whether {@code held}, a lock held now, refuses this lock request by {@code user}. */
        public boolean refusedBy(LockState held, String user) {
            boolean ownGrant = request != null && request.equals(held.token()) && held.holder().equals(user);
            return !ownGrant && !held.holder().equals(refreshesLockOf(user));
        }
    }

    /**
     * Who saves: the session's user, whether the session may break other users' locks, and whether
     * the engine's own service acts (on the user's behalf), which alone may change system objects.
     */
    public record Actor(String user, boolean canBreakLocks, boolean engine) {
    }

    /**
     * The lock the row carries after this save. {@code stored} with {@code storedDateLastModified}
     * is the row's lock now; {@code enforced} is the class's lock mode.
     */
    static LockState next(String className, UUID id, boolean enforced, LockState stored, Instant storedDateLastModified,
                          Pending pending, Actor actor, Instant now) {
        boolean held = stored.isHeldAt(now, storedDateLastModified);
        boolean heldByOther = held && !stored.holder().equals(actor.user());
        if (pending.locking()) {
            if (held && pending.refusedBy(stored, actor.user())) {
                throw locked(className, id, stored, storedDateLastModified);
            }
            // The holder locking again refreshes the timeout and keeps its token; otherwise a new lock, the request's.
            UUID token = held ? stored.token() : pending.request();
            return new LockState(actor.user(), pending.owner(), token, pending.timeoutSeconds());
        }
        if (pending.unlocking()) {
            if (!held) {
                throw EngineRuntimeException.objectNotLocked(className, id);
            }
            if (!pending.letsGoOf(stored)) {
                throw EngineRuntimeException.notThatLock(className, id, pending.request());
            }
            if (heldByOther && !actor.canBreakLocks()) {
                throw EngineRuntimeException.unlockDenied(className, id, actor.user(), stored.holder());
            }
            return LockState.NONE;
        }
        if (enforced && heldByOther) {
            throw locked(className, id, stored, storedDateLastModified);
        }
        return stored;
    }

    /** A delete: refused only under enforced locks held by another user. */
    static void checkDelete(String className, UUID id, boolean enforced, LockState stored, Instant storedDateLastModified,
                            Actor actor, Instant now) {
        if (enforced && stored.isHeldAt(now, storedDateLastModified) && !stored.holder().equals(actor.user())) {
            throw locked(className, id, stored, storedDateLastModified);
        }
    }

    private static EngineRuntimeException locked(String className, UUID id, LockState stored, Instant dateLastModified) {
        return EngineRuntimeException.objectLocked(className, id, stored.holder(), stored.owner(),
                stored.expiry(dateLastModified));
    }
}
