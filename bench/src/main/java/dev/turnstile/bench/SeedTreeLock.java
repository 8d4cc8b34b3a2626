package dev.turnstile.bench;

import dev.turnstile.api.treelock.TreePath;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The hierarchical-lock article's design, rebuilt (not copied) as the baseline: one global lock
 * over an in-memory tree; a request is granted when none of its nodes has a locked ancestor, is
 * locked, or has a locked descendant — found by walking up to the root and down the whole
 * subtree — and otherwise sleeps {@value #SLEEP_MILLIS} ms and checks again. One process only.
 */
final class SeedTreeLock {
    static final long SLEEP_MILLIS = 500;

    private final ReentrantLock global = new ReentrantLock();
    private final Node root = new Node(null);

    static final class Node {
        final Node parent;
        final Map<String, Node> children = new HashMap<>();
        boolean locked;

        Node(Node parent) {
            this.parent = parent;
        }
    }

    /** Adds a node (and its missing ancestors) to the tree, as the article's merge of operation trees does. */
    Node node(TreePath path) {
        global.lock();
        try {
            Node n = root;
            for (TreePath.Segment s : path.segments()) {
                Node parent = n;
                n = n.children.computeIfAbsent(s.toString(), k -> new Node(parent));
            }
            return n;
        } finally {
            global.unlock();
        }
    }

    /** Locks every node or none; waits up to {@code timeoutMillis} (negative: for ever). */
    List<Node> tryLock(Set<TreePath> paths, long timeoutMillis) throws InterruptedException {
        List<Node> nodes = new ArrayList<>();
        paths.forEach(p -> nodes.add(node(p)));
        long deadline = System.currentTimeMillis() + timeoutMillis;
        while (true) {
            global.lock();
            try {
                if (nodes.stream().noneMatch(SeedTreeLock::blocked)) {
                    nodes.forEach(n -> n.locked = true);
                    return nodes;
                }
            } finally {
                global.unlock();
            }
            if (timeoutMillis >= 0 && System.currentTimeMillis() >= deadline) {
                return null;
            }
            Thread.sleep(SLEEP_MILLIS);
        }
    }

    void unlock(List<Node> nodes) {
        global.lock();
        try {
            nodes.forEach(n -> n.locked = false);
        } finally {
            global.unlock();
        }
    }

    private static boolean blocked(Node node) {
        for (Node n = node; n != null; n = n.parent) {
            if (n.locked) {
                return true;
            }
        }
        Deque<Node> below = new ArrayDeque<>(node.children.values());
        while (!below.isEmpty()) {
            Node n = below.pop();
            if (n.locked) {
                return true;
            }
            below.addAll(n.children.values());
        }
        return false;
    }
}
