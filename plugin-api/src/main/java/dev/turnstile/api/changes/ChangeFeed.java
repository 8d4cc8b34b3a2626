package dev.turnstile.api.changes;


import java.time.Duration;
import java.util.Collection;
import java.util.List;

/**
 * The change feed: every committed create, update, delete, lock and unlock is recorded in the
 * transaction of its save (when {@link ChangesConfig#enabled()}), and dispatchers move the
 * changes to registered clients in batches — in order per object, at least once, coalescing runs
 * of edits by one user to one object.
 */
public interface ChangeFeed {
    /**
     * Registers a client, or changes an existing client's filter and delivery mode (its position is
     * kept). A new client starts after the changes already recorded. Fails with
     * {@code E_BAD_VALUE} for a bad name and {@code E_CLASS_NOT_FOUND} / {@code E_PROPERTY_NOT_DEFINED}
     * for a filter naming an unknown class or a property none of its classes defines.
     */
    void registerClient(String name, ChangeFilter filter, DeliveryMode mode);

    /** Removes a client and its queue. Unknown: {@code E_OBJECT_NOT_FOUND}. */
    void unregisterClient(String name);

    /** The registered clients' names, sorted. */
    List<String> clients();

    /** In this process: the callback for a {@link DeliveryMode#CALLBACK} client. */
    default void subscribe(String client, ChangeSubscriber subscriber) {
        subscribe(client, (FencedChangeSubscriber) (c, changes, fencingToken) -> subscriber.deliver(c, changes));
    }

    /** In this process: the callback for a {@link DeliveryMode#CALLBACK} client, told each batch's fencing token. */
    void subscribe(String client, FencedChangeSubscriber subscriber);

    /** A new dispatcher in this process. */
    ChangeDispatcher dispatcher(DispatcherConfig config);

    /** The dispatchers this engine made, running or not, in no particular order. */
    List<ChangeDispatcher> dispatchers();

    /** The oldest {@code max} changes waiting in a {@link DeliveryMode#QUEUE} client's queue. */
    List<QueuedChange> poll(String client, int max);

    /** Removes delivered changes from a client's queue; ids already removed are ignored. */
    void acknowledge(String client, Collection<Long> deliveryIds);

    /** How far behind the feed client {@code client} is. */
    ClientLag lag(String client);

    /** Every client's lag, by name. */
    List<ClientLag> lag();

    /**
     * Deletes recorded changes older than {@code retention} that every client has passed and that
     * were placed in the feed at least {@code grace} ago; returns how many. A change some client
     * has not passed is never deleted.
     */
    long prune(Duration retention, Duration grace);
}
