package dev.turnstile.engine.retry;

import dev.turnstile.api.DispenserConfig;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.HostTransactions;
import dev.turnstile.api.RetryPolicies;
import dev.turnstile.api.RetryPolicy;
import dev.turnstile.api.RetryPolicyConfig;
import io.github.resilience4j.core.IntervalFunction;

import java.time.Duration;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The engine's policies, made once at open. Three always exist unless the configuration defines
 * them: {@value RetryPolicies#DEFAULT}; {@value #DISPENSER} for dispensers — patient, with short
 * jittered waits, through contention and database outages for up to a minute, since a dispenser
 * that gives up leaves a caller without a number; and
 * {@value #TREE_LOCK}, pacing tree lock waiters in other processes than the releaser's.
 */
public final class DefaultRetryPolicies implements RetryPolicies {
    public static final String DISPENSER = DispenserConfig.DEFAULT_RETRY_POLICY;
    public static final RetryPolicyConfig DISPENSER_DEFAULTS = RetryPolicyConfig.builder().maxAttempts(100_000)
            .waitDuration(Duration.ofMillis(1)).enableExponentialBackoff(true).exponentialBackoffMultiplier(2)
            .exponentialMaxWaitDuration(Duration.ofMillis(32)).enableRandomizedWait(true).randomizedWaitFactor(0.9)
            .maxTotalWait(Duration.ofSeconds(60))
            // An outage (a database restart, a failover, a stale pooled connection) is waited out too,
            // within the total wait: a dispenser that gives up leaves a workflow without its number.
            .retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED,
                    ExceptionCode.E_DATABASE_UNAVAILABLE)).build();

    public static final String TREE_LOCK = EngineConfig.DEFAULT_TREE_LOCK_RETRY_POLICY;
    /** Tree lock waiters across processes: short waits at first, then every 50 ms at most. */
    public static final RetryPolicyConfig TREE_LOCK_DEFAULTS = RetryPolicyConfig.builder().maxAttempts(1_000_000)
            .waitDuration(Duration.ofMillis(1)).enableExponentialBackoff(true).exponentialBackoffMultiplier(2)
            .exponentialMaxWaitDuration(Duration.ofMillis(50)).enableRandomizedWait(true).randomizedWaitFactor(0.5)
            .build();

    private final Map<String, RetryPolicy> policies;

    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source) {
        this(configs, source, HostTransactions.NONE);
    }

    /** Policies that make no second attempt inside the host's transaction: the host decides what a failure means. */
    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source, HostTransactions host) {
        Map<String, RetryPolicy> all = new LinkedHashMap<>();
        configs.forEach((name, config) -> all.put(name, new DefaultRetryPolicy(name, config, FailureMatcher.of(name, source, config), host)));
        all.computeIfAbsent(DEFAULT, name -> new DefaultRetryPolicy(name, RetryPolicyConfig.ofDefaults(),
                FailureMatcher.of(name, source, RetryPolicyConfig.ofDefaults()), host));
        all.computeIfAbsent(DISPENSER, name -> new DefaultRetryPolicy(name, DISPENSER_DEFAULTS,
                FailureMatcher.of(name, source, DISPENSER_DEFAULTS), host));
        all.computeIfAbsent(TREE_LOCK, name -> new DefaultRetryPolicy(name, TREE_LOCK_DEFAULTS,
                FailureMatcher.of(name, source, TREE_LOCK_DEFAULTS), host));
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

    /** The waits of a policy, for a capability that paces its own attempts (tree lock waiters). */
    public IntervalFunction intervals(String name) {
        return DefaultRetryPolicy.intervals(get(name).config());
    }

    @Override
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(policies.keySet()));
    }
}
