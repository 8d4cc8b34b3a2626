package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;

import java.time.Duration;
import java.util.List;
import java.util.SortedMap;

/**
 * The tree lock's statements that a database has of its own, beside the transactions of
 * conditional updates every database takes ({@link TreeLockStore}): none by default; PostgreSQL
 * acquires and releases in one statement each ({@link PostgresTreeLockStatements}).
 */
class TreeLockStatements {
    /** Whether {@link #acquire} and {@link #release} are this database's way; else the store's transactions are. */
    boolean inOneStatement() {
        return false;
    }

    /**
     * The lease granted in one statement that commits itself, or null, nothing written, where the
     * statement cannot decide (the store's transaction then does).
     */
    TreeLeaseRecord acquire(String leaseId, String owner, TreeLockRequest request, SortedMap<TreePath, GrayMode> marks,
                            String ticket, Duration lease) {
        throw new UnsupportedOperationException("no tree lock statement on this database");
    }

    /** Releases the lease in one statement, telling {@code channel}'s waiters on {@code topics}; false if it was gone. */
    boolean release(String leaseId, SortedMap<TreePath, GrayMode> marks, String channel, List<String> topics, String payload) {
        throw new UnsupportedOperationException("no tree lock statement on this database");
    }
}
