package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/**
 * An object's cooperative lock as it stands: who holds it, for whom, and when it expires (DateLastModified + LockTimeout).
 *
 * @param className the locked object's class
 * @param id the locked object's id
 * @param holder the user holding the lock
 * @param owner the lock's LockOwner text, informational
 * @param lockToken the lock's token, which {@link IndependentObject#getLockToken()} shows and a break names
 * @param expiresAt when the lock expires (DateLastModified + LockTimeout)
 */
public record ObjectLockInfo(String className, UUID id, String holder, String owner, UUID lockToken, Instant expiresAt) {
}
