package dev.turnstile.api.treelock;

import java.time.Duration;

/**
 * Tree lock requests through this engine since it opened ({@link TreeLocks#statistics()}).
 *
 * @param granted requests granted
 * @param grantedWait the time from the requests to their grants, in all
 * @param refused requests refused (timed out, or busy for {@code tryLock})
 * @param refusedWait the time from the requests to their refusals, in all
 */
public record TreeLockStatistics(long granted, Duration grantedWait, long refused, Duration refusedWait) {
}
