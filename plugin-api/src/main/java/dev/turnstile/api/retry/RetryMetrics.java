package dev.turnstile.api.retry;

import java.time.Duration;

/**
 * What a {@link RetryPolicy} has done since the engine opened: calls that succeeded at the first
 * attempt or after retries, calls that failed (without retrying: not a retried error; with
 * retrying: exhausted or interrupted), every attempt made, and the time spent waiting between them.
 *
 * @param successfulWithoutRetry calls that succeeded at the first attempt
 * @param successfulWithRetry calls that succeeded after retrying
 * @param failedWithoutRetry calls that failed with an error the policy does not retry
 * @param failedWithRetry calls that failed after retrying (exhausted or interrupted)
 * @param attempts every attempt made
 * @param totalWait the time spent waiting between attempts
 */
public record RetryMetrics(long successfulWithoutRetry, long successfulWithRetry, long failedWithoutRetry,
                           long failedWithRetry, long attempts, Duration totalWait) {

    /** Every call made, however it ended. */
    public long calls() {
        return successfulWithoutRetry + successfulWithRetry + failedWithoutRetry + failedWithRetry;
    }
}
