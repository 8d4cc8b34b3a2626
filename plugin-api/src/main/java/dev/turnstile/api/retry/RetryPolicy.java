package dev.turnstile.api.retry;

import dev.turnstile.api.ExceptionCode;

import java.util.function.Supplier;

/**
 * A named retry-and-sleep loop, configured in a file. {@link #call} runs the action; an error the
 * policy retries is followed by a wait and another attempt, anything else passes through at once.
 * When attempts or {@code maxTotalWait} run out the call fails with
 * {@link ExceptionCode#E_RETRY_EXHAUSTED} ({@link RetryExhaustedException}: attempts, time, last
 * cause); an interrupt aborts it with {@link ExceptionCode#E_INTERRUPTED}, the flag kept.
 */
public interface RetryPolicy {
    String name();

    RetryPolicyConfig config();

    <T> T call(Supplier<T> action);

    default void run(Runnable action) {
        call(() -> {
            action.run();
            return null;
        });
    }

    RetryMetrics metrics();
}
