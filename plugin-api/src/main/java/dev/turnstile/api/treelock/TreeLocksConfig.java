package dev.turnstile.api.treelock;

import dev.turnstile.internal.Ranges;

import java.time.Duration;

/**
 * The tree locks' settings ({@code treeLocks:} in {@code turnstile.yaml}): how long a lock lasts past
 * its last heartbeat, and the retry policy that paces a waiter. Immutable; build with {@link #builder()}.
 */
public final class TreeLocksConfig {
    /** How long a tree lock lasts past its last heartbeat, by default. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);
    /** The shortest lease accepted. */
    public static final Duration MIN_LEASE = Duration.ofSeconds(1);
    /** The longest lease accepted. */
    public static final Duration MAX_LEASE = Duration.ofDays(1);
    /** The retry policy whose waits pace tree-lock waiters, by default (built in). */
    public static final String DEFAULT_RETRY_POLICY = "tree-lock";

    private static final TreeLocksConfig DEFAULTS = builder().build();

    private final Duration lease;
    private final String retryPolicy;

    private TreeLocksConfig(Builder b) {
        this.lease = b.lease;
        this.retryPolicy = b.retryPolicy;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: {@link #DEFAULT_LEASE}, {@link #DEFAULT_RETRY_POLICY}. */
    public static TreeLocksConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(TreeLocksConfig base) {
        return builder().lease(base.lease).retryPolicy(base.retryPolicy);
    }

    /** How long a tree lock lasts without a heartbeat. */
    public Duration lease() {
        return lease;
    }

    /** The retry policy whose waits pace a tree lock waiter between attempts (a release in the same process wakes it at once). */
    public String retryPolicy() {
        return retryPolicy;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TreeLocksConfig c && lease.equals(c.lease) && retryPolicy.equals(c.retryPolicy);
    }

    @Override
    public int hashCode() {
        return lease.hashCode() * 31 + retryPolicy.hashCode();
    }

    @Override
    public String toString() {
        return "TreeLocksConfig{lease=" + lease + ", retryPolicy=" + retryPolicy + "}";
    }

    /** Builds a {@link TreeLocksConfig}; each setter refuses a bad value with {@code E_BAD_VALUE} naming it. */
    public static final class Builder {
        private Duration lease = DEFAULT_LEASE;
        private String retryPolicy = DEFAULT_RETRY_POLICY;

        private Builder() {
        }

        /** How long a tree lock lasts past its last heartbeat ({@link #MIN_LEASE} to {@link #MAX_LEASE}). */
        public Builder lease(Duration lease) {
            this.lease = Ranges.check("treeLocks.lease", lease, MIN_LEASE, MAX_LEASE);
            return this;
        }

        /** The named retry policy whose waits pace tree-lock waiters. */
        public Builder retryPolicy(String policy) {
            this.retryPolicy = Ranges.name("treeLocks.retryPolicy", policy, "must be a policy name");
            return this;
        }

        /** The settings. */
        public TreeLocksConfig build() {
            return new TreeLocksConfig(this);
        }
    }
}
