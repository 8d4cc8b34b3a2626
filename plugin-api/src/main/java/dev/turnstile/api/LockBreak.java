package dev.turnstile.api;

import java.time.Instant;

/**
 * A lock broken by an operator with the lock-breaking role ({@link LockConfig#breakerRole()}): which
 * lock, whose, who broke it, when (by the database clock) and why. Its holder's next call on it is
 * told {@link #message()}; {@link ContentEngine#lockBreaks} lists them.
 *
 * @param kind       the kind of lock
 * @param lockToken  the broken lock's token
 * @param holder     the user who held it
 * @param lockedWhat what it locked: an edit resource, a tree lock's nodes, an object
 * @param brokenBy   the operator who broke it
 * @param brokenAt   when
 * @param reason     why, as the operator said it
 */
public record LockBreak(Kind kind, String lockToken, String holder, String lockedWhat, String brokenBy, Instant brokenAt,
                        String reason) {
    /** The most characters of a reason. */
    public static final int MAX_REASON = 200;

    /** The kinds of lock an operator can break. */
    public enum Kind {
        /** An edit lock ({@link dev.turnstile.api.editlock.EditLocks}). */
        EDIT("Edit lock"),
        /** A tree lock ({@link dev.turnstile.api.treelock.TreeLocks}). */
        TREE("Tree lock"),
        /** An object's cooperative lock ({@link IndependentObject#lock}). */
        OBJECT("Cooperative lock");

        private final String title;

        Kind(String title) {
            this.title = title;
        }

        /** How a message names a lock of this kind: "Edit lock", "Tree lock", "Cooperative lock". */
        public String title() {
            return title;
        }
    }

    /** What the holder is told: "Edit lock … of alice on wiki:x was broken by carol at …: reason". */
    public String message() {
        return kind.title() + " " + lockToken + " of " + holder + " on " + lockedWhat + " was broken by " + brokenBy + " at "
                + brokenAt + ": " + reason;
    }
}
