package dev.turnstile.engine.retry;

import dev.turnstile.api.DispenserConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.RetryPolicies;
import dev.turnstile.api.RetryPolicy;
import dev.turnstile.api.RetryPolicyConfig;

import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The engine's policies, made once at open. Two always exist: {@value RetryPolicies#DEFAULT}, and
 * {@value #DISPENSER} for dispensers — patient, with short jittered waits, since a dispenser that
 * gives up leaves a caller without a number — unless the configuration defines them.
 */
public final class DefaultRetryPolicies implements RetryPolicies {
    public static final String DISPENSER = DispenserConfig.DEFAULT_RETRY_POLICY;
    public static final RetryPolicyConfig DISPENSER_DEFAULTS = RetryPolicyConfig.builder().maxAttempts(100_000)
            .waitDuration(Duration.ofMillis(1)).enableExponentialBackoff(true).exponentialBackoffMultiplier(2)
            .exponentialMaxWaitDuration(Duration.ofMillis(32)).enableRandomizedWait(true).randomizedWaitFactor(0.9)
            .maxTotalWait(Duration.ofSeconds(60)).build();

    private final Map<String, RetryPolicy> policies;

    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source) {
        Map<String, RetryPolicy> all = new LinkedHashMap<>();
        configs.forEach((name, config) -> all.put(name, new DefaultRetryPolicy(name, config, FailureMatcher.of(name, source, config))));
        all.computeIfAbsent(DEFAULT, name -> new DefaultRetryPolicy(name, RetryPolicyConfig.ofDefaults(),
                FailureMatcher.of(name, source, RetryPolicyConfig.ofDefaults())));
        all.computeIfAbsent(DISPENSER, name -> new DefaultRetryPolicy(name, DISPENSER_DEFAULTS,
                FailureMatcher.of(name, source, DISPENSER_DEFAULTS)));
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
