package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.RetryPolicies;
import dev.turnstile.api.RetryPolicy;
import dev.turnstile.api.RetryPolicyConfig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** The engine's policies, made once at open; {@value RetryPolicies#DEFAULT} is added with defaults if missing. */
public final class DefaultRetryPolicies implements RetryPolicies {
    private final Map<String, RetryPolicy> policies;

    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source) {
        Map<String, RetryPolicy> all = new LinkedHashMap<>();
        configs.forEach((name, config) -> all.put(name, new DefaultRetryPolicy(name, config, FailureMatcher.of(name, source, config))));
        all.computeIfAbsent(DEFAULT, name -> new DefaultRetryPolicy(name, RetryPolicyConfig.ofDefaults(),
                FailureMatcher.of(name, source, RetryPolicyConfig.ofDefaults())));
        this.policies = Collections.unmodifiableMap(all);
    }

    @Override
    public RetryPolicy get(String name) {
        RetryPolicy policy = policies.get(name);
        if (policy == null) {
            throw EngineRuntimeException.badArgument("retry policy", name, "not configured; known policies are " + names());
        }
        return policy;
    }

    @Override
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(policies.keySet()));
    }
}
