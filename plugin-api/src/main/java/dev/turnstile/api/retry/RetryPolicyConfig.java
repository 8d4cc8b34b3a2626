package dev.turnstile.api.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.internal.Ranges;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * How a {@link RetryPolicy} waits and when it gives up. The fields are Resilience4j Retry's, by
 * the same names, plus {@link #retryCodes()}, {@link #ignoreCodes()} and {@link #maxTotalWait()}.
 * Immutable; build with {@link #builder()} or {@link #from(RetryPolicyConfig)}, or write them in a
 * policy file (see {@code docs/retry-policies-reference.yaml}).
 *
 * <p>Defaults: {@link #DEFAULT_MAX_ATTEMPTS} attempts, {@link #DEFAULT_WAIT_DURATION} between them,
 * no backoff, no jitter, no total limit; retried are the contention codes
 * {@link ExceptionCode#E_OBJECT_MODIFIED} and {@link ExceptionCode#E_OBJECT_LOCKED} unless
 * {@code retryCodes} or {@code retryExceptions} say otherwise.
 */
public final class RetryPolicyConfig {
    /** Ranges of the settings (a value outside is refused, naming the key and the range). */
    public static final int MAX_ATTEMPTS = 10_000_000;
    /** The largest backoff multiplier accepted. */
    public static final double MAX_MULTIPLIER = 100;
    /** The longest single wait accepted. */
    public static final Duration MAX_WAIT = Duration.ofHours(1);
    /** The longest total wait accepted. */
    public static final Duration MAX_TOTAL_WAIT = Duration.ofDays(7);
    /** Attempts per call, the first included, by default. */
    public static final int DEFAULT_MAX_ATTEMPTS = 3;
    /** The wait before the second attempt, by default. */
    public static final Duration DEFAULT_WAIT_DURATION = Duration.ofMillis(500);
    /** The backoff multiplier, by default. */
    public static final double DEFAULT_MULTIPLIER = 1.5;
    /** The jitter factor, by default. */
    public static final double DEFAULT_RANDOMIZED_WAIT_FACTOR = 0.5;
    /** The engine errors retried unless the policy names others: a lost race or a held lock. */
    public static final Set<ExceptionCode> DEFAULT_RETRY_CODES =
            Collections.unmodifiableSet(EnumSet.of(ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED));

    private final int maxAttempts;
    private final Duration waitDuration;
    private final boolean exponentialBackoff;
    private final double exponentialBackoffMultiplier;
    private final Duration exponentialMaxWaitDuration;
    private final boolean randomizedWait;
    private final double randomizedWaitFactor;
    private final Set<String> retryExceptions;
    private final Set<String> ignoreExceptions;
    private final Set<ExceptionCode> retryCodes;
    private final Set<ExceptionCode> ignoreCodes;
    private final Duration maxTotalWait;

    private RetryPolicyConfig(Builder b) {
        this.maxAttempts = b.maxAttempts;
        this.waitDuration = b.waitDuration;
        this.exponentialBackoff = b.exponentialBackoff;
        this.exponentialBackoffMultiplier = b.exponentialBackoffMultiplier;
        this.exponentialMaxWaitDuration = b.exponentialMaxWaitDuration;
        this.randomizedWait = b.randomizedWait;
        this.randomizedWaitFactor = b.randomizedWaitFactor;
        // Sorted sets: one iteration order for equal sets, so toString (and equals, built on it) never
        // depends on the order the values were added in.
        this.retryExceptions = Collections.unmodifiableSortedSet(new TreeSet<>(b.retryExceptions));
        this.ignoreExceptions = Collections.unmodifiableSortedSet(new TreeSet<>(b.ignoreExceptions));
        this.retryCodes = Collections.unmodifiableSortedSet(new TreeSet<>(b.retryCodes));
        this.ignoreCodes = Collections.unmodifiableSortedSet(new TreeSet<>(b.ignoreCodes));
        this.maxTotalWait = b.maxTotalWait;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults. */
    public static RetryPolicyConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from {@code base}. */
    public static Builder from(RetryPolicyConfig base) {
        Builder b = new Builder();
        b.maxAttempts = base.maxAttempts;
        b.waitDuration = base.waitDuration;
        b.exponentialBackoff = base.exponentialBackoff;
        b.exponentialBackoffMultiplier = base.exponentialBackoffMultiplier;
        b.exponentialMaxWaitDuration = base.exponentialMaxWaitDuration;
        b.randomizedWait = base.randomizedWait;
        b.randomizedWaitFactor = base.randomizedWaitFactor;
        b.retryExceptions.addAll(base.retryExceptions);
        b.ignoreExceptions.addAll(base.ignoreExceptions);
        b.retryCodes.addAll(base.retryCodes);
        b.ignoreCodes.addAll(base.ignoreCodes);
        b.maxTotalWait = base.maxTotalWait;
        return b;
    }

    /** Attempts per call, the first included. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** The wait before the second attempt. */
    public Duration waitDuration() {
        return waitDuration;
    }

    /** Whether each wait is the previous one times the multiplier. */
    public boolean exponentialBackoff() {
        return exponentialBackoff;
    }

    /** The backoff multiplier. */
    public double exponentialBackoffMultiplier() {
        return exponentialBackoffMultiplier;
    }

    /** Null: no cap on the exponential wait. */
    public Duration exponentialMaxWaitDuration() {
        return exponentialMaxWaitDuration;
    }

    /** Whether waits are jittered. */
    public boolean randomizedWait() {
        return randomizedWait;
    }

    /** How much of each wait the jitter may add or take away (0 to 1). */
    public double randomizedWaitFactor() {
        return randomizedWaitFactor;
    }

    /** Fully qualified names of exception classes to retry (matched anywhere in the cause chain). */
    public Set<String> retryExceptions() {
        return retryExceptions;
    }

    /** Exception classes never retried. */
    public Set<String> ignoreExceptions() {
        return ignoreExceptions;
    }

    /** Engine error codes retried, as configured. */
    public Set<ExceptionCode> retryCodes() {
        return retryCodes;
    }

    /** Engine error codes never retried. */
    public Set<ExceptionCode> ignoreCodes() {
        return ignoreCodes;
    }

    /** The codes retried: {@link #retryCodes()}, or the defaults when neither codes nor classes are given. */
    public Set<ExceptionCode> effectiveRetryCodes() {
        return retryCodes.isEmpty() && retryExceptions.isEmpty() ? DEFAULT_RETRY_CODES : retryCodes;
    }

    /** Null: no limit. Otherwise no new attempt starts once this much time has passed since the first. */
    public Duration maxTotalWait() {
        return maxTotalWait;
    }

    /**
     * Every setting by its key in a policy file, in the reference file's order; null where not set
     * ({@code exponentialMaxWaitDuration}, {@code maxTotalWait}). What a reload logs as changed.
     */
    public Map<String, Object> settings() {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("maxAttempts", maxAttempts);
        settings.put("waitDuration", waitDuration);
        settings.put("enableExponentialBackoff", exponentialBackoff);
        settings.put("exponentialBackoffMultiplier", exponentialBackoffMultiplier);
        settings.put("exponentialMaxWaitDuration", exponentialMaxWaitDuration);
        settings.put("enableRandomizedWait", randomizedWait);
        settings.put("randomizedWaitFactor", randomizedWaitFactor);
        settings.put("retryExceptions", retryExceptions);
        settings.put("ignoreExceptions", ignoreExceptions);
        settings.put("retryCodes", retryCodes);
        settings.put("ignoreCodes", ignoreCodes);
        settings.put("maxTotalWait", maxTotalWait);
        return Collections.unmodifiableMap(settings);
    }

    @Override
    public String toString() {
        return "RetryPolicyConfig{maxAttempts=" + maxAttempts + ", waitDuration=" + waitDuration
                + ", exponentialBackoff=" + exponentialBackoff + ", exponentialBackoffMultiplier=" + exponentialBackoffMultiplier
                + ", exponentialMaxWaitDuration=" + exponentialMaxWaitDuration + ", randomizedWait=" + randomizedWait
                + ", randomizedWaitFactor=" + randomizedWaitFactor + ", retryExceptions=" + retryExceptions
                + ", ignoreExceptions=" + ignoreExceptions + ", retryCodes=" + retryCodes + ", ignoreCodes=" + ignoreCodes
                + ", maxTotalWait=" + maxTotalWait + "}";
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPolicyConfig c && c.toString().equals(toString());
    }

    @Override
    public int hashCode() {
        return toString().hashCode();
    }

    /** Each setter refuses a bad value at once, naming the key. */
    public static final class Builder {
        private int maxAttempts = DEFAULT_MAX_ATTEMPTS;
        private Duration waitDuration = DEFAULT_WAIT_DURATION;
        private boolean exponentialBackoff;
        private double exponentialBackoffMultiplier = DEFAULT_MULTIPLIER;
        private Duration exponentialMaxWaitDuration;
        private boolean randomizedWait;
        private double randomizedWaitFactor = DEFAULT_RANDOMIZED_WAIT_FACTOR;
        private final Set<String> retryExceptions = new LinkedHashSet<>();
        private final Set<String> ignoreExceptions = new LinkedHashSet<>();
        private final Set<ExceptionCode> retryCodes = new LinkedHashSet<>();
        private final Set<ExceptionCode> ignoreCodes = new LinkedHashSet<>();
        private Duration maxTotalWait;

        private Builder() {
        }

        /** Attempts per call, the first included (1 to MAX_ATTEMPTS). */
        public Builder maxAttempts(int maxAttempts) {
            if (!Ranges.within(maxAttempts, 1, MAX_ATTEMPTS)) {
                throw EngineRuntimeException.badArgument("maxAttempts", maxAttempts, Ranges.from(1, MAX_ATTEMPTS));
            }
            this.maxAttempts = maxAttempts;
            return this;
        }

        /** The wait before the second attempt (0 to MAX_WAIT). */
        public Builder waitDuration(Duration waitDuration) {
            this.waitDuration = atLeastOneMilli("waitDuration", waitDuration);
            return this;
        }

        /** Whether each wait is the previous one times the multiplier. */
        public Builder enableExponentialBackoff(boolean enable) {
            this.exponentialBackoff = enable;
            return this;
        }

        /** The backoff multiplier (above 1, at most MAX_MULTIPLIER). */
        public Builder exponentialBackoffMultiplier(double multiplier) {
            if (!(multiplier >= 1.0 && multiplier <= MAX_MULTIPLIER)) {
                throw EngineRuntimeException.badArgument("exponentialBackoffMultiplier", multiplier, "from 1 to " + (int) MAX_MULTIPLIER);
            }
            this.exponentialBackoffMultiplier = multiplier;
            return this;
        }

        /** The longest a backed-off wait may grow. */
        public Builder exponentialMaxWaitDuration(Duration max) {
            this.exponentialMaxWaitDuration = max == null ? null : atLeastOneMilli("exponentialMaxWaitDuration", max);
            return this;
        }

        /** Whether waits are jittered. */
        public Builder enableRandomizedWait(boolean enable) {
            this.randomizedWait = enable;
            return this;
        }

        /** How much of each wait the jitter may add or take away (0 to 1). */
        public Builder randomizedWaitFactor(double factor) {
            if (!(factor >= 0.0 && factor < 1.0)) {
                throw EngineRuntimeException.badArgument("randomizedWaitFactor", factor, "must be in [0, 1)");
            }
            this.randomizedWaitFactor = factor;
            return this;
        }

        /** Exception classes (by name) that are retried. */
        public Builder retryExceptions(Set<String> classNames) {
            retryExceptions.clear();
            retryExceptions.addAll(elements("retryExceptions", classNames));
            return this;
        }

        /** Exception classes (by name) never retried. */
        public Builder ignoreExceptions(Set<String> classNames) {
            ignoreExceptions.clear();
            ignoreExceptions.addAll(elements("ignoreExceptions", classNames));
            return this;
        }

        /** Engine error codes that are retried. */
        public Builder retryCodes(Set<ExceptionCode> codes) {
            retryCodes.clear();
            retryCodes.addAll(elements("retryCodes", codes));
            return this;
        }

        /** Engine error codes never retried. */
        public Builder ignoreCodes(Set<ExceptionCode> codes) {
            ignoreCodes.clear();
            ignoreCodes.addAll(elements("ignoreCodes", codes));
            return this;
        }

        /** The most time a call may spend waiting in all (0 to MAX_TOTAL_WAIT). */
        public Builder maxTotalWait(Duration maxTotalWait) {
            this.maxTotalWait = maxTotalWait == null ? null : nonNegative("maxTotalWait", maxTotalWait);
            return this;
        }

        /** The set, refused (naming the setting) when it or one of its elements is null. */
        private static <T> Set<T> elements(String setting, Set<T> values) {
            Ranges.required(setting, values).forEach(v -> Ranges.required(setting + " element", v));
            return values;
        }

        /** Resilience4j's interval functions refuse waits under a millisecond; an hour is longer than any wait means. */
        private static Duration atLeastOneMilli(String key, Duration d) {
            if (!Ranges.within(d, Duration.ofMillis(1), MAX_WAIT)) {
                throw EngineRuntimeException.badArgument(key, d, Ranges.from(Duration.ofMillis(1), MAX_WAIT));
            }
            return d;
        }

        private static Duration nonNegative(String key, Duration d) {
            if (!Ranges.within(d, Duration.ZERO, MAX_TOTAL_WAIT)) {
                throw EngineRuntimeException.badArgument(key, d, Ranges.from(Duration.ZERO, MAX_TOTAL_WAIT));
            }
            return d;
        }

        /** The configuration; conflicting settings are refused here. */
        public RetryPolicyConfig build() {
            Set<ExceptionCode> both = EnumSet.noneOf(ExceptionCode.class);
            both.addAll(retryCodes);
            both.retainAll(ignoreCodes);
            if (!both.isEmpty()) {
                throw EngineRuntimeException.badArgument("retryCodes/ignoreCodes", both, "a code cannot be both retried and ignored");
            }
            return new RetryPolicyConfig(this);
        }
    }
}
