package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.db.Notifications;

import java.util.Collection;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * The waiters of this process. A release here wakes at once every waiter whose nodes are related
 * to the released ones; so does a release in another process, on a database whose notifications
 * say so ({@link Notifications}); elsewhere waiters try again by their
 * retry policy's waits. A wake-up that arrives between a waiter's failed attempt and its wait is kept
 * (a semaphore permit), so none is lost.
 */
final class Waiters {
    private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

    static final class Waiter {
        private final TreeLockRequest request;
        private final Semaphore signal = new Semaphore(0);

        private Waiter(TreeLockRequest request) {
            this.request = request;
        }

        /** Waits until woken or {@code nanos} pass; drains extra wake-ups so the next wait is a real one. */
        void await(long nanos) {
            try {
                if (signal.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
                    signal.drainPermits();
                }
            } catch (InterruptedException e) {
                throw EngineRuntimeException.interrupted("waiting for tree lock " + request, e);
            }
        }
    }

    Waiter register(TreeLockRequest request) {
        Waiter w = new Waiter(request);
        waiting.add(w);
        return w;
    }

    void remove(Waiter w) {
        if (w != null) {
            waiting.remove(w);
        }
    }

    /** Whether no waiter here waits for a node under a root of {@code topic} ({@link TreeLockStore#topics}). */
    boolean nobodyWaitsOn(String topic) {
        return waiting.stream().noneMatch(w -> TreeLockStore.topics(w.request.nodes().keySet()).contains(topic));
    }

    /** Wakes the waiters a change to {@code nodes} may unblock. */
    void wake(Collection<TreePath> nodes) {
        for (Waiter w : waiting) {
            if (relatedToAny(w.request, nodes)) {
                w.signal.release();
            }
        }
    }

    /**
     * A note from another process: the released nodes, one per line, or
     * {@link Notifications#EVERYTHING} (notes may have been missed) — every waiter looks again.
     */
    void wake(String note) {
        if (note.equals(Notifications.EVERYTHING)) {
            waiting.forEach(w -> w.signal.release());
            return;
        }
        wake(note.lines().map(TreePath::parse).toList());
    }

    private static boolean relatedToAny(TreeLockRequest request, Collection<TreePath> nodes) {
        for (TreePath wanted : request.nodes().keySet()) {
            for (TreePath changed : nodes) {
                if (wanted.isRelatedTo(changed)) {
                    return true;
                }
            }
        }
        return false;
    }
}
