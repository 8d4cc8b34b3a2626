package dev.turnstile.api;

import dev.turnstile.internal.Ranges;

import java.time.Duration;

/**
 * The cooperative locks' settings ({@code locks:} in {@code turnstile.yaml}): who may break another
 * user's lock, and the hand-over that lets a waiter in another process take a lock this engine just
 * let go. Immutable; build with {@link #builder()}.
 */
public final class LockConfig {
    /** The role that may unlock cooperative locks other users hold, by default. */
    public static final String DEFAULT_BREAKER_ROLE = "lock-breaker";
    /** How long, by default, this engine's next request for a lock it just let go waits ({@link #handOver()}). */
    public static final Duration DEFAULT_HAND_OVER = Duration.ofMillis(5);
    /** The longest hand-over accepted. */
    public static final Duration MAX_HAND_OVER = Duration.ofMinutes(1);

    private static final LockConfig DEFAULTS = builder().build();

    private final String breakerRole;
    private final Duration handOver;

    private LockConfig(Builder b) {
        this.breakerRole = b.breakerRole;
        this.handOver = b.handOver;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: {@link #DEFAULT_BREAKER_ROLE}, {@link #DEFAULT_HAND_OVER}. */
    public static LockConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(LockConfig base) {
        return builder().breakerRole(base.breakerRole).handOver(base.handOver);
    }

    /** The role that lets a session unlock objects locked by other users. */
    public String breakerRole() {
        return breakerRole;
    }

    /**
     * After an unlock that woke waiters in other processes (PostgreSQL's notes), how long at most this
     * engine's own next requests for that lock wait first — until as many releases of it in other
     * processes as processes were waiting, or this long: without it the releasing process, a round
     * trip away, took the lock again before a woken process could ask. Zero: no wait.
     */
    public Duration handOver() {
        return handOver;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LockConfig c && breakerRole.equals(c.breakerRole) && handOver.equals(c.handOver);
    }

    @Override
    public int hashCode() {
        return breakerRole.hashCode() * 31 + handOver.hashCode();
    }

    @Override
    public String toString() {
        return "LockConfig{breakerRole=" + breakerRole + ", handOver=" + handOver + "}";
    }

    /** Builds a {@link LockConfig}; each setter refuses a bad value with {@code E_BAD_VALUE} naming it. */
    public static final class Builder {
        private String breakerRole = DEFAULT_BREAKER_ROLE;
        private Duration handOver = DEFAULT_HAND_OVER;

        private Builder() {
        }

        /** The role that may unlock cooperative locks other users hold. */
        public Builder breakerRole(String role) {
            this.breakerRole = Ranges.name("locks.breakerRole", role, "must be a role name");
            return this;
        }

        /** See {@link LockConfig#handOver()}: zero to {@link #MAX_HAND_OVER}. */
        public Builder handOver(Duration handOver) {
            this.handOver = Ranges.check("locks.handOver", handOver, Duration.ZERO, MAX_HAND_OVER);
            return this;
        }

        /** The settings. */
        public LockConfig build() {
            return new LockConfig(this);
        }
    }
}
