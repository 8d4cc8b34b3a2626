package dev.turnstile.engine.db;

import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Waiters of this process for rows to be let go (a cooperative lock unlocked, say), woken when it
 * happens here or — through {@link Notifications} — in another process, instead of at the end of
 * their retry policy's wait. A refused attempt registers its ticket before it reads, so a release
 * between the refusal and the wait is not lost (the ticket keeps it as a permit), then arms it for
 * the failure it threw; the retry policy's wait after that failure ends when the ticket is woken
 * ({@link #awaitAfter}). A wake-up is a hint to try again, never a grant.
 */
public final class WakeUps {
    private static final ThreadLocal<Ticket> armed = new ThreadLocal<>();
    /** Retry-policy calls running on this thread: only inside one is there a wait to cut short. */
    private static final ThreadLocal<int[]> retryCalls = ThreadLocal.withInitial(() -> new int[1]);

    private final ConcurrentHashMap<Object, Set<Ticket>> waiting = new ConcurrentHashMap<>();

    /** One attempt's interest in some keys; close it when the attempt no longer waits. */
    public final class Ticket implements AutoCloseable {
        private final List<Object> keys;
        private final Semaphore signal = new Semaphore(0);
        private Throwable armedFor;

        private Ticket(List<Object> keys) {
            this.keys = keys;
        }

        /**
         * The calling thread's next retry wait after {@code failure} ends when this ticket is woken
         * (a ticket armed before on this thread is closed). Outside a retry policy's call nobody
         * waits: the ticket is closed and this answers false.
         */
        public boolean armFor(Throwable failure) {
            if (retryCalls.get()[0] == 0) {
                close();
                return false;
            }
            armedFor = failure;
            Ticket before = armed.get();
            if (before != null && before != this) {
                before.close();
            }
            armed.set(this);
            return true;
        }

        @Override
        public void close() {
            for (Object key : keys) {
                waiting.computeIfPresent(key, (k, tickets) -> {
                    tickets.remove(this);
                    return tickets.isEmpty() ? null : tickets;
                });
            }
            if (armed.get() == this) {
                armed.remove();
            }
        }
    }

    /** Registers interest in {@code keys} before the attempt that may be refused reads them. */
    public Ticket register(Collection<?> keys) {
        Ticket t = new Ticket(List.copyOf(keys));
        for (Object key : t.keys) {
            waiting.computeIfAbsent(key, k -> ConcurrentHashMap.newKeySet()).add(t);
        }
        return t;
    }

    /** Wakes every ticket registered on {@code key}. */
    public void wake(Object key) {
        Set<Ticket> tickets = waiting.get(key);
        if (tickets != null) {
            tickets.forEach(t -> t.signal.release());
        }
    }

    /** Wakes every ticket (notes from other processes may have been missed). */
    public void wakeAll() {
        waiting.values().forEach(tickets -> tickets.forEach(t -> t.signal.release()));
    }

    /** Runs one retry policy's call: a ticket armed in it serves its waits, and none outlives it. */
    public static <T> T retrying(Supplier<T> call) {
        int[] depth = retryCalls.get();
        depth[0]++;
        try {
            return call.get();
        } finally {
            if (--depth[0] == 0) {
                Ticket t = armed.get();
                if (t != null) {
                    t.close();
                }
            }
        }
    }

    /**
     * The wait of a retry policy before its next attempt after {@code failure}: {@code millis}, cut
     * short when the ticket this thread armed for that failure is woken; a plain sleep otherwise.
     * The armed ticket is closed either way.
     */
    public static void awaitAfter(Throwable failure, long millis) throws InterruptedException {
        Ticket t = armed.get();
        if (t == null || !causedBy(failure, t.armedFor)) {
            if (millis > 0) {
                Thread.sleep(millis);
            }
            return;
        }
        try {
            t.signal.tryAcquire(millis, TimeUnit.MILLISECONDS);
        } finally {
            t.close();
        }
    }

    private static boolean causedBy(Throwable failure, Throwable armedFor) {
        for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c == armedFor) {
                return true;
            }
        }
        return false;
    }
}
