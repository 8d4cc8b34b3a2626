package dev.turnstile.engine.objects;

import dev.turnstile.api.changes.ChangeKind;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * One object row written by a save, as {@link ObjectWriteListener}s see it inside the saving
 * transaction: what kind of change it was, the USN before and after, and the custom values before
 * and after.
 *
 * @param usnBefore null for a creation
 * @param usnAfter  null for a deletion
 */
public record ObjectWrite(ChangeKind kind, UUID id, String className, String user, Instant time, Long usnBefore,
                          Long usnAfter, Map<String, Object> before, Map<String, Object> after) {

    /** The kind of an update: a change of values first, then the save's lock action. */
    static ChangeKind kindOfUpdate(Map<String, Object> before, Map<String, Object> after, LockRules.Pending lockAction) {
        if (!before.equals(after)) {
            return ChangeKind.UPDATE;
        }
        return lockAction.locking() ? ChangeKind.LOCK : lockAction.unlocking() ? ChangeKind.UNLOCK : ChangeKind.UPDATE;
    }
}
