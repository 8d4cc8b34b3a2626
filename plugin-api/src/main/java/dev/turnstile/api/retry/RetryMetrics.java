package dev.turnstile.api.retry;

import java.time.Duration;

/**
 * What a {@link RetryPolicy} has done since the engine opened: calls that succeeded at the first
 * attempt or after retries, calls that failed (without retrying: not a retried error; with
 * retrying: exhausted or interrupted), every attempt made, and the time spent waiting between them.
 */
public record RetryMetrics(long successfulWithoutRetry, long successfulWithRetry, long failedWithoutRetry,
                           long failedWithRetry, long attempts, Duration totalWait) {

    public long calls() {
        return successfulWithoutRetry + successfulWithRetry + failedWithoutRetry + failedWithRetry;
    }
}
