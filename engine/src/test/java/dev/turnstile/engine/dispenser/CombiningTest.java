package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.NumberBlock;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The combiner's waiting rules, with the database taken out: each test decides what taking a block
 * does — throws an Error, or hangs. (Combining under load, on the databases, is in the dispenser
 * contract suite.)
 */
class CombiningTest {
    private static final UUID ID = UUID.randomUUID();

    private static List<Future<Object>> takeFromThreads(ExecutorService pool, Combining c, Combining.BlockTaker take,
                                                        int threads) {
        List<Future<Object>> out = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            out.add(pool.submit(() -> {
                try {
                    return c.take(1, "u", take);
                } catch (Throwable e) {
                    return e;
                }
            }));
        }
        return out;
    }

    @Test
    void aLeaderThatWaitsBeforeItTakes_takesForTheCallersQueuedMeanwhile() throws Exception {
        // A cooperative-lock leader waiting for the lock: callers that queue meanwhile join its block.
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch granted = new CountDownLatch(1);
        List<Integer> blocks = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicLong next = new AtomicLong(1);
        Combining c = new Combining(ID, null, Duration.ofMinutes(5), System::nanoTime);
        Combining.BlockTaker lockFirst = count -> {
            waiting.countDown();
            try {
                granted.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            int n = count.getAsInt();
            blocks.add(n);
            return new NumberBlock(next.getAndAdd(n), n, null, LocalDate.of(2026, 12, 4));
        };
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<Object>> results = new ArrayList<>(takeFromThreads(pool, c, lockFirst, 1));
            assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
            results.addAll(takeFromThreads(pool, c, lockFirst, 3));
            org.awaitility.Awaitility.await("three callers queued").atMost(Duration.ofSeconds(30)).until(() -> c.queued() == 3);
            granted.countDown();
            List<Long> numbers = new ArrayList<>();
            for (Future<Object> f : results) {
                numbers.add(((NumberBlock) f.get(30, TimeUnit.SECONDS)).first());
            }
            assertThat(blocks).as("one block, taken once the leader could take it").containsExactly(4);
            assertThat(numbers).containsExactlyInAnyOrder(1L, 2L, 3L, 4L);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * A combiner whose clock moves only when a block is taken (10 ms a block, so a leader may wait
     * {@link Combining#FILL_WAIT_CAP} for the last batch's callers), its first batch served to
     * three callers: "leader", whose second call is then queued alone, and two others, whose calls
     * have returned.
     */
    private record SecondBatch(Combining combining, AtomicLong ticker, List<Integer> blocks,
                               Combining.BlockTaker take, Future<List<NumberBlock>> leader, List<Long> othersFirst) {
    }

    private static SecondBatch afterAFirstBatchOfThree(ExecutorService pool) throws Exception {
        AtomicLong ticker = new AtomicLong();
        Combining c = new Combining(ID, null, Duration.ofMinutes(5), ticker::get);
        CountDownLatch waiting = new CountDownLatch(1);
        CountDownLatch granted = new CountDownLatch(1);
        List<Integer> blocks = new java.util.concurrent.CopyOnWriteArrayList<>();
        AtomicLong next = new AtomicLong(1);
        Combining.BlockTaker take = count -> {
            if (blocks.isEmpty()) {
                waiting.countDown();
                try {
                    granted.await(30, TimeUnit.SECONDS); // so the first batch is the leader's and the two others'
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ticker.addAndGet(Duration.ofMillis(10).toNanos());
            int n = count.getAsInt();
            blocks.add(n);
            return new NumberBlock(next.getAndAdd(n), n, null, LocalDate.of(2026, 12, 7));
        };
        Future<List<NumberBlock>> leader = pool.submit(() -> List.of(c.take(1, "leader", take), c.take(1, "leader", take)));
        assertThat(waiting.await(30, TimeUnit.SECONDS)).isTrue();
        List<Future<Object>> others = takeFromThreads(pool, c, take, 2);
        org.awaitility.Awaitility.await("two callers queued").atMost(Duration.ofSeconds(30)).until(() -> c.queued() == 2);
        granted.countDown();
        List<Long> othersFirst = new ArrayList<>();
        for (Future<Object> f : others) {
            othersFirst.add(((NumberBlock) f.get(30, TimeUnit.SECONDS)).first());
        }
        org.awaitility.Awaitility.await("the leader's second call queued, or served").atMost(Duration.ofSeconds(30))
                .until(() -> c.queued() == 1 || leader.isDone());
        return new SecondBatch(c, ticker, blocks, take, leader, othersFirst);
    }

    @Test
    void aLeaderWaitsForTheCallersOfItsLastBatch_whoComeStraightBack_andTakesOneBlockForThemAll() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            SecondBatch second = afterAFirstBatchOfThree(pool);
            List<Future<Object>> back = takeFromThreads(pool, second.combining(), second.take(), 2);
            List<Long> numbers = new ArrayList<>(second.othersFirst());
            for (NumberBlock b : second.leader().get(30, TimeUnit.SECONDS)) {
                numbers.add(b.first());
            }
            for (Future<Object> f : back) {
                numbers.add(((NumberBlock) f.get(30, TimeUnit.SECONDS)).first());
            }
            assertThat(second.blocks()).as("blocks taken: the second for the three callers again").containsExactly(3, 3);
            assertThat(numbers).containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L, 6L);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLeaderWhoseLastCallersDoNotComeBack_takesForItselfOnceItsWaitIsOver() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            SecondBatch second = afterAFirstBatchOfThree(pool);
            // Half the last block's 10 ms, capped: past it, whenever the leader started waiting.
            second.ticker().addAndGet(Combining.FILL_WAIT_CAP.toNanos() + 1);
            List<NumberBlock> leaders = second.leader().get(30, TimeUnit.SECONDS);
            assertThat(second.blocks()).as("blocks taken").containsExactly(3, 1);
            assertThat(leaders.get(1).first()).isEqualTo(4L);
            assertThat(second.combining().queued()).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void anErrorInTheLeader_reachesEveryWaiter_noneHangs() throws Exception {
        CountDownLatch queued = new CountDownLatch(1);
        Combining c = new Combining(ID, null, Duration.ofMinutes(5), System::nanoTime);
        Combining.BlockTaker failing = block -> {
            try {
                queued.await(10, TimeUnit.SECONDS); // let the others queue behind the first leader
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new AssertionError("out of memory, say");
        };
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Object>> results = takeFromThreads(pool, c, failing, 8);
            queued.countDown();
            for (Future<Object> f : results) {
                assertThat(f.get(30, TimeUnit.SECONDS)).isInstanceOf(AssertionError.class).hasToString(
                        "java.lang.AssertionError: out of memory, say");
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aWaiterWhoseLeaderNeverReturns_givesUpAtItsBound_havingTakenNothing() throws Exception {
        CountDownLatch stuck = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicLong ticker = new AtomicLong();
        Combining c = new Combining(ID, null, Duration.ofSeconds(30), ticker::get);
        Combining.BlockTaker hanging = block -> {
            stuck.countDown();
            try {
                release.await(60, TimeUnit.SECONDS); // a leader hung in its save
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new NumberBlock(1, 1, null, LocalDate.of(2026, 12, 1));
        };
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Object> leader = pool.submit(() -> c.take(1, "leader", hanging));
            assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Object> waiter = pool.submit(() -> {
                try {
                    return c.take(1, "waiter", hanging);
                } catch (EngineRuntimeException e) {
                    return e;
                }
            });
            // The waiter's clock moves on (ours does not): past its bound, whenever it started waiting.
            org.awaitility.Awaitility.await("the waiter gives up").atMost(Duration.ofSeconds(30)).until(() -> {
                ticker.addAndGet(Duration.ofSeconds(31).toNanos());
                return waiter.isDone();
            });
            Object outcome = waiter.get();
            assertThat(outcome).isInstanceOf(EngineRuntimeException.class);
            assertThat(((EngineRuntimeException) outcome).getExceptionCode()).isEqualTo(ExceptionCode.E_RETRY_EXHAUSTED);
            assertThat(((EngineRuntimeException) outcome).getMessage()).contains("Waited 30000 ms", "nothing was taken for this call");
            release.countDown();
            assertThat(((NumberBlock) leader.get(30, TimeUnit.SECONDS)).count()).as("the leader still gets its one number").isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }
}
