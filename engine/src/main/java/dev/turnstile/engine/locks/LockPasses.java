package dev.turnstile.engine.locks;

import com.github.benmanes.caffeine.cache.Cache;
import dev.turnstile.engine.db.Caches;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.objects.LockHook;
import dev.turnstile.engine.objects.LockRules;
import dev.turnstile.engine.objects.ObjectState;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * Lock requests of this engine that wait, in their retry policy's wait, for a lock held here or
 * elsewhere: an unlock here passes the lock to the longest waiting one in its one statement
 * (the row goes from one holder to the next, never free between), where letting it go and the
 * waiter asking again took two statements and left a moment in which a poller elsewhere could take
 * it. Passes in a row are bounded ({@link #IN_A_ROW}); the unlock after them lets the lock go, and
 * waiters in other processes, told by its note, get their turn — lock cohorting (Dice, Marathe and
 * Shavit, PPoPP 2012), with the process as the cohort and the row as the global lock.
 *
 * <p>A waiting request is passed the lock at most once, and learns it at its next save on its thread
 * (the policy's next attempt), which uses it if it asks for the same lock again (same request), or
 * lets it go; a call that ends without asking again lets it go too ({@link WakeUps#atEndOfCall}).
 */
public final class LockPasses {
    /** Passes of one lock in a row before an unlock lets it go: how many turns here a waiter elsewhere waits at most. */
    public static final int IN_A_ROW = 8;
    /** How long an unlock waits at most for a request here on its way to wait for the lock (awaitWaiting). */
    static final long ON_ITS_WAY_NANOS = 1_000_000L;

    private static final int WAITING = 0;
    private static final int CLAIMED = 1;
    private static final int DECIDED = 2;
    private static final int WITHDRAWN = 3;

    /** Waiting requests by object, oldest first; guarded by itself. */
    private final Map<UUID, ArrayDeque<Waiting>> waiting = new HashMap<>();
    private final ThreadLocal<Waiting> thisThreads = new ThreadLocal<>();
    /** Passes of each lock since it was last let go here; bounded, a lock forgotten counts from 0. */
    private final Cache<UUID, Integer> inARow = Caches.builder().maximumSize(10_000).build();
    /** Where a pass counts as the holder's release. */
    private final LockCounts counts;

    LockPasses(LockCounts counts) {
        this.counts = counts;
    }

    /** A refused lock request waiting here, in its policy's wait, to be passed the lock. */
    final class Waiting implements LockHook.Waiter {
        final UUID id;
        private final String className;
        private final LockRules.Actor actor;
        private final LockRules.Pending request;
        private final WakeUps.Ticket ticket;
        private final AtomicInteger state = new AtomicInteger(WAITING);
        private final CountDownLatch decided = new CountDownLatch(1);
        private volatile ObjectState passed;

        private Waiting(UUID id, String className, LockRules.Actor actor, LockRules.Pending request, WakeUps.Ticket ticket) {
            this.id = id;
            this.className = className;
            this.actor = actor;
            this.request = request;
            this.ticket = ticket;
        }

        @Override
        public String className() {
            return className;
        }

        @Override
        public LockRules.Actor actor() {
            return actor;
        }

        @Override
        public LockRules.Pending request() {
            return request;
        }

        /**
         * The holder's pass, written ({@code passed}: the row as it left it; the holder's lock counts as
         * released, one more pass in a row) or not (null); wakes the waiter.
         */
        @Override
        public void decide(ObjectState passed) {
            if (passed != null) {
                counts.released(id);
                inARow.asMap().merge(id, 1, Integer::sum);
            }
            this.passed = passed;
            state.set(DECIDED);
            decided.countDown();
            ticket.wake();
        }

        /** The row as the pass left it: locked by this request. */
        ObjectState passed() {
            return passed;
        }

        /** Whether {@code r}, saved by {@code actor}, asks for the lock this request asked for. */
        boolean askedAgainBy(LockHook.Request r, LockRules.Actor actor) {
            return r.id().equals(id) && actor.equals(this.actor) && r.action().equals(request) && !r.valuesPending();
        }
    }

    /** Parks refused lock request {@code r}, made by {@code actor} on this thread, whose policy now waits on {@code ticket}. */
    void park(LockHook.Request r, LockRules.Actor actor, WakeUps.Ticket ticket) {
        Waiting w = new Waiting(r.id(), r.className(), actor, r.action(), ticket);
        synchronized (waiting) {
            waiting.computeIfAbsent(w.id, k -> new ArrayDeque<>()).add(w);
            waiting.notifyAll(); // an unlock may be waiting for it (awaitWaiting)
        }
        thisThreads.set(w);
    }

    /**
     * Waits up to {@code nanos} for a request for {@code id} to wait here: one on its way (asked, not
     * yet refused) parks within microseconds unless it is at the database. True if one waits.
     */
    boolean awaitWaiting(UUID id, long nanos) {
        long until = System.nanoTime() + nanos;
        synchronized (waiting) {
            for (long left = nanos; !waiting.containsKey(id) && left > 0; left = until - System.nanoTime()) {
                try {
                    waiting.wait(left / 1_000_000, (int) (left % 1_000_000));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            }
            return waiting.containsKey(id);
        }
    }

    /**
     * The longest-waiting request for {@code id} that {@code fits}, claimed: the caller must
     * {@link Waiting#decide} it. Null if none waits, or the lock was passed {@link #IN_A_ROW} times.
     */
    Waiting claim(UUID id, Predicate<? super Waiting> fits) {
        if (inARow(id) >= IN_A_ROW) {
            return null;
        }
        synchronized (waiting) {
            ArrayDeque<Waiting> queue = waiting.get(id);
            if (queue == null) {
                return null;
            }
            for (Iterator<Waiting> it = queue.iterator(); it.hasNext(); ) {
                Waiting w = it.next();
                if (fits.test(w) && w.state.compareAndSet(WAITING, CLAIMED)) {
                    it.remove();
                    forgetIfEmpty(id, queue);
                    return w;
                }
            }
            return null;
        }
    }

    /** Passes of the lock on {@code id} since it was last let go here. */
    int inARow(UUID id) {
        Integer n = inARow.getIfPresent(id);
        return n == null ? 0 : n;
    }

    /** The lock on {@code id} was let go (or taken) otherwise than by a pass: the next run of passes starts. */
    void letGo(UUID id) {
        inARow.invalidate(id);
    }

    /**
     * This thread's parked request, no longer waiting: null if none; else it with the lock passed
     * to it, if one was ({@link Waiting#passed}; waits for a pass under way to be decided).
     */
    Waiting takeThisThreads() {
        Waiting w = thisThreads.get();
        if (w == null) {
            return null;
        }
        thisThreads.remove();
        if (w.state.compareAndSet(WAITING, WITHDRAWN)) {
            synchronized (waiting) {
                ArrayDeque<Waiting> queue = waiting.get(w.id);
                if (queue != null) {
                    queue.remove(w);
                    forgetIfEmpty(w.id, queue);
                }
            }
            return null;
        }
        boolean interrupted = false;
        while (true) {
            try {
                w.decided.await(); // the holder's one statement
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        return w.passed == null ? null : w;
    }

    private void forgetIfEmpty(UUID id, ArrayDeque<Waiting> queue) {
        if (queue.isEmpty()) {
            waiting.remove(id);
        }
    }
}
