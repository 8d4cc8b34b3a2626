package dev.turnstile.api.editlock;

import dev.turnstile.api.EngineRuntimeException;

import java.time.Instant;
import java.util.List;

/**
 * The answer to an acquire: the locks granted, or a refusal naming who holds the resource and
 * since when (or why else, e.g. the per-user limit). A refusal is a result, not an exception.
 */
public record EditLockResult(List<EditLock> locks, EditResource refusedResource, String holder, Instant holderSince,
                             String reason) {
    public EditLockResult {
        locks = List.copyOf(locks);
    }

    public static EditLockResult granted(List<EditLock> locks) {
        return new EditLockResult(locks, null, null, null, null);
    }

    public static EditLockResult refused(EditResource resource, String holder, Instant since, String reason) {
        return new EditLockResult(List.of(), resource, holder, since, reason);
    }

    public boolean isGranted() {
        return !locks.isEmpty();
    }

    /** The one lock of a single-resource request. */
    public EditLock lock() {
        if (locks.size() != 1) {
            throw EngineRuntimeException.badArgument("edit lock result", this, "not a single granted lock");
        }
        return locks.get(0);
    }
}
