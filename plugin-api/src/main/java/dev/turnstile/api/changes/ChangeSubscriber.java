package dev.turnstile.api.changes;

import java.util.List;

/**
 * Receives a {@link DeliveryMode#CALLBACK} client's changes in the process that subscribed it.
 * Throwing leaves the batch undelivered: the client's position does not move and the batch comes
 * again. Calls for one client never overlap.
 */
@FunctionalInterface
public interface ChangeSubscriber {
    /** Receives a batch of changes for {@code client}, in order per object; throwing redelivers them later. */
    void deliver(String client, List<Change> changes) throws Exception;
}
