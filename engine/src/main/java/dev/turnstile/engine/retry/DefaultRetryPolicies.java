package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.retry.PolicyReload;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.spi.HostTransactions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * The engine's policies, made at open and swapped whole by a reload. Three always exist unless the configuration defines
 * them: {@value RetryPolicies#DEFAULT}; {@value #DISPENSER} for dispensers — patient, with short
 * jittered waits, through contention and database outages for up to a minute, since a dispenser
 * that gives up leaves a caller without a number; and
 * {@value #TREE_LOCK}, the calls tree lock waiters wait in (a release wakes them sooner).
 */
public final class DefaultRetryPolicies implements RetryPolicies {
    private static final Logger log = LoggerFactory.getLogger(DefaultRetryPolicies.class);
    public static final String DISPENSER = DispenserConfig.DEFAULT_RETRY_POLICY;
    public static final RetryPolicyConfig DISPENSER_DEFAULTS = RetryPolicyConfig.builder().maxAttempts(100_000)
            .waitDuration(Duration.ofMillis(1)).enableExponentialBackoff(true).exponentialBackoffMultiplier(2)
            .exponentialMaxWaitDuration(Duration.ofMillis(32)).enableRandomizedWait(true).randomizedWaitFactor(0.9)
            .maxTotalWait(Duration.ofSeconds(60))
            // An outage (a database restart, a failover, a stale pooled connection) is waited out too,
            // within the total wait: a dispenser that gives up leaves a workflow without its number.
            .retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_MODIFIED, ExceptionCode.E_OBJECT_LOCKED,
                    ExceptionCode.E_DATABASE_UNAVAILABLE)).build();

    public static final String TREE_LOCK = TreeLocksConfig.DEFAULT_RETRY_POLICY;
    /** Tree lock waiters across processes: short waits at first, then every 50 ms at most. */
    public static final RetryPolicyConfig TREE_LOCK_DEFAULTS = RetryPolicyConfig.builder().maxAttempts(1_000_000)
            .waitDuration(Duration.ofMillis(1)).enableExponentialBackoff(true).exponentialBackoffMultiplier(2)
            .exponentialMaxWaitDuration(Duration.ofMillis(50)).enableRandomizedWait(true).randomizedWaitFactor(0.5)
            .build();

    private final String source;
    private final HostTransactions host;
    private final RetryWaits waits;
    /** Reads the files again for a reload; null for an engine opened without a file. */
    private final Supplier<PolicyRead> files;
    /** The policies the files define, as last put in force: a reload may not drop one. */
    private Set<String> fromFiles;
    /** Every policy in force, swapped whole by a reload: a call reads it once, at its start. */
    private volatile Map<String, DefaultRetryPolicy> current;
    private final Map<String, DefaultRetryPolicy.Metrics> metrics = new ConcurrentHashMap<>();
    private final Map<String, RetryPolicy> handles = new ConcurrentHashMap<>();
    private final List<Consumer<PolicyReload>> listeners = new CopyOnWriteArrayList<>();

    /** Policies that sleep their waits, with no host transactions and no files to reload. */
    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source) {
        this(configs, source, HostTransactions.NONE, null, RetryWaits.SLEEP);
    }

    /**
     * Policies that make no second attempt inside the host's transaction: the host decides what a
     * failure means. {@code files} reads the configuration files again for {@link #reload()};
     * {@code waits} is how every call waits between attempts.
     */
    public DefaultRetryPolicies(Map<String, RetryPolicyConfig> configs, String source, HostTransactions host,
                                Supplier<PolicyRead> files, RetryWaits waits) {
        this.source = source;
        this.host = host;
        this.waits = waits;
        this.files = files;
        this.fromFiles = new TreeSet<>(configs.keySet());
        Map<String, RetryPolicyConfig> all = new LinkedHashMap<>(configs);
        all.putIfAbsent(DEFAULT, RetryPolicyConfig.ofDefaults());
        all.putIfAbsent(DISPENSER, DISPENSER_DEFAULTS);
        all.putIfAbsent(TREE_LOCK, TREE_LOCK_DEFAULTS);
        this.current = build(all, Map.of());
    }

    /** The policies of {@code configs}, and those of {@code kept} they do not name; a bad exception class throws. */
    private Map<String, DefaultRetryPolicy> build(Map<String, RetryPolicyConfig> configs, Map<String, DefaultRetryPolicy> kept) {
        Map<String, DefaultRetryPolicy> all = new LinkedHashMap<>(kept);
        configs.forEach((name, config) -> all.put(name, new DefaultRetryPolicy(name, config, FailureMatcher.of(name, source, config),
                host, waits, metrics.computeIfAbsent(name, n -> new DefaultRetryPolicy.Metrics()))));
        return Collections.unmodifiableMap(all);
    }

    @Override
    public RetryPolicy get(String name) {
        if (!current.containsKey(name)) {
            throw EngineRuntimeException.badArgument("retry policy", name, "not configured; known policies are " + names());
        }
        return handles.computeIfAbsent(name, Handle::new);
    }

    /**
     * Puts the files in force only whole: a policy the files no longer define, or a setting in force
     * that would fall back to a default because its key is no longer written (a file read half-written,
     * or emptied by an editor's save-in-place), refuses the reload and the policies in force stay.
     * Every setting changed is logged at WARN, old → new.
     */
    @Override
    public synchronized Set<String> reload() {
        Set<String> changed = new TreeSet<>();
        List<String> changes = new ArrayList<>();
        try {
            if (files == null) {
                throw EngineRuntimeException.configInvalid(source, "(file)", source, "this engine was not opened from a file: nothing to reload");
            }
            PolicyRead read = files.get();
            Map<String, DefaultRetryPolicy> before = current;
            List<String> dropped = new ArrayList<>();
            fromFiles.stream().filter(name -> !read.policies().containsKey(name)).forEach(name -> dropped.add(name + " (the whole policy)"));
            read.policies().forEach((name, config) -> {
                Map<String, Object> inForce = before.containsKey(name) ? before.get(name).config().settings() : Map.of();
                Set<String> written = read.written().getOrDefault(name, Set.of());
                config.settings().forEach((key, value) -> {
                    if (before.containsKey(name) && !Objects.equals(inForce.get(key), value)) {
                        if (written.contains(key)) {
                            changes.add(name + "." + key + " " + shown(inForce.get(key)) + " → " + shown(value));
                        } else {
                            dropped.add(name + "." + key + " (" + shown(inForce.get(key)) + " in force, " + shown(value) + " by default)");
                        }
                    }
                });
                if (!before.containsKey(name) || !before.get(name).config().equals(config)) {
                    changed.add(name);
                }
            });
            if (!dropped.isEmpty()) {
                throw EngineRuntimeException.configInvalid(source, "retry", dropped.size() + (dropped.size() == 1 ? " setting" : " settings"),
                        "no longer written in the files: " + String.join(", ", dropped) + "; a reload would put defaults in force"
                        + " unseen (a file read while half-written does this): write each value you mean, or restart the engine to"
                        + " drop a key or a policy");
            }
            Map<String, RetryPolicyConfig> updated = new LinkedHashMap<>(read.policies());
            updated.keySet().retainAll(changed);
            current = build(updated, before);
            fromFiles = new TreeSet<>(read.policies().keySet());
        } catch (EngineRuntimeException e) {
            log.warn("Retry policies not reloaded, the ones in force stay: {}", e.getMessage());
            tell(new PolicyReload(Instant.now(), Set.of(), e.getMessage()));
            throw e;
        }
        if (changed.isEmpty()) {
            log.info("Retry policies reloaded from {}: no change", source);
        } else {
            log.warn("Retry policies reloaded from {}: changed {}: {}", source, changed, changes.isEmpty() ? "new policies" : String.join(", ", changes));
        }
        tell(new PolicyReload(Instant.now(), changed, null));
        return Collections.unmodifiableSet(changed);
    }

    private static String shown(Object value) {
        if (value instanceof Duration d) {
            return d.toMillis() % 1000 == 0 ? d.toSeconds() + "s" : d.toMillis() + "ms";
        }
        return value == null ? "none" : value.toString();
    }

    @Override
    public void onReload(Consumer<PolicyReload> listener) {
        listeners.add(listener);
    }

    private void tell(PolicyReload reload) {
        for (Consumer<PolicyReload> listener : listeners) {
            try {
                listener.accept(reload);
            } catch (RuntimeException e) {
                log.warn("A reload listener failed: {}", e.toString());
            }
        }
    }

    /** What callers hold: a name, resolved to the policy in force at each call's start. */
    private final class Handle implements RetryPolicy {
        private final String name;

        Handle(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public RetryPolicyConfig config() {
            return current.get(name).config();
        }

        @Override
        public <T> T call(java.util.function.Supplier<T> action) {
            return current.get(name).call(action);
        }

        @Override
        public RetryMetrics metrics() {
            return metrics.get(name).snapshot();
        }

        @Override
        public String toString() {
            return current.get(name).toString();
        }
    }

    /**
     * Runs {@code action} as a call of the policy {@code name} in force now, for a capability whose
     * caller gives the wait and whose contract says what it waits out: the call ends also when the
     * next wait would pass {@code maxWait}, and retries what {@code retried} accepts, whatever the
     * policy's retry settings say. Exhausted, it throws {@code RetryExhaustedException} with the last
     * failure as its cause.
     */
    public <T> T call(String name, Duration maxWait, Predicate<Throwable> retried, Supplier<T> action) {
        get(name);
        return current.get(name).call(maxWait, retried, action);
    }

    @Override
    public Set<String> names() {
        return Collections.unmodifiableSet(new TreeSet<>(current.keySet()));
    }
}
