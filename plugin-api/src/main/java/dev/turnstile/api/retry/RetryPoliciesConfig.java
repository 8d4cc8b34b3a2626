package dev.turnstile.api.retry;

import dev.turnstile.internal.Ranges;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The named retry policies ({@code retry:} in {@code turnstile.yaml}), the policy file they may come
 * from, and whether the engine reloads them when the files change. Immutable; build with
 * {@link #builder()}, or {@link #of(Map)}.
 */
public final class RetryPoliciesConfig {
    private static final RetryPoliciesConfig DEFAULTS = builder().build();

    private final Map<String, RetryPolicyConfig> policies;
    private final String policyFile;
    private final boolean reloadWatch;

    private RetryPoliciesConfig(Builder b) {
        this.policies = Collections.unmodifiableMap(new LinkedHashMap<>(b.policies));
        this.policyFile = b.policyFile;
        this.reloadWatch = b.reloadWatch;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: no named policy (the engine adds {@value RetryPolicies#DEFAULT}), no policy file, reloads by call only. */
    public static RetryPoliciesConfig ofDefaults() {
        return DEFAULTS;
    }

    /** These policies, the rest default. */
    public static RetryPoliciesConfig of(Map<String, RetryPolicyConfig> policies) {
        return builder().policies(policies).build();
    }

    /** A builder holding {@code base}'s values. */
    public static Builder from(RetryPoliciesConfig base) {
        return builder().policies(base.policies).policyFile(base.policyFile).reloadWatch(base.reloadWatch);
    }

    /** Named retry policies; the engine adds {@value RetryPolicies#DEFAULT} with defaults if absent. */
    public Map<String, RetryPolicyConfig> policies() {
        return policies;
    }

    /** The policy file the configuration names ({@code retry.policyFile}, resolved), or null. */
    public String policyFile() {
        return policyFile;
    }

    /** {@code retry.reload: watch}: the engine reloads its retry policies when its files change. */
    public boolean reloadWatch() {
        return reloadWatch;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RetryPoliciesConfig c && policies.equals(c.policies) && java.util.Objects.equals(policyFile, c.policyFile)
                && reloadWatch == c.reloadWatch;
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hash(policies, policyFile, reloadWatch);
    }

    @Override
    public String toString() {
        return "RetryPoliciesConfig{policies=" + policies + ", policyFile=" + policyFile + ", reloadWatch=" + reloadWatch + "}";
    }

    /** Builds a {@link RetryPoliciesConfig}; each setter refuses a bad value with {@code E_BAD_VALUE} naming it. */
    public static final class Builder {
        private final Map<String, RetryPolicyConfig> policies = new LinkedHashMap<>();
        private String policyFile;
        private boolean reloadWatch;

        private Builder() {
        }

        /** Adds or replaces the policy {@code name}: 1 to 64 letters, digits, '.', '_' or '-'. */
        public Builder policy(String name, RetryPolicyConfig config) {
            if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw dev.turnstile.api.EngineRuntimeException.badArgument("retry.instances", name,
                        "a policy name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            policies.put(name, Ranges.required("retry.instances." + name, config));
            return this;
        }

        /** Replaces every named policy. */
        public Builder policies(Map<String, RetryPolicyConfig> all) {
            Ranges.required("retry.instances", all);
            policies.clear();
            all.forEach(this::policy);
            return this;
        }

        /** The retry policy file the configuration names, resolved; null for none. */
        public Builder policyFile(String policyFile) {
            this.policyFile = policyFile;
            return this;
        }

        /** Reload the policies when the configuration files change (needs the engine's configuration to come from a file). */
        public Builder reloadWatch(boolean watch) {
            this.reloadWatch = watch;
            return this;
        }

        /** The settings. */
        public RetryPoliciesConfig build() {
            return new RetryPoliciesConfig(this);
        }
    }
}
