package dev.turnstile.api.editlock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * The answer to {@link EditLocks#tryLock}: {@link Granted} with the locks, or {@link Refused} naming
 * who holds the resource and since when. A refusal is a result, not an exception.
 *
 * <pre>{@code
 * if (edits.tryLock(paragraph) instanceof EditLockResult.Refused r) {
 *     show(r.holder() + " is editing this since " + r.holderSince());
 * }
 * }</pre>
 */
public sealed interface EditLockResult permits EditLockResult.Granted, EditLockResult.Refused {

    /** Whether the locks were granted. */
    boolean isGranted();

    /**
     * The grant; on a refusal fails with {@link ExceptionCode#E_OBJECT_LOCKED} and the refusal's
     * reason, for a caller that cannot go on without the lock.
     */
    Granted granted();

    /** The refusal; fails with {@link ExceptionCode#E_BAD_VALUE} if the locks were granted. */
    Refused refused();

    /**
     * The locks granted, one per requested resource, in resource-id order.
     *
     * @param locks the granted locks, never empty
     */
    record Granted(List<EditLock> locks) implements EditLockResult {
        /** Copies the list; a grant has at least one lock. */
        public Granted {
            locks = List.copyOf(locks);
            if (locks.isEmpty()) {
                throw EngineRuntimeException.badArgument("granted edit locks", locks, "at least one lock");
            }
        }

        /** The one lock of a single-resource request; {@code E_BAD_VALUE} if several were granted. */
        public EditLock lock() {
            if (locks.size() != 1) {
                throw EngineRuntimeException.badArgument("edit lock result", this, "a single granted lock");
            }
            return locks.get(0);
        }

        @Override
        public boolean isGranted() {
            return true;
        }

        @Override
        public Granted granted() {
            return this;
        }

        @Override
        public Refused refused() {
            throw EngineRuntimeException.badArgument("edit lock result", this, "a refusal");
        }
    }

    /**
     * Nothing was granted (a request for several paragraphs is all or none).
     *
     * @param resource    the requested resource that could not be had
     * @param holder      who holds it; for a refusal by {@code maxLocksPerUser}, the requesting user
     * @param holderSince since when the holder holds it; for a refusal by {@code maxLocksPerUser},
     *                    when that user's oldest lock of the type was taken
     * @param reason      the refusal in words, naming the resource and the holder
     */
    record Refused(EditResource resource, String holder, Instant holderSince, String reason) implements EditLockResult {
        /** Every field is required. */
        public Refused {
            Objects.requireNonNull(resource, "resource");
            Objects.requireNonNull(holder, "holder");
            Objects.requireNonNull(holderSince, "holderSince");
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public boolean isGranted() {
            return false;
        }

        @Override
        public Granted granted() {
            throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_LOCKED, reason);
        }

        @Override
        public Refused refused() {
            return this;
        }
    }
}
