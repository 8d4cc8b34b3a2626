package dev.turnstile.api.changes;

/**
 * A change waiting in a client's queue until the client acknowledges its delivery id.
 *
 * @param deliveryId the id to acknowledge it by
 * @param change the change
 */
public record QueuedChange(long deliveryId, Change change) {
}
