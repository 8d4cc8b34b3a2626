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
    /** The policy's name. */
    String name();

    /** Its settings as they stand (a reload may change them). */
    RetryPolicyConfig config();

    /** Calls {@code action}, retrying the errors the policy retries; {@code E_RETRY_EXHAUSTED} when it gives up. */
    <T> T call(Supplier<T> action);

    /** Runs {@code action} as {@link #call} does. */
    default void run(Runnable action) {
        call(() -> {
            action.run();
            return null;
        });
    }

    /** What the policy has done since the engine opened. */
    RetryMetrics metrics();
}
