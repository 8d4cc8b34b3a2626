package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.RetryExhaustedException;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import io.github.resilience4j.core.IntervalFunction;
import jakarta.persistence.OptimisticLockException;
import jakarta.persistence.RollbackException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

class RetryPolicyTest {
    private static RetryPolicy policy(RetryPolicyConfig config) {
        return new DefaultRetryPolicies(Map.of("p", config), "test").get("p");
    }

    private static RetryPolicyConfig.Builder fast() {
        return RetryPolicyConfig.builder().waitDuration(Duration.ofMillis(1));
    }

    private static EngineRuntimeException modified() {
        return EngineRuntimeException.objectModified("C", null, 0L, 1L);
    }

    @Test
    void configsWithTheSameSets_areEqual_whateverOrderTheValuesCameIn() {
        // Each of the 2 × 2 orders, many times: immutable hash sets iterate in an order that depends
        // on insertion and on a per-JVM salt, which made equal configs print (and compare) differently.
        for (int i = 0; i < 50; i++) {
            LinkedHashSet<ExceptionCode> one = new LinkedHashSet<>(List.of(ExceptionCode.E_OBJECT_LOCKED,
                    ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_LOCK_TIMEOUT));
            LinkedHashSet<ExceptionCode> other = new LinkedHashSet<>(List.of(ExceptionCode.E_LOCK_TIMEOUT,
                    ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED));
            RetryPolicyConfig a = RetryPolicyConfig.builder().retryCodes(one)
                    .retryExceptions(new LinkedHashSet<>(List.of("java.io.IOException", "x.Y" + i))).build();
            RetryPolicyConfig b = RetryPolicyConfig.builder().retryCodes(other)
                    .retryExceptions(new LinkedHashSet<>(List.of("x.Y" + i, "java.io.IOException"))).build();
            assertThat(a).isEqualTo(b);
            assertThat(a.toString()).isEqualTo(b.toString());
        }
    }

    @Test
    void retriesTheContentionCodes_untilSuccess() {
        RetryPolicy p = policy(fast().maxAttempts(5).build());
        AtomicInteger calls = new AtomicInteger();
        String result = p.call(() -> {
            if (calls.incrementAndGet() < 3) {
                throw modified();
            }
            return "done";
        });
        assertThat(result).isEqualTo("done");
        assertThat(p.metrics()).isEqualTo(new RetryMetrics(0, 1, 0, 0, 3, p.metrics().totalWait()));
    }

    @Test
    void anErrorThePolicyDoesNotRetry_passesThroughAtOnce() {
        RetryPolicy p = policy(fast().maxAttempts(5).build());
        EngineRuntimeException bad = EngineRuntimeException.badArgument("x", 1, "no");
        assertThatThrownBy(() -> p.run(() -> {
            throw bad;
        })).isSameAs(bad);
        assertThat(p.metrics().failedWithoutRetry()).isEqualTo(1);
        assertThat(p.metrics().attempts()).isEqualTo(1);
    }

