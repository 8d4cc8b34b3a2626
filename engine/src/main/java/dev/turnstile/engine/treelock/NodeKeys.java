package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.db.WakeUps;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The {@link WakeUps} keys of tree lock waiters: a waiter for a node waits on the node itself and on
 * the space below each of its ancestors, and a change of a node wakes the node, the space below it
 * and each of its ancestors — exactly the waiters whose nodes are related to a changed one (the
 * same node, one above it, one below it), never those of a sibling subtree.
 */
final class NodeKeys {
    private NodeKeys() {
    }

    /** A waiter for this node. */
    private record At(TreePath node) {
    }

    /** A waiter for a node strictly below this one. */
    private record Below(TreePath node) {
    }

    /** The keys a waiter for {@code wanted} waits on. */
    static List<Object> waitingFor(Collection<TreePath> wanted) {
        Set<Object> keys = new LinkedHashSet<>();
        for (TreePath node : wanted) {
            keys.add(new At(node));
            for (TreePath above = node.parent(); above != null; above = above.parent()) {
                keys.add(new Below(above));
            }
        }
        return List.copyOf(keys);
    }

    /** The keys a change of {@code nodes} (a release, a place in a queue given up) wakes. */
    static List<Object> changed(Collection<TreePath> nodes) {
        Set<Object> keys = new LinkedHashSet<>();
        for (TreePath node : nodes) {
            keys.add(new At(node));
            keys.add(new Below(node));
            for (TreePath above = node.parent(); above != null; above = above.parent()) {
                keys.add(new At(above));
            }
        }
        return List.copyOf(keys);
    }

    /** The topic on which releases under the key's root are told to other processes ({@link TreeLockStore#topics}). */
    static String topic(Object key) {
        TreePath node = key instanceof At at ? at.node() : ((Below) key).node();
        return TreeLockStore.topic(node);
    }
}
