package dev.turnstile.api.changes;

import dev.turnstile.api.EngineRuntimeException;

import java.time.Duration;
import java.util.Objects;

/**
 * How a dispatcher works. Defaults: batches of {@link #DEFAULT_BATCH_SIZE} changes, coalescing on,
 * {@link #DEFAULT_IDLE_DELAY} between passes when nothing was to do, a lease of
 * {@link #DEFAULT_LEASE} on the client it serves, no limit on a run started with {@code start()}.
 */
public final class DispatcherConfig {
    /** Changes read per pass, by default. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** The pause after a pass that found nothing to do, by default. */
    public static final Duration DEFAULT_IDLE_DELAY = Duration.ofMillis(100);
    /** How long a dispatcher's claim on a client lasts unless renewed, by default. */
    public static final Duration DEFAULT_LEASE = Duration.ofSeconds(30);

    private final String name;
    private final int batchSize;
    private final boolean coalesce;
    private final Duration idleDelay;
    private final Duration lease;
    private final Duration maxRunTime;

    private DispatcherConfig(Builder b) {
        this.name = b.name;
        this.batchSize = b.batchSize;
        this.coalesce = b.coalesce;
        this.idleDelay = b.idleDelay;
        this.lease = b.lease;
        this.maxRunTime = b.maxRunTime;
    }

    /** The defaults. */
    public static DispatcherConfig ofDefaults() {
        return builder().build();
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** Shown as the holder of the clients it serves; default: host, process id and a counter. */
    public String name() {
        return name;
    }

    /** Changes read per pass. */
    public int batchSize() {
        return batchSize;
    }

    /** Whether runs of saves by one user on one object are delivered as one change. */
    public boolean coalesce() {
        return coalesce;
    }

    /** The pause after a pass that found nothing to do. */
    public Duration idleDelay() {
        return idleDelay;
    }

    /** How long a claim on a client lasts unless renewed. */
    public Duration lease() {
        return lease;
    }

    /** How long a run started with {@code start()} lasts; null for until {@code stop()}. */
    public Duration maxRunTime() {
        return maxRunTime;
    }

    @Override
    public String toString() {
        return "DispatcherConfig{name=" + name + ", batchSize=" + batchSize + ", coalesce=" + coalesce + ", idleDelay="
                + idleDelay + ", lease=" + lease + ", maxRunTime=" + maxRunTime + "}";
    }

    /** Builds a {@link DispatcherConfig}; each setter refuses a bad value naming it. */
    public static final class Builder {
        private String name;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private boolean coalesce = true;
        private Duration idleDelay = DEFAULT_IDLE_DELAY;
        private Duration lease = DEFAULT_LEASE;
        private Duration maxRunTime;

        private Builder() {
        }

        /** The dispatcher's name. */
        public Builder name(String name) {
            if (name == null || name.isBlank() || name.length() > 64) {
                throw EngineRuntimeException.badArgument("dispatcher name", name, "1 to 64 characters");
            }
            this.name = name;
            return this;
        }

        /** Changes read per pass. */
        public Builder batchSize(int batchSize) {
            if (batchSize <= 0 || batchSize > 10_000) {
                throw EngineRuntimeException.badArgument("dispatcher batchSize", batchSize, "from 1 to 10000");
            }
            this.batchSize = batchSize;
            return this;
        }

        /** Whether runs of saves by one user on one object are delivered as one change. */
        public Builder coalesce(boolean coalesce) {
            this.coalesce = coalesce;
            return this;
        }

        /** The pause after a pass that found nothing to do. */
        public Builder idleDelay(Duration delay) {
            if (delay == null || delay.isNegative()) {
                throw EngineRuntimeException.badArgument("dispatcher idleDelay", delay, "zero or more");
            }
            this.idleDelay = delay;
            return this;
        }

        /** How long a claim on a client lasts unless renewed. */
        public Builder lease(Duration lease) {
            if (lease == null || lease.toMillis() < 1000) {
                throw EngineRuntimeException.badArgument("dispatcher lease", lease, "at least 1s");
            }
            this.lease = lease;
            return this;
        }

        /** How long the dispatcher runs before it stops by itself (null: until closed). */
        public Builder maxRunTime(Duration maxRunTime) {
            if (maxRunTime != null && (maxRunTime.isNegative() || maxRunTime.isZero())) {
                throw EngineRuntimeException.badArgument("dispatcher maxRunTime", maxRunTime, "positive, or null for no limit");
            }
            this.maxRunTime = maxRunTime;
            return this;
        }

        /** The configuration. */
        public DispatcherConfig build() {
            return new DispatcherConfig(this);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DispatcherConfig c && Objects.equals(c.name, name) && c.batchSize == batchSize
                && c.coalesce == coalesce && c.idleDelay.equals(idleDelay) && c.lease.equals(lease)
                && Objects.equals(c.maxRunTime, maxRunTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, batchSize, coalesce, idleDelay, lease, maxRunTime);
    }
}
