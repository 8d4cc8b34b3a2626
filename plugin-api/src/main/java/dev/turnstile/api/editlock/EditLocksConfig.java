package dev.turnstile.api.editlock;

import dev.turnstile.internal.Ranges;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The edit locks' settings ({@code editLocks:} in {@code turnstile.yaml}): each resource type's
 * {@link EditLockConfig} (a type not listed uses {@link EditLockConfig#DEFAULTS}), and how long the
 * audit trail is kept. Immutable; build with {@link #builder()}.
 */
public final class EditLocksConfig {
    /** How long edit-lock audit rows are kept, by default. */
    public static final Duration DEFAULT_AUDIT_RETENTION = Duration.ofDays(366);
    /** The shortest audit retention accepted. */
    public static final Duration MIN_AUDIT_RETENTION = Duration.ofDays(1);
    /** The longest audit retention accepted. */
    public static final Duration MAX_AUDIT_RETENTION = Duration.ofDays(36_600);

    private static final EditLocksConfig DEFAULTS = builder().build();

    private final Map<String, EditLockConfig> types;
    private final Duration auditRetention;

    private EditLocksConfig(Builder b) {
        this.types = Collections.unmodifiableMap(new LinkedHashMap<>(b.types));
        this.auditRetention = b.auditRetention;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: every type {@link EditLockConfig#DEFAULTS}, audit rows kept {@link #DEFAULT_AUDIT_RETENTION}. */
    public static EditLocksConfig ofDefaults() {
        return DEFAULTS;
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(EditLocksConfig base) {
        return builder().types(base.types).auditRetention(base.auditRetention);
    }

    /** Edit lock settings by resource type; a type not listed uses {@link EditLockConfig#DEFAULTS}. */
    public Map<String, EditLockConfig> types() {
        return types;
    }

    /** How long an edit-lock audit row is kept before the engine deletes it. */
    public Duration auditRetention() {
        return auditRetention;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof EditLocksConfig c && types.equals(c.types) && auditRetention.equals(c.auditRetention);
    }

    @Override
    public int hashCode() {
        return types.hashCode() * 31 + auditRetention.hashCode();
    }

    @Override
    public String toString() {
        return "EditLocksConfig{types=" + types + ", auditRetention=" + auditRetention + "}";
    }

    /** Builds an {@link EditLocksConfig}; each setter refuses a bad value with {@code E_BAD_VALUE} naming it. */
    public static final class Builder {
        private final Map<String, EditLockConfig> types = new LinkedHashMap<>();
        private Duration auditRetention = DEFAULT_AUDIT_RETENTION;

        private Builder() {
        }

        /** Sets the edit-lock settings of one resource type. */
        public Builder type(String type, EditLockConfig config) {
            if (!EditResource.isType(type)) {
                throw dev.turnstile.api.EngineRuntimeException.badArgument("editLocks.types", type,
                        "a resource type is 1 to 32 letters or digits (any script), '_' or '-'");
            }
            types.put(type, Ranges.required("editLocks.types." + type, config));
            return this;
        }

        /** Replaces the edit-lock settings of every resource type. */
        public Builder types(Map<String, EditLockConfig> all) {
            Ranges.required("editLocks.types", all);
            types.clear();
            all.forEach(this::type);
            return this;
        }

        /** How long edit-lock audit rows are kept before the sweep deletes them ({@link #MIN_AUDIT_RETENTION} to {@link #MAX_AUDIT_RETENTION}). */
        public Builder auditRetention(Duration retention) {
            this.auditRetention = Ranges.check("editLocks.auditRetention", retention, MIN_AUDIT_RETENTION, MAX_AUDIT_RETENTION);
            return this;
        }

        /** The settings. */
        public EditLocksConfig build() {
            return new EditLocksConfig(this);
        }
    }
}
