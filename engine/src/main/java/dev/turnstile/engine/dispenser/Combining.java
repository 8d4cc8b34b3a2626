package dev.turnstile.engine.dispenser;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Dispenser;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.NumberBlock;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RetryPolicy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Flat combining: callers queue their requests; whoever holds the leader lock drains the queue and
 * takes the whole block (+N) with one first-writer-wins update, then hands each caller its slice.
 * Callers that arrive while a block is being taken form the next block, so one commit serves many
 * numbers under load. One combiner serves every session of the engine (it saves as the engine's
 * system user, and records each caller's own user in the register). Across processes, the USN
 * check keeps the blocks disjoint.
 */
final class Combining {
    private final ObjectStore os;
    private final UUID id;
    private final RetryPolicy policy;
    private final ReentrantLock leader = new ReentrantLock();
    private final Queue<Request> queue = new ConcurrentLinkedQueue<>();
    /** The counter as the last leader saved it; only touched while holding {@link #leader}. */
    private CustomObject remembered;

    private record Request(int count, String user, CompletableFuture<NumberBlock> result) {
    }

    Combining(ObjectStore os, UUID id, RetryPolicy policy) {
        this.os = os;
        this.id = id;
        this.policy = policy;
    }

    /**
     * Takes numbers for {@code user}, who is recorded in the register for them even when another
     * thread saves. The request is queued first; then whoever can take the leader lock drains the
     * queue batch after batch until it is empty, and re-checks it after letting go, so a request
     * queued while a leader was finishing is never stranded. Callers that are not leaders wait
     * for their own result instead of queueing on the lock.
     */
    NumberBlock take(int count, String user) {
        Request mine = new Request(count, user, new CompletableFuture<>());
        queue.add(mine);
        while (!queue.isEmpty() && leader.tryLock()) {
            try {
                while (!queue.isEmpty()) {
                    serveQueue();
                }
            } finally {
                leader.unlock();
            }
        }
        try {
            return mine.result().get();
        } catch (ExecutionException e) {
            throw (RuntimeException) e.getCause();
        } catch (InterruptedException e) {
            throw EngineRuntimeException.interrupted("waiting for a combined block of numbers", e);
        }
    }

    private void serveQueue() {
        List<Request> batch = new ArrayList<>();
        int total = 0;
        for (Request r; (r = queue.poll()) != null; ) {
            batch.add(r);
            total += r.count();
        }
        if (batch.isEmpty()) {
            return;
        }
        int block = total;
        List<String> issuers = new ArrayList<>(total);
        batch.forEach(r -> issuers.addAll(Collections.nCopies(r.count(), r.user())));
        try {
            NumberBlock taken = Register.issuedFor(issuers, () -> policy.call(() -> {
                if (remembered == null) {
                    remembered = os.fetchCustomObject(Dispenser.CLASS_NAME, id, PropertyFilter.ALL);
                }
                return Strategy.saveIncrement(remembered, block);
            }));
            long next = taken.first();
            for (Request r : batch) {
                r.result().complete(new NumberBlock(next, r.count(), taken.period(), taken.issuedOn()));
                next += r.count();
            }
        } catch (RuntimeException e) {
            batch.forEach(r -> r.result().completeExceptionally(e));
        }
    }
}
