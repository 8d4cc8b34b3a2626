package dev.turnstile.engine.retry;

import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;

import java.time.Duration;
import java.util.function.Supplier;

/**
 * One attempt, its failure passed on as it is: for a step inside a call that another policy
 * already retries, so the two do not multiply (one policy, one budget).
 */
public final class SingleAttempt implements RetryPolicy {
    public static final SingleAttempt INSTANCE = new SingleAttempt();
    private static final RetryPolicyConfig CONFIG = RetryPolicyConfig.builder().maxAttempts(1).build();

    private SingleAttempt() {
    }

    @Override
    public String name() {
        return "single attempt";
    }

    @Override
    public RetryPolicyConfig config() {
        return CONFIG;
    }

    @Override
    public <T> T call(Supplier<T> action) {
        return action.get();
    }

    @Override
    public RetryMetrics metrics() {
        return new RetryMetrics(0, 0, 0, 0, 0, Duration.ZERO);
    }
}
