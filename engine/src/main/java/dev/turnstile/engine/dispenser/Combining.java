package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Dispenser;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.NumberBlock;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RetryPolicy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Flat combining: callers queue their requests; whoever holds the leader lock drains the queue and
 * takes the whole block (+N) with one first-writer-wins update, then hands each caller its slice.
 * A leader that loses a race to another process takes its block under the row lock instead
 * ({@link Escalation}): waiting in the database's queue, no process starves.
 * Callers that arrive while a block is being taken form the next block, so one commit serves many
 * numbers under load. One combiner serves every session of the engine (it saves as the engine's
 * system user, and records each caller's own user in the register). Across processes, the USN
 * check keeps the blocks disjoint.
 */
final class Combining {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final Pessimistic queued;
    /** Races a leader may lose before it takes the batch's block under the row lock. */
    static final int LOST_RACES = 1;
    /** Batches a leader serves before it steps down and lets a waiter lead. */
    static final int LEADER_ROUNDS = 8;
    /** How often a waiter looks whether the leader stepped down. */
    static final Duration POLL = Duration.ofMillis(5);
    static final Duration DEFAULT_WAIT_BOUND = Duration.ofSeconds(60);
    /** Null: the policy's, read at each take (a reload may change it). */
    private final Duration waitBound;
    private final LongSupplier nanoTime;
    private final ReentrantLock leader = new ReentrantLock();
    private final Queue<Request> queue = new ConcurrentLinkedQueue<>();
    /** The counter as the last leader saved it; only touched while holding {@link #leader}. */
    private CustomObject remembered;
    /** Only touched while holding {@link #leader}. */
    private final Escalation escalation = new Escalation(LOST_RACES);

    private record Request(int count, String user, CompletableFuture<NumberBlock> result) {
    }

    Combining(ObjectStore os, UUID id, RetryPolicy policy, Pessimistic queued) {
        this(os, id, policy, queued, null, System::nanoTime);
    }

    Combining(ObjectStore os, UUID id, RetryPolicy policy, Pessimistic queued, Duration waitBound, LongSupplier nanoTime) {
        this.os = os;
        this.id = id;
        this.policy = policy;
        this.queued = queued;
        this.waitBound = waitBound;
        this.nanoTime = nanoTime;
    }

    /** A waiter waits as long as its policy lets a call take, or {@link #DEFAULT_WAIT_BOUND}. */
    private static Duration waitBoundOf(RetryPolicy policy) {
        Duration total = policy.config().maxTotalWait();
        return total != null ? total : DEFAULT_WAIT_BOUND;
    }

    /**
     * Takes numbers for {@code user}, who is recorded in the register for them even when another
     * thread saves. The request is queued first; then whoever can take the leader lock serves the
     * queue, batch after batch, for at most {@link #LEADER_ROUNDS} batches (so one thread does not
     * serve the others forever), and re-checks it after letting go, so a request queued while a
     * leader was finishing is never stranded. Callers that are not leaders wait for their own
     * result, looking every {@link #POLL} whether the leader has stepped down — and for no longer
     * than {@code waitBound}: a request still queued then is withdrawn (nothing was taken for it).
     */
    NumberBlock take(int count, String user) {
        Request mine = new Request(count, user, new CompletableFuture<>());
        queue.add(mine);
        Duration bound = waitBound != null ? waitBound : waitBoundOf(policy);
        long deadline = nanoTime.getAsLong() + bound.toNanos();
        while (true) {
            while (!mine.result().isDone() && !queue.isEmpty() && leader.tryLock()) {
                try {
                    for (int round = 0; round < LEADER_ROUNDS && !queue.isEmpty(); round++) {
                        serveQueue();
                    }
                } finally {
                    leader.unlock();
                }
            }
            try {
                return mine.result().get(POLL.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                if (nanoTime.getAsLong() - deadline > 0 && queue.remove(mine)) {
                    throw EngineRuntimeException.of(ExceptionCode.E_RETRY_EXHAUSTED, "Waited " + bound.toMillis()
                            + " ms for a combined block of dispenser " + id + " without a leader taking it; nothing was"
                            + " taken for this call");
                }
                // not yet at the bound, or a leader holds the request in its batch: its result is coming
            } catch (ExecutionException e) {
                throw rethrow(e.getCause());
            } catch (InterruptedException e) {
                if (queue.remove(mine)) {
                    throw EngineRuntimeException.interrupted("waiting for a combined block of numbers", e);
                }
                // A leader is taking it already: the number will be this caller's, so wait for it, flag kept.
                Thread.currentThread().interrupt();
                try {
                    return mine.result().join();
                } catch (CompletionException failed) {
                    throw rethrow(failed.getCause());
                }
            }
        }
    }

    private static RuntimeException rethrow(Throwable cause) {
        if (cause instanceof RuntimeException r) {
            throw r;
        }
        if (cause instanceof Error error) {
            throw error;
        }
        throw new IllegalStateException(cause);
    }

    private void serveQueue() {
        List<Request> batch = new ArrayList<>();
        for (Request r; (r = queue.poll()) != null; ) {
            batch.add(r);
        }
        if (batch.isEmpty()) {
            return;
        }
        // From here every request of the batch is completed, whatever is thrown: its caller waits for it.
        try {
            int block = batch.stream().mapToInt(Request::count).sum();
            List<String> issuers = new ArrayList<>(block);
            batch.forEach(r -> issuers.addAll(Collections.nCopies(r.count(), r.user())));
            NumberBlock taken = Register.issuedFor(issuers, () -> escalation.take(policy, () -> {
                if (remembered == null) {
                    remembered = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
                }
                return Strategy.saveIncrement(remembered, block);
            }, () -> {
                remembered = null; // behind the save made here: the next optimistic batch fetches
                return queued.takeOnce(block);
            }));
            long next = taken.first();
            for (Request r : batch) {
                r.result().complete(new NumberBlock(next, r.count(), taken.period(), taken.issuedOn()));
                next += r.count();
            }
        } catch (Throwable t) {
            batch.forEach(r -> r.result().completeExceptionally(t));
            if (t instanceof Error error) {
                throw error; // after every waiter has it
            }
        }
    }
}
