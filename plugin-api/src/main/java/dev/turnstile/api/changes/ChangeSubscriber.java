package dev.turnstile.api.changes;

import java.util.List;

/**
 * Receives a {@link DeliveryMode#CALLBACK} client's changes in the process that subscribed it.
 * Throwing leaves the batch undelivered: the client's position does not move and the batch comes
 * again. Calls for one client never overlap while the dispatchers' processes run: the client's
 * lease is renewed while a call runs. A process paused past the lease may still call late; a
 * subscriber that must refuse such a call is a {@link FencedChangeSubscriber}.
 */
@FunctionalInterface
public interface ChangeSubscriber {
    /** Receives a batch of changes for {@code client}, in order per object; throwing redelivers them later. */
    void deliver(String client, List<Change> changes) throws Exception;
}
