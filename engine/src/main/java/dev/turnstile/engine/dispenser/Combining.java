package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.retry.RetryPolicy;

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
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;

/**
 * Flat combining: callers queue their requests; whoever holds the leader lock drains the queue and
 * takes the whole block (+N) in one save, then hands each caller its slice. The batch closes when
 * the strategy asks its size ({@link BlockTaker}); callers that arrive after that form the next
 * block, so one commit serves many numbers under load. Before it drains a batch, a leader waits a
 * moment for as many callers as its last batch had ({@link #awaitLastCallers}), which fills the
 * blocks of callers that come straight back.
 * How the block is taken is the callers' strategy ({@link OptimisticBlocks} for COMBINING, one
 * cooperative lock for COOPERATIVE_LOCK); the register records each caller's own user for its numbers.
 */
final class Combining {
    private final UUID id;
    private final RetryPolicy policy;
    /** Batches a leader serves before it steps down and lets a waiter lead. */
    static final int LEADER_ROUNDS = 8;
    /** How often a waiter looks whether the leader stepped down. */
    static final Duration POLL = Duration.ofMillis(5);
    static final Duration DEFAULT_WAIT_BOUND = Duration.ofSeconds(60);
    /** The longest a leader waits for the last batch's callers, however slow the last block was. */
    static final Duration FILL_WAIT_CAP = Duration.ofMillis(1);
    /** Null: the policy's, read at each take (a reload may change it). */
    private final Duration waitBound;
    private final LongSupplier nanoTime;
    private final ReentrantLock leader = new ReentrantLock();
    private final Queue<Request> queue = new ConcurrentLinkedQueue<>();
    /** A leader waiting for the callers of its last batch to come back; each arrival wakes it. */
    private volatile Thread filling;
    /** Requests in the last batch and the nanoseconds its block took (read and written by the leader). */
    private int lastBatch;
    private long lastBlockNanos;

    /** {@code takeBlock}: how this caller would take a batch's block if it leads. */
    private record Request(int count, String user, BlockTaker takeBlock, CompletableFuture<NumberBlock> result) {
    }

    /**
     * How a leader takes its batch's block: {@code count} closes the batch and says how many numbers
     * to take — asked once the strategy may take them, so that a strategy that waits first (for a
     * cooperative lock) takes for the callers that queued while it waited too, where a batch closed
     * before the wait left them for another round of lock and unlock.
     */
    @FunctionalInterface
    interface BlockTaker {
        NumberBlock take(IntSupplier count);
    }

    Combining(UUID id, RetryPolicy policy) {
        this(id, policy, null, System::nanoTime);
    }

    Combining(UUID id, RetryPolicy policy, Duration waitBound, LongSupplier nanoTime) {
        this.id = id;
        this.policy = policy;
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
     * thread saves. A leader takes a batch's block by the {@code takeBlock} of the batch's first
     * request. The request is queued first; then whoever can take the leader lock serves the
     * queue, batch after batch, for at most {@link #LEADER_ROUNDS} batches (so one thread does not
     * serve the others forever), and re-checks it after letting go, so a request queued while a
     * leader was finishing is never stranded. Callers that are not leaders wait for their own
     * result, looking every {@link #POLL} whether the leader has stepped down — and for no longer
     * than {@code waitBound}: a request still queued then is withdrawn (nothing was taken for it).
     */
    NumberBlock take(int count, String user, BlockTaker takeBlock) {
        Request mine = new Request(count, user, takeBlock, new CompletableFuture<>());
        queue.add(mine);
        Thread waitingLeader = filling;
        if (waitingLeader != null) {
            LockSupport.unpark(waitingLeader);
        }
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

    private void drainInto(List<Request> batch) {
        for (Request r; (r = queue.poll()) != null; ) {
            batch.add(r);
        }
    }

    /** Requests queued and not yet in a batch (for tests). */
    int queued() {
        return queue.size();
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

    /**
     * Before a batch is drained, waits for as many requests as the last batch had: its callers come
     * straight back for their next numbers, and a fuller block costs the same statement. The wait is
     * at most half the last block's time (and {@link #FILL_WAIT_CAP}), so callers that do work between
     * numbers lose little, and once they do not come back in time the next batch is smaller and
     * expects fewer.
     */
    private void awaitLastCallers() {
        if (queue.size() >= lastBatch) {
            return; // they are back, or there was no batch of several
        }
        long until = nanoTime.getAsLong() + Math.min(lastBlockNanos / 2, FILL_WAIT_CAP.toNanos());
        filling = Thread.currentThread();
        try {
            for (long left; queue.size() < lastBatch && (left = until - nanoTime.getAsLong()) > 0
                    && !Thread.currentThread().isInterrupted(); ) {
                LockSupport.parkNanos(this, left);
            }
        } finally {
            filling = null;
        }
    }

    private void serveQueue() {
        awaitLastCallers();
        List<Request> batch = new ArrayList<>();
        drainInto(batch);
        if (batch.isEmpty()) {
            return;
        }
        // From here every request of the batch is completed, whatever is thrown: its caller waits for it.
        try {
            List<String> issuers = new ArrayList<>(); // filled when the batch closes, read by the register's save
            int[] block = {0};
            IntSupplier count = () -> {
                if (block[0] == 0) {
                    drainInto(batch);
                    batch.forEach(r -> issuers.addAll(Collections.nCopies(r.count(), r.user())));
                    block[0] = issuers.size();
                }
                return block[0];
            };
            long started = nanoTime.getAsLong();
            NumberBlock taken = Register.issuedFor(issuers, () -> batch.get(0).takeBlock().take(count));
            lastBlockNanos = nanoTime.getAsLong() - started;
            lastBatch = batch.size();
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
