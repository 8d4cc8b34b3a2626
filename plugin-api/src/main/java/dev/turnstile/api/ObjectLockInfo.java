package dev.turnstile.api;

import java.time.Instant;
import java.util.UUID;

/** An object's cooperative lock as it stands: who holds it, for whom, and when it expires (DateLastModified + LockTimeout). */
public record ObjectLockInfo(String className, UUID id, String holder, String owner, Instant expiresAt) {
}
