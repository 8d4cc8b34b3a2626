package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;

import java.util.Collections;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Gray's multiple-granularity lock modes. A request for S or X on a node marks every ancestor with
 * the matching intention (IS or IX), so a conflict is always visible on one row — the node itself
 * or an ancestor — and acquiring costs depth × nodes requested, whatever the size of the tree.
 */
enum GrayMode {
    IS("is_count"), IX("ix_count"), S("s_count"), SIX("six_count"), X("x_count");

    /** The node row's counter of holders in this mode. */
    final String column;

    GrayMode(String column) {
        this.column = column;
    }

    /** Gray's compatibility matrix. */
    boolean compatibleWith(GrayMode other) {
        return switch (this) {
            case IS -> other != X;
            case IX -> other == IS || other == IX;
            case S -> other == IS || other == S;
            case SIX -> other == IS;
            case X -> false;
        };
    }

    Set<GrayMode> incompatible() {
        Set<GrayMode> out = EnumSet.noneOf(GrayMode.class);
        for (GrayMode m : values()) {
            if (!compatibleWith(m)) {
                out.add(m);
            }
        }
        return out;
    }

    /** The weakest mode that covers both (one holder marking a node for two reasons). */
    GrayMode join(GrayMode other) {
        if (this == other) {
            return this;
        }
        if (this == X || other == X) {
            return X;
        }
        if (this == IS) {
            return other;
        }
        if (other == IS) {
            return this;
        }
        return SIX; // the remaining pairs are {IX, S}, {IX, SIX} and {S, SIX}
    }

    static GrayMode of(TreeLockMode mode) {
        return mode == TreeLockMode.SHARED ? S : X;
    }

    static GrayMode intentionFor(TreeLockMode mode) {
        return mode == TreeLockMode.SHARED ? IS : IX;
    }

    /**
     * The one order every transaction writes node rows in, so none waits on another in a cycle:
     * deepest first, so a refused request usually fails at its first row (the node it asked for)
     * without having locked the shared ancestor rows that every other request needs.
     */
    static final Comparator<TreePath> WRITE_ORDER = Comparator.comparingInt(TreePath::depth).reversed()
            .thenComparing(Comparator.naturalOrder());

    /** Every row a request writes and in which mode, in {@link #WRITE_ORDER}. */
    static SortedMap<TreePath, GrayMode> marksOf(TreeLockRequest request) {
        SortedMap<TreePath, GrayMode> marks = new TreeMap<>(WRITE_ORDER);
        for (Map.Entry<TreePath, TreeLockMode> e : request.nodes().entrySet()) {
            marks.merge(e.getKey(), of(e.getValue()), GrayMode::join);
            for (TreePath p = e.getKey().parent(); p != null; p = p.parent()) {
                marks.merge(p, intentionFor(e.getValue()), GrayMode::join);
            }
        }
        return Collections.unmodifiableSortedMap(marks);
    }
}
