package dev.turnstile.api.changes;

import java.util.List;

/**
 * A {@link DeliveryMode#CALLBACK} client's subscriber that is told each batch's fencing token: the
 * epoch of the client's lease under which the batch is delivered, which only grows from one holder
 * to the next. The engine renews the lease while a call runs and never starts one on a lapsed lease,
 * but it cannot take back a call already made: a dispatcher paused past its lease (a long GC, a
 * stopped process) may call after another dispatcher took the client and delivered newer changes.
 * A subscriber whose writes must not go back keeps, with what it writes, the highest token it has
 * applied, and refuses a batch with a lower one — the fencing a lock service's token allows
 * (Kleppmann, "How to do distributed locking", 2016). Throwing redelivers the batch later.
 */
@FunctionalInterface
public interface FencedChangeSubscriber {
    /** Receives a batch of changes for {@code client}, in order per object, under lease epoch {@code fencingToken}. */
    void deliver(String client, List<Change> changes, long fencingToken) throws Exception;
}
