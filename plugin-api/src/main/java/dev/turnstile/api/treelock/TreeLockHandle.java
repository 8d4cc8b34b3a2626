package dev.turnstile.api.treelock;

import dev.turnstile.api.ExceptionCode;

import java.time.Instant;
import java.util.Map;

/**
 * A granted tree lock. Renew it with {@link #heartbeat()} before {@link #expiresAt()}; release it
 * with {@link #unlock()} (or {@link #close()}, for try-with-resources).
 */
public interface TreeLockHandle extends AutoCloseable {
    /** The lock's unguessable token (the id of its lease). */
    String lockToken();

    /** The user holding it: the user of the session that took it. */
    String holder();

    /** The nodes held and their modes, in lock order. */
    Map<TreePath, TreeLockMode> nodes();

    /** When it was granted, by the database's clock. */
    Instant lockedAt();

    /** When the lease lapses unless renewed, by the engine's clock. */
    Instant expiresAt();

    /**
     * Extends the lease by the configured lease length from now and returns the new expiry. Fails
     * with {@link ExceptionCode#E_LEASE_LAPSED} if the lease lapsed first, or an operator broke it
     * (the message says who, when and why): the locks are gone and another holder may already have them.
     */
    Instant heartbeat();

    /**
     * Releases every node. Returns false if the lease had lapsed and was taken back before (the
     * holder lost the locks at some point); unlocking twice returns false the second time.
     */
    boolean unlock();

    @Override
    default void close() {
        unlock();
    }
}
