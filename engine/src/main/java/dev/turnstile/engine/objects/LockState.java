package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Expiry;

import java.time.Instant;
import java.util.UUID;

/** A cooperative lock as stored on the object's row; {@link #NONE} when unlocked. */
record LockState(String holder, String owner, UUID token, Integer timeoutSeconds) {
    static final LockState NONE = new LockState(null, null, null, null);

    boolean exists() {
        return holder != null;
    }

    /** DateLastModified + LockTimeout, FileNet's rule; null without a lock. */
    Instant expiry(Instant dateLastModified) {
        return exists() && dateLastModified != null ? dateLastModified.plusSeconds(timeoutSeconds) : null;
    }

    /** Held at {@code now}: a lock whose expiry has not passed. */
    boolean isHeldAt(Instant now, Instant dateLastModified) {
        return Expiry.isHeld(expiry(dateLastModified), now);
    }
}
