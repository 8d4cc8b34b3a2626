package dev.turnstile.api.changes;

/**
 * The change feed's settings ({@code changes:} in {@code turnstile.yaml}). Immutable; build with
 * {@link #builder()}, or {@link #of(boolean)}.
 */
public final class ChangesConfig {
    private static final ChangesConfig OFF = builder().build();

    private final boolean enabled;

    private ChangesConfig(Builder b) {
        this.enabled = b.enabled;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: the feed off. */
    public static ChangesConfig ofDefaults() {
        return OFF;
    }

    /** The feed on or off, the rest default. */
    public static ChangesConfig of(boolean enabled) {
        return builder().enabled(enabled).build();
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(ChangesConfig base) {
        return builder().enabled(base.enabled);
    }

    /**
     * Whether saves record changes for the change feed (one insert more per save); default false.
     * Every process writing to the database should agree.
     */
    public boolean enabled() {
        return enabled;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ChangesConfig c && enabled == c.enabled;
    }

    @Override
    public int hashCode() {
        return Boolean.hashCode(enabled);
    }

    @Override
    public String toString() {
        return "ChangesConfig{enabled=" + enabled + "}";
    }

    /** Builds a {@link ChangesConfig}. */
    public static final class Builder {
        private boolean enabled;

        private Builder() {
        }

        /** Whether saves record changes for the change feed (off by default: a save then writes no change row). */
        public Builder enabled(boolean enabled) {
            this.enabled = enabled;
            return this;
        }

        /** The settings. */
        public ChangesConfig build() {
            return new ChangesConfig(this);
        }
    }
}
