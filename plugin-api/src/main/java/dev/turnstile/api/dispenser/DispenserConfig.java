package dev.turnstile.api.dispenser;

import dev.turnstile.internal.Ranges;

import dev.turnstile.api.EngineRuntimeException;

import java.time.Duration;

/**
 * A dispenser's settings. The series settings ({@link #start()}, {@link #format()},
 * {@link #reset()}) are stored with the dispenser and shared by every process; the strategy, retry
 * policy and lock timeout are each process's own choice of how to take numbers.
 *
 * <p>Defaults: {@link DispenserStrategy#COMBINING}, start 1, no format (plain numbers), never reset,
 * retry policy {@value #DEFAULT_RETRY_POLICY} (or {@code default} if none has that name), lock
 * timeout {@value #DEFAULT_LOCK_TIMEOUT_SECONDS} s, register on for formatted series, blocks of at
 * most {@value #DEFAULT_MAX_BLOCK} numbers.
 */
public final class DispenserConfig {
    /** The retry policy a dispenser waits by, by default. */
    public static final String DEFAULT_RETRY_POLICY = "dispenser";
    /** The cooperative-lock timeout of the COOPERATIVE_LOCK strategy, by default. */
    public static final int DEFAULT_LOCK_TIMEOUT_SECONDS = 30;
    /** The most numbers one call may take, by default. */
    public static final int DEFAULT_MAX_BLOCK = 10_000;
    /** How long a request key is remembered (a retried call gets the same numbers), by default. */
    public static final Duration DEFAULT_REQUEST_KEY_RETENTION = Duration.ofHours(24);
    /** The largest start value: far beyond any series, far below where a counter could overflow. */
    public static final long MAX_START = 1_000_000_000_000_000_000L;

    private final DispenserStrategy strategy;
    private final boolean feelingUnlucky;
    private final long start;
    private final String format;
    private final ResetPeriod reset;
    private final String retryPolicy;
    private final int lockTimeoutSeconds;
    private final Boolean register;
    private final int maxBlock;
    private final Duration requestKeyRetention;

