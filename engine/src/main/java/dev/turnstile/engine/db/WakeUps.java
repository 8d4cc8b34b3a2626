package dev.turnstile.engine.db;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The one way this process's waiters wait for something to be let go — a cooperative lock
 * unlocked, tree lock nodes released, changes recorded for the dispatchers — woken when it happens
 * here or, through {@link Notifications}, in another process (on topics this process says it waits
 * on: {@link Waiting}), instead of at the end of their wait. A waiter registers its ticket before it
 * looks, so a release between the look and the wait is not lost (the ticket keeps it as a permit),
 * and waits on it ({@link Ticket#awaitWakeUp}). A refused cooperative lock arms its ticket for the
 * failure it throws to the retry policy the caller runs it in: the policy's wait after that failure
 * ends when the ticket is woken ({@link #awaitAfter}). A wake-up is a hint to look again, never a grant.
 *
 * <p>A release that one waiter can take wakes one waiter ({@link #wakeOne}), the longest waiting:
 * waking them all sent every waiter at the row at once, where all but one were refused — and a
 * refused statement waits for the winner's commit first (4 threads on one cooperative lock: 2.75
 * refused attempts per lock+unlock pair, issue 16). A woken waiter that stops waiting without
 * trying again passes its wake-up on.
 */
public final class WakeUps {
    private static final Logger log = LoggerFactory.getLogger(WakeUps.class);
    private static final ThreadLocal<Ticket> armed = new ThreadLocal<>();
    /** Retry-policy calls running on this thread: only inside one is there a wait to cut short. */
    private static final ThreadLocal<int[]> retryCalls = ThreadLocal.withInitial(() -> new int[1]);
    /** The tickets of this thread's retry-policy call that said this process waits: taken back at its end. */
    private static final ThreadLocal<Set<Ticket>> announcedInCall = ThreadLocal.withInitial(LinkedHashSet::new);
    /** What runs when this thread's retry-policy call ends, by who asked ({@link #atEndOfCall}). */
    private static final ThreadLocal<Map<Object, Runnable>> endOfCallActions = ThreadLocal.withInitial(LinkedHashMap::new);

    /** Tickets by key, oldest first; guarded by {@code this}. */
    private final Map<Object, LinkedHashSet<Ticket>> tickets = new HashMap<>();
    /** Where this process says it has waiters (null: nowhere, the waiters are woken from here only). */
    private final Waiting waiting;
    /** The topic of {@link Waiting} a key's releases are told on in other processes; null for a key told on none. */
    private final Function<Object, String> topicOf;

    /**
     * Waiters on keys whose releases in other processes are told on {@code topicOf(key)}: before a
     * waiter waits, this process says in {@code waiting} that it waits on those topics, so that the
     * releases send it a note, and takes it back when none waits on them any more.
     */
    public WakeUps(Waiting waiting, Function<Object, String> topicOf) {
        this.waiting = waiting;
        this.topicOf = topicOf;
    }

    /** Waiters woken from this process only. */
    public static WakeUps local() {
        return new WakeUps(null, key -> null);
    }

    /** The distinct topics of {@code keys}. */
    private Set<String> topics(Collection<?> keys) {
        Set<String> topics = new LinkedHashSet<>();
        for (Object key : keys) {
            String topic = topicOf.apply(key);
            if (topic != null) {
                topics.add(topic);
            }
        }
        return topics;
    }

    /** Whether no ticket here waits on a key of {@code topic}. */
    private synchronized boolean nobodyWaitsOnTopic(String topic) {
        return tickets.keySet().stream().noneMatch(key -> topic.equals(topicOf.apply(key)));
    }

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
            if (!inRetryCall()) {
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

        /**
         * Before a refusal is thrown to a retry policy: says that this process waits, if it has not
         * said so already; true if it said so just now — the caller looks once more, since a
         * release that committed before it sent no note. False outside a retry policy's call.
         */
        public boolean announce() {
            return inRetryCall() && announced(0);
        }

        /** Whether this process said just now that it waits for {@code millis} more (failing that, it polls). */
        private boolean announced(long millis) {
            if (inRetryCall()) {
                announcedInCall.get().add(this);
            }
            try {
                boolean said = false;
                for (String topic : waiting == null ? Set.<String>of() : topics(keys)) {
                    said |= waiting.announce(topic, Duration.ofMillis(millis));
                }
                return said;
            } catch (RuntimeException e) {
                log.debug("Could not say that a waiter waits; it wakes at the end of its wait", e);
                return false;
            }
        }

        /**
         * Before its first attempt, says that this process waits for {@code nanos} more (so a release
         * elsewhere tells it); true if it said so just now — releases before then sent no note.
         */
        public boolean announceFor(long nanos) {
            return announced(TimeUnit.NANOSECONDS.toMillis(nanos));
        }

        /**
         * Before its first attempt, waits up to {@code nanos} for a wake-up; a wake-up it gets is used
         * by that attempt. Interrupted, it stops waiting and keeps the flag.
         */
        public void awaitWakeUp(long nanos) {
            try {
                signal.tryAcquire(nanos, TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        /** Takes back what this process said of the ticket's topics, where no waiter here waits on one now. */
        public void withdraw() {
            if (waiting == null) {
                return;
            }
            for (String topic : topics(keys)) {
                try {
                    waiting.withdraw(topic, () -> nobodyWaitsOnTopic(topic));
                } catch (RuntimeException e) {
                    log.debug("Could not take back that a waiter waits; it lapses at the end of its last wait", e);
                }
            }
        }

        /** Wakes this ticket's waiter, whoever else waits on its keys (a lock passed to it). */
        public void wake() {
            synchronized (WakeUps.this) {
                if (signal.availablePermits() == 0) {
                    signal.release();
                }
            }
        }

        /** Forgets a wake-up it was given and did not wait for: what came before now, the next look sees. */
        public void clearWakeUp() {
            signal.drainPermits();
        }

        /** Whether it has been woken and not yet used the wake-up. */
        boolean isWoken() {
            return signal.availablePermits() > 0;
        }

        /** No longer waits; a wake-up it was given and did not use goes to the next waiter on its keys. */
        @Override
        public void close() {
            boolean unused = signal.tryAcquire();
            closeUsed();
            if (unused) {
                keys.forEach(WakeUps.this::wakeOne);
            }
        }

        /** No longer waits, having got what it waited for: a wake-up it was given is used up. */
        public void closeUsed() {
            synchronized (WakeUps.this) {
                for (Object key : keys) {
                    LinkedHashSet<Ticket> waiters = tickets.get(key);
                    if (waiters != null && waiters.remove(this) && waiters.isEmpty()) {
                        tickets.remove(key);
                    }
                }
            }
            if (armed.get() == this) {
                armed.remove();
            }
        }
    }

    /** Whether this thread runs inside a retry policy's call: only there does a refusal lead to a wait. */
    private static boolean inRetryCall() {
        return retryCalls.get()[0] > 0;
    }

    /** Registers interest in {@code keys} before the attempt that may be refused reads them. */
    public Ticket register(Collection<?> keys) {
        Ticket t = new Ticket(List.copyOf(keys));
        synchronized (this) {
            for (Object key : t.keys) {
                tickets.computeIfAbsent(key, k -> new LinkedHashSet<>()).add(t);
            }
        }
        return t;
    }

    /**
     * Wakes the longest-waiting ticket on {@code key} that has no wake-up yet: a release that one
     * waiter can take (an exclusive lock let go).
     */
    public void wakeOne(Object key) {
        synchronized (this) {
            LinkedHashSet<Ticket> waiters = tickets.get(key);
            if (waiters != null) {
                for (Ticket t : waiters) {
                    if (t.signal.availablePermits() == 0) {
                        t.signal.release();
                        return;
                    }
                }
            }
        }
    }

    /** Wakes every ticket registered on {@code key}: a change every waiter must see (the row deleted). */
    public synchronized void wake(Object key) {
        LinkedHashSet<Ticket> waiters = tickets.get(key);
        if (waiters != null) {
            waiters.forEach(Ticket::wake);
        }
    }

    /** Wakes every ticket (notes from other processes may have been missed). */
    public synchronized void wakeAll() {
        tickets.values().forEach(waiters -> waiters.forEach(Ticket::wake));
    }

    /** Runs one retry policy's call: a ticket armed in it serves its waits, and none outlives it. */
    public static <T> T retrying(Supplier<T> call) {
        int[] depth = retryCalls.get();
        depth[0]++;
        try {
            return call.get();
        } finally {
            if (--depth[0] == 0) {
                endOfCall();
                Ticket t = armed.get();
                if (t != null) {
                    t.close();
                }
                withdrawAnnounced();
            }
        }
    }

    /**
     * Runs {@code action} when this thread's retry-policy call ends, however it ends (once per
     * {@code asker} and call; a later one from the same asker replaces it). Outside a call: never.
     */
    public static void atEndOfCall(Object asker, Runnable action) {
        if (inRetryCall()) {
            endOfCallActions.get().put(asker, action);
        }
    }

    private static void endOfCall() {
        Map<Object, Runnable> actions = endOfCallActions.get();
        if (actions.isEmpty()) {
            return;
        }
        List<Runnable> due = List.copyOf(actions.values());
        actions.clear();
        for (Runnable action : due) {
            try {
                action.run();
            } catch (RuntimeException e) {
                log.warn("Could not finish what a retry policy's call left", e);
            }
        }
    }

    /**
     * At the end of a retry-policy call (granted, or given up): for each key its tickets said this
     * process waits for, takes that back if no waiter here waits for it now.
     */
    private static void withdrawAnnounced() {
        Set<Ticket> announced = announcedInCall.get();
        if (announced.isEmpty()) {
            return;
        }
        List<Ticket> tickets = List.copyOf(announced);
        announced.clear();
        tickets.forEach(Ticket::withdraw);
    }

    /** Whether no waiter here has a ticket on {@code key} (none waits, or is on its way to). */
    public synchronized boolean nobodyWaitsFor(Object key) {
        return !tickets.containsKey(key);
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
        boolean woken = false;
        try {
            t.announced(millis); // said before the refusal was thrown (announce): this keeps it said
            woken = t.signal.tryAcquire(millis, TimeUnit.MILLISECONDS);
        } finally {
            if (woken) {
                t.closeUsed(); // the next attempt is its use
            } else {
                t.close();
            }
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
