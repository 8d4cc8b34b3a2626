package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreePath;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The rows of {@code ts_tree_node} a node's marks are written to. Every lock below a node marks it
 * with an intention (IS or IX), so the rows of the nodes near the top — a site, its workshops — were
 * written by every lock of the site, one transaction at a time: one site did about 300 lock+unlock
 * pairs per second whatever the thread count (issue 16). So those nodes have stripes, rows of their
 * own ({@link #row}), as SQL Server partitions the lock of a hot table: an intention is marked on
 * one stripe, the lease's own, and every other mode (S, SIX, X) — and a waiter's place at the head
 * of the node — on all of them. Gray's rules hold row by row: two marks of a node that conflict
 * always share a stripe, since one of them is S, SIX or X (intentions are compatible with each
 * other), and that row's conditional update decides between them as before.
 */
final class IntentionStripes {
    private IntentionStripes() {
    }

    /** One conditional update: {@code mode} on the row {@code row} (a node's own, or one of its stripes). */
    record Mark(String row, GrayMode mode) {
    }

    /**
     * How many rows a node's marks spread over: a site's root takes every lock of the site, a
     * workshop every lock of its benches; deeper nodes stay one row, so a lock on a bench or an
     * operation costs what it did. A coarse lock (S or X on a site or a workshop) writes every stripe.
     */
    static int of(TreePath node) {
        return switch (node.depth()) {
            case 1 -> 32;
            case 2 -> 16;
            default -> 1;
        };
    }

    /** Stripe {@code stripe} of {@code node}: its own row first, then rows no path can name ("/:" never starts a segment). */
    static String row(TreePath node, int stripe) {
        return stripe == 0 ? node.toString() : node + "/:" + stripe;
    }

    /** Every stripe of {@code node}, in write order. */
    static List<String> rows(TreePath node) {
        List<String> rows = new ArrayList<>();
        for (int stripe = 0; stripe < of(node); stripe++) {
            rows.add(row(node, stripe));
        }
        return rows;
    }

    /**
     * Successive leases of this process take successive stripes (the slot in a lease id's first two
     * hex digits; 32 and 16 divide 256), so locks held at once in one process rarely share a stripe:
     * with stripes by a hash of a random id, 16 threads of one site waited on each other's rows. It
     * starts at random, so that processes do not move in step.
     */
    private static final AtomicInteger NEXT_SLOT = new AtomicInteger(ThreadLocalRandom.current().nextInt(256));

    /** A new lease id: a random UUID whose first two hex digits are this process's next slot. */
    static String newLeaseId() {
        int slot = NEXT_SLOT.getAndIncrement() & 0xff;
        return (slot < 16 ? "0" : "") + Integer.toHexString(slot) + UUID.randomUUID().toString().substring(2);
    }

    /** The stripe of {@code node} that lease {@code leaseId} marks its intentions on: its release and its reaper find the same. */
    static int stripe(String leaseId, TreePath node) {
        return Integer.parseInt(leaseId, 0, 2, 16) % of(node);
    }

    /**
     * The updates that mark {@code marks} for lease {@code leaseId}, in {@link GrayMode#WRITE_ORDER}
     * and stripe order within a node, so that no two transactions wait on each other's rows in a
     * cycle. The lease's stripe of a node comes from its id ({@link #stripe}).
     */
    static List<Mark> marks(SortedMap<TreePath, GrayMode> marks, String leaseId) {
        List<Mark> out = new ArrayList<>();
        for (Map.Entry<TreePath, GrayMode> mark : marks.entrySet()) {
            TreePath node = mark.getKey();
            GrayMode mode = mark.getValue();
            if (mode == GrayMode.IS || mode == GrayMode.IX) {
                out.add(new Mark(row(node, stripe(leaseId, node)), mode));
            } else {
                rows(node).forEach(row -> out.add(new Mark(row, mode)));
            }
        }
        return out;
    }
}
