package dev.turnstile.api;

import java.time.Duration;

/**
 * Cooperative locks this engine's sessions took, were refused and released since it opened
 * ({@link ContentEngine#lockStatistics()}). A lock that lapses, or that another engine releases,
 * counts as granted and not as released.
 *
 * @param granted locks taken
 * @param refused lock saves refused because another held the lock
 * @param released locks taken and then released through this engine
 * @param held how long the released ones were held, in all
 */
public record LockStatistics(long granted, long refused, long released, Duration held) {
}
