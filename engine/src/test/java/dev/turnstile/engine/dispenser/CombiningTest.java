package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.NumberBlock;
import dev.turnstile.api.RetryMetrics;
import dev.turnstile.api.RetryPolicy;
import dev.turnstile.api.RetryPolicyConfig;
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
import java.util.function.Function;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The combiner's waiting rules, with the database taken out: the "retry policy" below is where the
 * block would be taken, so a test decides what taking does — throws an Error, or hangs. (Combining
 * under load, on the databases, is in the dispenser contract suite.)
 */
class CombiningTest {
    private static final UUID ID = UUID.randomUUID();

    /** A policy whose call is {@code take}: it never runs the real save. */
    private static RetryPolicy taking(Function<Integer, Object> take) {
        return new RetryPolicy() {
            @Override
            public String name() {
                return "test";
            }

            @Override
            public RetryPolicyConfig config() {
                return RetryPolicyConfig.ofDefaults();
            }

            @Override
            @SuppressWarnings("unchecked")
            public <T> T call(Supplier<T> action) {
                return (T) take.apply(0);
            }

            @Override
            public RetryMetrics metrics() {
                throw new UnsupportedOperationException();
            }
        };
    }

    private static List<Future<Object>> takeFromThreads(ExecutorService pool, Combining c, int threads) {
        List<Future<Object>> out = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            out.add(pool.submit(() -> {
                try {
                    return c.take(1, "u");
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
        Combining c = new Combining(null, ID, taking(x -> {
            try {
                queued.await(10, TimeUnit.SECONDS); // let the others queue behind the first leader
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            throw new AssertionError("out of memory, say");
        }), null, Duration.ofMinutes(5), System::nanoTime);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Object>> results = takeFromThreads(pool, c, 8);
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
        Combining c = new Combining(null, ID, taking(x -> {
            stuck.countDown();
            try {
                release.await(60, TimeUnit.SECONDS); // a leader hung in its save
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new NumberBlock(1, 1, null, LocalDate.of(2026, 12, 1));
        }), null, Duration.ofSeconds(30), ticker::get);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Object> leader = pool.submit(() -> c.take(1, "leader"));
            assertThat(stuck.await(10, TimeUnit.SECONDS)).isTrue();
            Future<Object> waiter = pool.submit(() -> {
                try {
                    return c.take(1, "waiter");
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
