package dev.turnstile.engine.objects;

import dev.turnstile.engine.db.Expiry;

import java.time.Instant;
import java.util.UUID;

/** A cooperative lock as stored on the object's row; {@link #NONE} when unlocked. */
public record LockState(String holder, String owner, UUID token, Integer timeoutSeconds) {
    public static final LockState NONE = new LockState(null, null, null, null);

    public boolean exists() {
        return holder != null;
    }

    /** DateLastModified + LockTimeout, FileNet's rule; null without a lock. */
    public Instant expiry(Instant dateLastModified) {
        return exists() && dateLastModified != null ? dateLastModified.plusSeconds(timeoutSeconds) : null;
    }

    /** Held at {@code now}: a lock whose expiry has not passed. */
    public boolean isHeldAt(Instant now, Instant dateLastModified) {
        return Expiry.isHeld(expiry(dateLastModified), now);
    }
}