    @Test
    void exhaustion_carriesAttemptsTimeAndLastCause() {
        RetryPolicy p = policy(fast().maxAttempts(4).build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> p.run(() -> {
            throw EngineRuntimeException.objectModified("C", null, (long) calls.incrementAndGet(), 99L);
        })).isInstanceOfSatisfying(RetryExhaustedException.class, e -> {
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_RETRY_EXHAUSTED);
            assertThat(e.getAttempts()).isEqualTo(4);
            assertThat(e.getPolicy()).isEqualTo("p");
            assertThat(e.getElapsed()).isGreaterThanOrEqualTo(Duration.ZERO);
            assertThat(((EngineRuntimeException) e.getCause()).getRequestedUsn()).isEqualTo(4L);
            assertThat(e.getMessage()).startsWith("E_RETRY_EXHAUSTED: Retry policy p gave up after 4 attempts in ")
                    .contains("maxAttempts 4 reached").endsWith("requested USN = 4, database USN = 99");
        });
        assertThat(p.metrics().failedWithRetry()).isEqualTo(1);
    }

    @Test
    void codesAndClassesAreMatchedThroughWrappingExceptions() {
        RetryPolicy byCode = policy(fast().maxAttempts(2).build());
        AtomicInteger calls = new AtomicInteger();
        byCode.run(() -> {
            if (calls.incrementAndGet() == 1) {
                throw new RollbackException("commit failed", modified());
            }
        });
        assertThat(calls).hasValue(2);

        RetryPolicy byClass = policy(fast().maxAttempts(2).retryExceptions(Set.of(OptimisticLockException.class.getName())).build());
        AtomicInteger classCalls = new AtomicInteger();
        byClass.run(() -> {
            if (classCalls.incrementAndGet() == 1) {
                throw new RollbackException("tx", new OptimisticLockException("row changed"));
            }
        });
        assertThat(classCalls).hasValue(2);
        assertThat(byClass.config().effectiveRetryCodes()).as("explicit classes replace the default codes").isEmpty();
    }

    @Test
    void ignoredCodesWinOverRetriedOnes() {
        RetryPolicy p = policy(fast().maxAttempts(5).retryCodes(Set.of(ExceptionCode.E_OBJECT_LOCKED))
                .ignoreCodes(Set.of(ExceptionCode.E_OBJECT_MODIFIED)).build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> p.run(() -> {
            calls.incrementAndGet();
            throw new IllegalStateException("wrapper", EngineRuntimeException.objectLocked("C", null, "x", null, null));
        })).isInstanceOf(RetryExhaustedException.class);
        assertThat(calls).hasValue(5);
        calls.set(0);
        assertThatThrownBy(() -> p.run(() -> {
            calls.incrementAndGet();
            throw modified();
        })).hasMessageContaining("E_OBJECT_MODIFIED");
        assertThat(calls).hasValue(1);
    }

    @Test
    void exponentialBackoffWithJitter_staysWithinItsBounds() {
        RetryPolicyConfig c = RetryPolicyConfig.builder().waitDuration(Duration.ofMillis(100))
                .enableExponentialBackoff(true).exponentialBackoffMultiplier(2.0)
                .exponentialMaxWaitDuration(Duration.ofMillis(1000))
                .enableRandomizedWait(true).randomizedWaitFactor(0.5).build();
        IntervalFunction intervals = DefaultRetryPolicy.intervals(c);
        // Resilience4j randomises the uncapped exponential wait, then caps it at the maximum.
        for (int attempt = 1; attempt <= 8; attempt++) {
            double uncapped = 100 * Math.pow(2, attempt - 1);
            long lowest = (long) Math.floor(Math.min(uncapped * 0.5, 1000));
            long highest = (long) Math.ceil(Math.min(uncapped * 1.5, 1000));
            long low = Long.MAX_VALUE;
            long high = 0;
            for (int i = 0; i < 2000; i++) {
                long wait = intervals.apply(attempt);
                low = Math.min(low, wait);
                high = Math.max(high, wait);
            }
            assertThat(low).as("attempt %d lowest", attempt).isGreaterThanOrEqualTo(lowest);
            assertThat(high).as("attempt %d highest", attempt).isLessThanOrEqualTo(highest);
            if (lowest < highest) {
                assertThat(high - low).as("attempt %d is randomised", attempt).isGreaterThan((highest - lowest) / 2);
            }
        }
        IntervalFunction plain = DefaultRetryPolicy.intervals(RetryPolicyConfig.builder().waitDuration(Duration.ofMillis(70)).build());
        assertThat(plain.apply(1)).isEqualTo(70);
        assertThat(plain.apply(5)).isEqualTo(70);
    }

    @Test
    void aWaitThatWouldPassMaxTotalWait_isNotSlept_andNoFurtherAttemptStarts() {
        RetryPolicy p = policy(RetryPolicyConfig.builder().maxAttempts(5).waitDuration(Duration.ofSeconds(10))
                .maxTotalWait(Duration.ofSeconds(1)).build());
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> p.run(() -> {
            calls.incrementAndGet();
            throw modified();
        })).isInstanceOfSatisfying(RetryExhaustedException.class, e -> {
            assertThat(e.getAttempts()).isEqualTo(1);
            // Without the rule it slept the 10 s wait and tried again (10,007 ms reported in the issue).
            assertThat(e.getElapsed()).isLessThan(Duration.ofSeconds(10));
            assertThat(e.getMessage()).contains("maxTotalWait 1000 ms would pass during the next wait (10000 ms)");
        });
        assertThat(calls).hasValue(1);
    }

    @Test
    void maxTotalWait_stopsTheLoopBeforeMaxAttempts() {
        RetryPolicy p = policy(RetryPolicyConfig.builder().maxAttempts(1_000).waitDuration(Duration.ofMillis(5))
                .maxTotalWait(Duration.ofMillis(100)).build());
        assertThatThrownBy(() -> p.run(() -> {
            throw modified();
        })).isInstanceOfSatisfying(RetryExhaustedException.class, e -> {
            // How many attempts fit in 100 ms depends on the machine (a cold first attempt can take it all);
            // what matters is that the time limit, not maxAttempts, ended the loop.
            assertThat(e.getAttempts()).isBetween(1, 999);
            // It ends when the budget is spent or the next wait would pass it, whichever comes first.
            assertThat(e.getMessage()).containsPattern("maxTotalWait 100 ms (reached|would pass during the next wait \\(5 ms\\))");
        });
    }

    @Test
    void interruptDuringTheWait_abortsAtOnce_andKeepsTheFlag() throws Exception {
        RetryPolicy p = policy(RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMinutes(10)).build());
        AtomicReference<Thread> worker = new AtomicReference<>();
        AtomicReference<Boolean> flagAfter = new AtomicReference<>();
        CompletableFuture<Throwable> outcome = CompletableFuture.supplyAsync(() -> {
            worker.set(Thread.currentThread());
            try {
                p.run(() -> {
                    throw modified();
                });
                return null;
            } catch (RuntimeException e) {
                flagAfter.set(Thread.currentThread().isInterrupted());
                Thread.interrupted(); // leave the pool thread clean
                return e;
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> worker.get() != null
                && worker.get().getState() == Thread.State.TIMED_WAITING);
        worker.get().interrupt();
        Throwable e = outcome.get(10, TimeUnit.SECONDS);
        assertThat(e).isInstanceOf(EngineRuntimeException.class);
        assertThat(((EngineRuntimeException) e).getExceptionCode()).isEqualTo(ExceptionCode.E_INTERRUPTED);
        assertThat(e.getMessage()).contains("retry policy p waited after attempt 1");
        assertThat(flagAfter.get()).isTrue();
    }

    @Test
    void alreadyInterruptedCaller_makesNoAttempt() {
        RetryPolicy p = policy(fast().build());
        AtomicInteger calls = new AtomicInteger();
        Thread.currentThread().interrupt();
        try {
            assertThatThrownBy(() -> p.run(calls::incrementAndGet))
                    .isInstanceOfSatisfying(EngineRuntimeException.class,
                            e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_INTERRUPTED));
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
        assertThat(calls).hasValue(0);
    }

    @Test
    void unknownPolicy_namesTheKnownOnes_andDefaultAlwaysExists() {
        DefaultRetryPolicies policies = new DefaultRetryPolicies(Map.of("locks", RetryPolicyConfig.ofDefaults()), "test");
        assertThat(policies.names()).containsExactly("default", "dispenser", "locks", "tree-lock");
        assertThatThrownBy(() -> policies.get("dispensr"))
                .hasMessage("E_BAD_VALUE: Bad value for retry policy: \"dispensr\" (not configured; known policies are"
                        + " [default, dispenser, locks, tree-lock])");
    }

    @Test
    void unknownExceptionClass_isAConfigError() {
        assertThatThrownBy(() -> new DefaultRetryPolicies(Map.of("x",
                RetryPolicyConfig.builder().retryExceptions(Set.of("com.example.NoSuchException")).build()), "turnstile.yaml"))
                .hasMessage("E_CONFIG_INVALID: turnstile.yaml: retry.instances.x.retryExceptions = \"com.example.NoSuchException\":"
                        + " no such exception class");
    }
}
