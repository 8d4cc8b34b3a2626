package dev.turnstile.api.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.time.Duration;

/** {@link ExceptionCode#E_RETRY_EXHAUSTED}: the policy, the attempts made, the time spent, and the last failure as cause. */
public final class RetryExhaustedException extends EngineRuntimeException {
    private static final long serialVersionUID = 1L;

    private final String policy;
    private final int attempts;
    private final Duration elapsed;

    private RetryExhaustedException(String policy, int attempts, Duration elapsed, String why, Throwable lastCause) {
        super(ExceptionCode.E_RETRY_EXHAUSTED, "Retry policy " + policy + " gave up after " + attempts + " attempts in "
                + elapsed.toMillis() + " ms (" + why + "); last failure: " + lastCause.getMessage(),
                lastCause instanceof EngineRuntimeException e ? e.getObjectId() : null, null, null, lastCause);
        this.policy = policy;
        this.attempts = attempts;
        this.elapsed = elapsed;
    }

    /** The failure of a call that the policy gave up on, with the last failure as cause. */
    public static RetryExhaustedException of(String policy, int attempts, Duration elapsed, String why, Throwable lastCause) {
        return new RetryExhaustedException(policy, attempts, elapsed, why, lastCause);
    }

    /** The policy's name. */
    public String getPolicy() {
        return policy;
    }

    /** How many attempts were made. */
    public int getAttempts() {
        return attempts;
    }

    /** How long the call took in all. */
    public Duration getElapsed() {
        return elapsed;
    }
}
