package dev.turnstile.api.changes;

/** How a client receives its changes. */
public enum DeliveryMode {
    /**
     * Into the client's durable queue table, in the transaction that moves its position; the client
     * process reads it with {@link ChangeFeed#poll} and {@link ChangeFeed#acknowledge}. Any dispatcher
     * process serves it.
     */
    QUEUE,
    /** To the {@link ChangeSubscriber} subscribed in a process; only dispatchers of that process serve it. */
    CALLBACK
}
