package dev.turnstile.api.editlock;

import java.time.Instant;

/** One line of the edit-lock audit trail: who did what to which resource, when, and how it ended. */
public record EditAuditEntry(Instant at, String user, String operation, String resourceId, String outcome, String detail) {
}
