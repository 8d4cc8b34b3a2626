package dev.turnstile.api.treelock;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * A held tree lock as {@link TreeLocks#status} reports it.
 *
 * @param lockToken the lock's token (the id of its lease)
 * @param holder    the user holding it
 * @param nodes     the nodes held and their modes
 * @param lockedAt  when it was granted
 * @param expiresAt when its lease lapses unless renewed
 * @param expired   whether it had lapsed when read (a lapsed lease is swept on the next conflicting request)
 */
public record TreeLockInfo(String lockToken, String holder, Map<TreePath, TreeLockMode> nodes, Instant lockedAt,
                           Instant expiresAt, boolean expired) {
    /** Copies the nodes into a sorted, unmodifiable map. */
    public TreeLockInfo {
        nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
    }
}
