package dev.turnstile.engine.objects;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/** An object's stored state: system properties, decoded custom values and its lock. */
public record ObjectState(UUID id, String className, long usn, String creator, Instant dateCreated, String lastModifier,
                   Instant dateLastModified, Map<String, Object> values, LockState lock) {
}
