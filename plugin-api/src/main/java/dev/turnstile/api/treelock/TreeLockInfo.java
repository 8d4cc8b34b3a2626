package dev.turnstile.api.treelock;

import java.time.Instant;
import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/** A held tree lock as {@link TreeLocks#status} reports it. */
public record TreeLockInfo(String leaseId, String owner, Map<TreePath, TreeLockMode> nodes, Instant acquiredAt,
                           Instant expiresAt, boolean expired) {
    public TreeLockInfo {
        nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
    }
}
