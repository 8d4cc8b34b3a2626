package dev.turnstile.samples.server;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Slows password guessing, per user name and per client address: {@link #FREE_FAILURES} wrong
 * passwords cost nothing, each one after that closes the door for twice as long as the last
 * (1 s, 2 s, 4 s … at most {@link #MAX_WAIT}); a right password opens it again.
 */
final class LoginThrottle {
    static final int FREE_FAILURES = 5;
    static final Duration MAX_WAIT = Duration.ofMinutes(15);

    private record Failures(int count, Instant until) {
    }

    private final Clock clock;
    private final Map<String, Failures> byKey = new ConcurrentHashMap<>();

    LoginThrottle(Clock clock) {
        this.clock = clock;
    }

    /** How long the caller must wait before trying this key again; zero when it may now. */
    Duration wait(String key) {
        Failures f = byKey.get(key);
        if (f == null) {
            return Duration.ZERO;
        }
        Duration left = Duration.between(clock.instant(), f.until());
        return left.isNegative() ? Duration.ZERO : left;
    }

    void failed(String key) {
        Instant now = clock.instant();
        if (byKey.size() > 10_000) { // a guesser with many addresses: forget doors closed long ago
            byKey.values().removeIf(f -> f.until().plus(MAX_WAIT).isBefore(now));
        }
        byKey.compute(key, (k, f) -> {
            int count = f == null ? 1 : f.count() + 1;
            if (count <= FREE_FAILURES) {
                return new Failures(count, now);
            }
            long seconds = 1L << Math.min(count - FREE_FAILURES - 1, 20);
            Duration wait = Duration.ofSeconds(seconds).compareTo(MAX_WAIT) > 0 ? MAX_WAIT : Duration.ofSeconds(seconds);
            return new Failures(count, now.plus(wait));
        });
    }

    void succeeded(String key) {
        byKey.remove(key);
    }
}
