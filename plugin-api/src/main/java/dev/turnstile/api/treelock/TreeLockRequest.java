package dev.turnstile.api.treelock;

import dev.turnstile.api.EngineRuntimeException;

import java.util.Collections;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The nodes one operation locks together, each shared or exclusive; granted all at once or not at
 * all. Build with {@link #exclusive}, {@link #shared} or {@link #builder()}, or read the nested
 * XML/JSON operation document with {@link TreeLocks#parseRequest}.
 */
public final class TreeLockRequest {
    /** The most nodes one request may name. */
    public static final int MAX_NODES = 1000;

    private final Map<TreePath, TreeLockMode> nodes;

    private TreeLockRequest(Map<TreePath, TreeLockMode> nodes) {
        if (nodes.isEmpty()) {
            throw EngineRuntimeException.badArgument("tree lock request", "{}", "name at least one node to lock");
        }
        if (nodes.size() > MAX_NODES) {
            throw EngineRuntimeException.badArgument("tree lock request", nodes.size() + " nodes", "at most " + MAX_NODES
                    + " nodes per request");
        }
        this.nodes = Collections.unmodifiableMap(new TreeMap<>(nodes));
    }

    /** A request to lock every one of {@code nodes} exclusively. */
    public static TreeLockRequest exclusive(Set<TreePath> nodes) {
        return builder().exclusive(nodes).build();
    }

    /** A request to lock every one of {@code nodes} exclusively. */
    public static TreeLockRequest exclusive(TreePath... nodes) {
        return exclusive(Set.of(nodes));
    }

    /** A request to lock every one of {@code nodes} shared. */
    public static TreeLockRequest shared(Set<TreePath> nodes) {
        return builder().shared(nodes).build();
    }

    /** A request to lock every one of {@code nodes} shared. */
    public static TreeLockRequest shared(TreePath... nodes) {
        return shared(Set.of(nodes));
    }

    /** A builder for a request mixing modes. */
    public static Builder builder() {
        return new Builder();
    }

    /** The nodes and their modes, in lock order (ancestors before descendants). */
    public Map<TreePath, TreeLockMode> nodes() {
        return nodes;
    }

    /** True if a lock on this request and one on {@code other} could not be held at once. */
    public boolean conflictsWith(TreeLockRequest other) {
        for (Map.Entry<TreePath, TreeLockMode> a : nodes.entrySet()) {
            for (Map.Entry<TreePath, TreeLockMode> b : other.nodes.entrySet()) {
                boolean bothShared = a.getValue() == TreeLockMode.SHARED && b.getValue() == TreeLockMode.SHARED;
                if (!bothShared && a.getKey().isRelatedTo(b.getKey())) {
                    return true;
                }
            }
        }
        return false;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreeLockRequest r && r.nodes.equals(nodes);
    }

    @Override
    public int hashCode() {
        return nodes.hashCode();
    }

    /** For example {@code [X site:O/workshop:A, S site:O/workshop:B]}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("[");
        nodes.forEach((path, mode) -> b.append(b.length() > 1 ? ", " : "").append(mode.letter()).append(' ').append(path));
        return b.append(']').toString();
    }

    /** Builds a {@link TreeLockRequest} node by node. */
    public static final class Builder {
        private final Map<TreePath, TreeLockMode> nodes = new TreeMap<>();

        private Builder() {
        }

        /** Adds a node; naming one node twice keeps the stronger mode. */
        public Builder node(TreePath path, TreeLockMode mode) {
            if (path == null || mode == null) {
                throw EngineRuntimeException.badArgument("tree lock request node", path + " " + mode, "path and mode are required");
            }
            nodes.merge(path, mode, (a, b) -> a == TreeLockMode.EXCLUSIVE ? a : b);
            return this;
        }

        /** Adds {@code paths}, each locked exclusively. */
        public Builder exclusive(Set<TreePath> paths) {
            paths.forEach(p -> node(p, TreeLockMode.EXCLUSIVE));
            return this;
        }

        /** Adds {@code paths}, each locked shared. */
        public Builder shared(Set<TreePath> paths) {
            paths.forEach(p -> node(p, TreeLockMode.SHARED));
            return this;
        }

        /** The request; one naming no node, or one node in two modes, is refused. */
        public TreeLockRequest build() {
            return new TreeLockRequest(nodes);
        }
    }
}
