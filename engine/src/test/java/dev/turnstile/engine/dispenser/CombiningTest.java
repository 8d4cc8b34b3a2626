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
import java.util.function.IntFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The combiner's waiting rules, with the database taken out: each test decides what taking a block
 * does — throws an Error, or hangs. (Combining under load, on the databases, is in the dispenser
 * contract suite.)
 */
class CombiningTest {
    private static final UUID ID = UUID.randomUUID();

    private static List<Future<Object>> takeFromThreads(ExecutorService pool, Combining c, IntFunction<NumberBlock> take,
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
    void anErrorInTheLeader_reachesEveryWaiter_noneHangs() throws Exception {
        CountDownLatch queued = new CountDownLatch(1);
        Combining c = new Combining(ID, null, Duration.ofMinutes(5), System::nanoTime);
        IntFunction<NumberBlock> failing = block -> {
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
        IntFunction<NumberBlock> hanging = block -> {
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
