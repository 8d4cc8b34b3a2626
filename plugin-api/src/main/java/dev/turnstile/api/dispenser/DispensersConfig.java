package dev.turnstile.api.dispenser;

import dev.turnstile.internal.Ranges;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The dispensers' settings ({@code dispensers:} in {@code turnstile.yaml}): the role that
 * administers them, and the series the engine creates at open. Immutable; build with
 * {@link #builder()}, or {@link #of(Map)}.
 */
public final class DispensersConfig {
    /** The role that may create, restart and void numbers of dispensers and read the register, by default. */
    public static final String DEFAULT_ADMIN_ROLE = "dispenser-admin";

    private static final DispensersConfig DEFAULTS = builder().build();

    private final String adminRole;
    private final Map<String, DispenserConfig> series;

    private DispensersConfig(Builder b) {
        this.adminRole = b.adminRole;
        this.series = Collections.unmodifiableMap(new LinkedHashMap<>(b.series));
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: {@link #DEFAULT_ADMIN_ROLE}, no series. */
    public static DispensersConfig ofDefaults() {
        return DEFAULTS;
    }

    /** These series, the rest default. */
    public static DispensersConfig of(Map<String, DispenserConfig> series) {
        return builder().series(series).build();
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(DispensersConfig base) {
        return builder().adminRole(base.adminRole).series(base.series);
    }

    /** The role that may create, restart and void numbers of dispensers and read the register. */
    public String adminRole() {
        return adminRole;
    }

    /** The dispensers the engine creates at open if they do not exist yet, by name. */
    public Map<String, DispenserConfig> series() {
        return series;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof DispensersConfig c && adminRole.equals(c.adminRole) && series.equals(c.series);
    }

    @Override
    public int hashCode() {
        return adminRole.hashCode() * 31 + series.hashCode();
    }

    @Override
    public String toString() {
        return "DispensersConfig{adminRole=" + adminRole + ", series=" + series + "}";
    }

    /** Builds a {@link DispensersConfig}; each setter refuses a bad value with {@code E_BAD_VALUE} naming it. */
    public static final class Builder {
        private String adminRole = DEFAULT_ADMIN_ROLE;
        private final Map<String, DispenserConfig> series = new LinkedHashMap<>();

        private Builder() {
        }

        /** The role that may create, restart and void numbers of dispensers and read the register. */
        public Builder adminRole(String role) {
            this.adminRole = Ranges.name("dispensers.adminRole", role, "must be a role name");
            return this;
        }

        /** Adds or replaces the series {@code name}: 1 to 64 letters, digits, '.', '_' or '-'. */
        public Builder series(String name, DispenserConfig config) {
            if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw dev.turnstile.api.EngineRuntimeException.badArgument("dispensers.series", name,
                        "a dispenser name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            series.put(name, Ranges.required("dispensers.series." + name, config));
            return this;
        }

        /** Replaces every series. */
        public Builder series(Map<String, DispenserConfig> all) {
            Ranges.required("dispensers.series", all);
            series.clear();
            all.forEach(this::series);
            return this;
        }

        /** The settings. */
        public DispensersConfig build() {
            return new DispensersConfig(this);
        }
    }
}