    private DispenserConfig(Builder b) {
        this.strategy = b.strategy;
        this.feelingUnlucky = b.feelingUnlucky;
        this.start = b.start;
        this.format = b.format;
        this.reset = b.reset;
        this.retryPolicy = b.retryPolicy;
        this.lockTimeoutSeconds = b.lockTimeoutSeconds;
        this.register = b.register;
        this.maxBlock = b.maxBlock;
        this.requestKeyRetention = b.requestKeyRetention;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: COMBINING, from 1, never reset, no format. */
    public static DispenserConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from {@code base}. */
    public static Builder from(DispenserConfig base) {
        Builder b = new Builder();
        b.strategy = base.strategy;
        b.feelingUnlucky = base.feelingUnlucky;
        b.start = base.start;
        b.format = base.format;
        b.reset = base.reset;
        b.retryPolicy = base.retryPolicy;
        b.lockTimeoutSeconds = base.lockTimeoutSeconds;
        b.register = base.register;
        b.maxBlock = base.maxBlock;
        b.requestKeyRetention = base.requestKeyRetention;
        return b;
    }

    /** How callers contend for the counter. */
    public DispenserStrategy strategy() {
        return strategy;
    }

    /** For {@link DispenserStrategy#FIRST_WRITER_WINS}: fetch before every update. */
    public boolean feelingUnlucky() {
        return feelingUnlucky;
    }

    /** The first number of a series. */
    public long start() {
        return start;
    }

    /** Null for plain numbers; else a pattern such as {@code INV-{yyyy}-{seq:6}}. */
    public String format() {
        return format;
    }

    /** When a new series starts. */
    public ResetPeriod reset() {
        return reset;
    }

    /** The retry policy calls wait by. */
    public String retryPolicy() {
        return retryPolicy;
    }

    /** The cooperative-lock timeout of the COOPERATIVE_LOCK strategy. */
    public int lockTimeoutSeconds() {
        return lockTimeoutSeconds;
    }

    /** Whether every issued number is recorded (on by default for formatted series). */
    public boolean register() {
        return register != null ? register : format != null;
    }

    /** The most numbers one call may take. */
    public int maxBlock() {
        return maxBlock;
    }

    /**
     * How long a request key of {@link Dispenser#next(int, String)} answers with its first block
     * (default 24 h); like the strategy, a setting of the process that takes the numbers.
     */
    public Duration requestKeyRetention() {
        return requestKeyRetention;
    }

    @Override
    public String toString() {
        return "DispenserConfig{strategy=" + strategy + ", feelingUnlucky=" + feelingUnlucky + ", start=" + start
                + ", format=" + format + ", reset=" + reset + ", retryPolicy=" + retryPolicy
                + ", lockTimeoutSeconds=" + lockTimeoutSeconds + ", register=" + register() + ", maxBlock=" + maxBlock
                + ", requestKeyRetention=" + requestKeyRetention + "}";
    }

    /** Builds a {@link DispenserConfig}; each setter refuses a bad value naming it. */
    public static final class Builder {
        private DispenserStrategy strategy = DispenserStrategy.COMBINING;
        private boolean feelingUnlucky;
        private long start = 1;
        private String format;
        private ResetPeriod reset = ResetPeriod.NEVER;
        private String retryPolicy = DEFAULT_RETRY_POLICY;
        private int lockTimeoutSeconds = DEFAULT_LOCK_TIMEOUT_SECONDS;
        private Boolean register;
        private int maxBlock = DEFAULT_MAX_BLOCK;
        private Duration requestKeyRetention = DEFAULT_REQUEST_KEY_RETENTION;

        private Builder() {
        }

        /** How callers contend for the counter. */
        public Builder strategy(DispenserStrategy strategy) {
            this.strategy = Ranges.required("strategy", strategy);
            return this;
        }

        /** Whether first-writer-wins callers read before every write (two round trips always). */
        public Builder feelingUnlucky(boolean feelingUnlucky) {
            this.feelingUnlucky = feelingUnlucky;
            return this;
        }

        /** The first number of a series (1 to MAX_START). */
        public Builder start(long start) {
            if (!Ranges.within(start, 0, MAX_START)) {
                throw EngineRuntimeException.badArgument("start", start, "must be zero or more, " + Ranges.from(0, MAX_START));
            }
            this.start = start;
            return this;
        }

        /** Checked when the dispenser is created, where its fields are parsed. */
        public Builder format(String format) {
            this.format = format;
            return this;
        }

        /** When a new series starts. */
        public Builder reset(ResetPeriod reset) {
            this.reset = Ranges.required("reset", reset);
            return this;
        }

        /** The retry policy calls wait by. */
        public Builder retryPolicy(String retryPolicy) {
            this.retryPolicy = Ranges.required("retryPolicy", retryPolicy);
            return this;
        }

        /** The cooperative-lock timeout of the COOPERATIVE_LOCK strategy. */
        public Builder lockTimeoutSeconds(int seconds) {
            if (!Ranges.within(seconds, 1, 86_400)) {
                throw EngineRuntimeException.badArgument("lockTimeoutSeconds", seconds, Ranges.from(1, 86_400));
            }
            this.lockTimeoutSeconds = seconds;
            return this;
        }

        /** Whether every issued number is recorded. */
        public Builder register(boolean register) {
            this.register = register;
            return this;
        }

        /** From 1 second to 366 days. */
        public Builder requestKeyRetention(Duration retention) {
            if (!Ranges.within(retention, Duration.ofSeconds(1), Duration.ofDays(366))) {
                throw EngineRuntimeException.badArgument("requestKeyRetention", retention, Ranges.from(Duration.ofSeconds(1),
                        Duration.ofDays(366)));
            }
            this.requestKeyRetention = retention;
            return this;
        }

        /** The most numbers one call may take. */
        public Builder maxBlock(int maxBlock) {
            if (!Ranges.within(maxBlock, 1, 1_000_000)) {
                throw EngineRuntimeException.badArgument("maxBlock", maxBlock, Ranges.from(1, 1_000_000));
            }
            this.maxBlock = maxBlock;
            return this;
        }

        /** The configuration; conflicting settings are refused here. */
        public DispenserConfig build() {
            return new DispenserConfig(this);
        }
    }
}
