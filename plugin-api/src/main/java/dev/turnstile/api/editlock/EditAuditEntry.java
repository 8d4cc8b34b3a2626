package dev.turnstile.api.editlock;

import java.time.Instant;

/**
 * One line of the edit-lock audit trail: who did what to which resource, when, and how it ended.
 *
 * @param at when, by the database clock
 * @param user who asked
 * @param operation acquire, heartbeat, release or save
 * @param resourceId the resource (or a lock token that named none)
 * @param outcome granted, refused, failed or ok
 * @param detail the refusal or failure in words, or null
 */
public record EditAuditEntry(Instant at, String user, String operation, String resourceId, String outcome, String detail) {
}
