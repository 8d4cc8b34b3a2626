package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.retry.RetryExhaustedException;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.spi.HostTransactions;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.IntervalFunction;
import io.github.resilience4j.retry.Retry;
import io.github.resilience4j.retry.RetryConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * A retry policy on a Resilience4j {@link Retry}: Resilience4j decides whether an error is retried
 * (through {@link FailureMatcher}, or the capability's own rule) and computes the wait (backoff,
 * jitter); this class runs the attempts, waits (through {@link RetryWaits}), enforces
 * {@code maxTotalWait} (and a caller's {@code maxWait}), turns exhaustion and interruption into
 * engine exceptions and keeps the metrics.
 */
final class DefaultRetryPolicy implements RetryPolicy {
    private static final Logger log = LoggerFactory.getLogger(DefaultRetryPolicy.class);

    private final String name;
    private final RetryPolicyConfig config;
    private final FailureMatcher matcher;
    private final HostTransactions host;
    private final RetryWaits waits;
    private final Retry retry;
    private final Metrics metrics;

    /** A policy's counters, kept by its name across reloads: each reload makes a new policy object. */
    static final class Metrics {
        private final LongAdder successfulWithoutRetry = new LongAdder();
        private final LongAdder successfulWithRetry = new LongAdder();
        private final LongAdder failedWithoutRetry = new LongAdder();
        private final LongAdder failedWithRetry = new LongAdder();
        private final LongAdder attempts = new LongAdder();
        private final LongAdder waitNanos = new LongAdder();

        RetryMetrics snapshot() {
            return new RetryMetrics(successfulWithoutRetry.sum(), successfulWithRetry.sum(), failedWithoutRetry.sum(),
                    failedWithRetry.sum(), attempts.sum(), Duration.ofNanos(waitNanos.sum()));
        }
    }

    DefaultRetryPolicy(String name, RetryPolicyConfig config, FailureMatcher matcher, HostTransactions host, RetryWaits waits,
                       Metrics metrics) {
        this.metrics = metrics;
        this.host = host;
        this.waits = waits;
        this.name = name;
        this.config = config;
        this.matcher = matcher;
        this.retry = Retry.of(name, RetryConfig.custom()
                .maxAttempts(config.maxAttempts())
                .intervalBiFunction(withinBudget(intervals(config)))
                .retryOnException(e -> calls.get().retried.test(e))
                .failAfterMaxAttempts(false)
                .build());
    }

    /**
     * The waits, kept inside the call's {@code maxTotalWait}: a wait that would end past it is not
     * slept at all — the call is marked over budget and ends at once (see {@link #afterFailure}),
     * so no call outlives its budget by a wait and no attempt starts once it is spent. Resilience4j
     * is told to wait 0 ms: the policy waits itself ({@link RetryWaits#awaitAfter}), so that the wait
     * after a refused lock ends when its holder unlocks.
     */
    private IntervalBiFunction<Object> withinBudget(IntervalFunction intervals) {
        return (attempt, outcome) -> {
            long wait = intervals.apply(attempt);
            Call call = calls.get();
            if (call.deadline != null && System.nanoTime() + Duration.ofMillis(wait).toNanos() - call.deadline > 0) {
                call.refusedWait = wait;
                return 0L;
            }
            call.nextWait = wait;
            return 0L;
        };
    }

    /**
     * The call running on this thread: its budget and deadline (if it has one), what it retries, the
     * next wait, a wait refused for the budget.
     */
    private static final class Call {
        final String budgetName;
        final Duration budget;
        final Long deadline;
        final Predicate<Throwable> retried;
        long nextWait;
        long refusedWait = -1;

        Call(long start, Duration maxTotalWait, Duration maxWait, Predicate<Throwable> retried) {
            boolean callers = maxWait != null && (maxTotalWait == null || maxWait.compareTo(maxTotalWait) < 0);
            this.budgetName = callers ? "maxWait" : "maxTotalWait";
            this.budget = callers ? maxWait : maxTotalWait;
            this.deadline = budget == null ? null : start + budget.toNanos();
            this.retried = retried;
        }
    }

    private final ThreadLocal<Call> calls = new ThreadLocal<>();

    /** The wait before retry n, as Resilience4j's interval functions compute it. */
    static IntervalFunction intervals(RetryPolicyConfig c) {
        Duration wait = c.waitDuration();
        if (c.exponentialBackoff() && c.randomizedWait()) {
            return c.exponentialMaxWaitDuration() == null
                    ? IntervalFunction.ofExponentialRandomBackoff(wait, c.exponentialBackoffMultiplier(), c.randomizedWaitFactor())
                    : IntervalFunction.ofExponentialRandomBackoff(wait, c.exponentialBackoffMultiplier(), c.randomizedWaitFactor(),
                    c.exponentialMaxWaitDuration());
        }
        if (c.exponentialBackoff()) {
            return c.exponentialMaxWaitDuration() == null
                    ? IntervalFunction.ofExponentialBackoff(wait, c.exponentialBackoffMultiplier())
                    : IntervalFunction.ofExponentialBackoff(wait, c.exponentialBackoffMultiplier(), c.exponentialMaxWaitDuration());
        }
        if (c.randomizedWait()) {
            return IntervalFunction.ofRandomized(wait, c.randomizedWaitFactor());
        }
        return IntervalFunction.of(wait);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public RetryPolicyConfig config() {
        return config;
    }

    @Override
    public <T> T call(Supplier<T> action) {
        return call(null, matcher::isRetried, action);
    }

    /**
     * A call for a capability whose caller gives the wait and whose contract says what it waits
     * out (a tree lock waits out conflicting holders and outages for its {@code maxWait}): the
     * policy's waits, attempts and metrics, ending also when the next wait would pass {@code maxWait}
     * (null: no such bound), and retrying what {@code retried} accepts, whatever the policy's own
     * retry settings say.
     */
    <T> T call(Duration maxWait, Predicate<Throwable> retried, Supplier<T> action) {
        long start = System.nanoTime();
        Call outer = calls.get();
        calls.set(new Call(start, config.maxTotalWait(), maxWait, retried));
        try {
            return waits.call(() -> attempts(action, start));
        } finally {
            calls.set(outer);
        }
    }

    private <T> T attempts(Supplier<T> action, long start) {
        Retry.Context<T> context = retry.context();
        int attempt = 0;
        while (true) {
            if (Thread.currentThread().isInterrupted()) {
                failed(attempt);
                throw EngineRuntimeException.interrupted("retry policy " + name + " was about to make attempt "
                        + (attempt + 1), new InterruptedException("interrupt flag set"));
            }
            attempt++;
            metrics.attempts.increment();
            T result;
            try {
                result = action.get();
            } catch (RuntimeException e) {
                afterFailure(context, e, attempt, start);
                continue;
            }
            context.onComplete();
            (attempt == 1 ? metrics.successfulWithoutRetry : metrics.successfulWithRetry).increment();
            return result;
        }
    }

    /** Returns after the wait when another attempt is due; otherwise throws what ends the call. */
    private void afterFailure(Retry.Context<?> context, RuntimeException e, int attempt, long start) {
        Call call = calls.get();
        if (!call.retried.test(e)) {
            failed(attempt);
            throw e;
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        if (host.current().isPresent()) {
            failed(attempt);
            throw RetryExhaustedException.of(name, attempt, elapsed, "no second attempt inside the host's transaction"
                    + " (a failed statement may have ended it; the host retries the whole transaction)", e);
        }
        if (call.budget != null && elapsed.compareTo(call.budget) >= 0) {
            failed(attempt);
            throw RetryExhaustedException.of(name, attempt, elapsed, call.budgetName + " " + call.budget.toMillis()
                    + " ms reached", e);
        }
        long waitStart = System.nanoTime();
        call.nextWait = 0;
        try {
            context.onRuntimeError(e); // computes the next wait (withinBudget), or rethrows when no attempt is left
            if (call.refusedWait < 0) {
                log.debug("{}: attempt {} failed ({}); waiting {} ms", name, attempt, e.getMessage(), call.nextWait);
                waits.awaitAfter(e, call.nextWait);
            }
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            metrics.waitNanos.add(System.nanoTime() - waitStart);
            failed(attempt);
            throw EngineRuntimeException.interrupted("retry policy " + name + " waited after attempt " + attempt
                    + " (" + Duration.ofNanos(System.nanoTime() - start).toMillis() + " ms in all)", interrupted);
        } catch (RuntimeException last) {
            metrics.waitNanos.add(System.nanoTime() - waitStart);
            failed(attempt);
            Duration total = Duration.ofNanos(System.nanoTime() - start);
            if (Thread.currentThread().isInterrupted()) {
                throw EngineRuntimeException.interrupted("retry policy " + name + " waited after attempt " + attempt
                        + " (" + total.toMillis() + " ms in all)", new InterruptedException(last.getMessage()));
            }
            throw RetryExhaustedException.of(name, attempt, total, "maxAttempts " + config.maxAttempts() + " reached", last);
        }
        metrics.waitNanos.add(System.nanoTime() - waitStart);
        if (call.refusedWait >= 0) {
            failed(attempt);
            throw RetryExhaustedException.of(name, attempt, Duration.ofNanos(System.nanoTime() - start), call.budgetName + " "
                    + call.budget.toMillis() + " ms would pass during the next wait (" + call.refusedWait + " ms)", e);
        }
    }

    private void failed(int attempt) {
        (attempt <= 1 ? metrics.failedWithoutRetry : metrics.failedWithRetry).increment();
    }

    @Override
    public RetryMetrics metrics() {
        return metrics.snapshot();
    }

    @Override
    public String toString() {
        return "RetryPolicy[" + name + ", " + config + "]";
    }
}
