package dev.turnstile.api.changes;

/** A change waiting in a client's queue until the client acknowledges its delivery id. */
public record QueuedChange(long deliveryId, Change change) {
}
