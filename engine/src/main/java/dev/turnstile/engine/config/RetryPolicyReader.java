package dev.turnstile.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.retry.FailureMatcher;
import dev.turnstile.engine.retry.PolicyRead;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Reads retry policies written with Resilience4j's key names: {@code configs.<name>} are templates,
 * {@code instances.<name>} are the policies, each may name a {@code baseConfig} to start from, and
 * an instance without one starts from {@code configs.default} when there is one. The parts (the
 * {@code retry} section of turnstile.yaml and its policy file) are one set of names: an instance
 * may start from a config of either file, {@code configs.default} is the base of the instances of
 * both, and a name defined in both is refused. Every key and value is checked; an error names the
 * file, the key path and the value.
 */
final class RetryPolicyReader {
    static final Set<String> KEYS = keys();

    static final int MAX_CHAIN = 32;

    /** One file's policies: {@code node} holds {@code configs} and/or {@code instances}; {@code prefix} is its key path. */
    record Part(String source, String prefix, JsonNode node) {
    }

    private final String source;
    private final String prefix;
    private final Map<String, JsonNode> configs = new LinkedHashMap<>();
    private final Map<String, JsonNode> instances = new LinkedHashMap<>();
    /** Shared by the parts of one read: which part defines each config, and the configs resolved so far. */
    private Map<String, RetryPolicyReader> owners;
    private Map<String, RetryPolicyConfig> resolvedConfigs;
    /** The keys written for each config resolved so far, and for each policy (its own and its bases'). */
    private Map<String, Set<String>> writtenConfigs;
    private Map<String, Set<String>> writtenPolicies;

    private RetryPolicyReader(Part part) {
        this.source = part.source();
        this.prefix = part.prefix();
        collect(part.node(), "configs", configs);
        collect(part.node(), "instances", instances);
    }

    /** {@code errors}: null to stop at the first error; else each config's and policy's first one, and on. */
    private static Set<String> keys() {
        Set<String> keys = new LinkedHashSet<>(List.of("baseConfig"));
        keys.addAll(RetryPolicyConfig.ofDefaults().settings().keySet());
        return Set.copyOf(keys);
    }

    static PolicyRead read(List<Part> parts, Consumer<EngineRuntimeException> errors) {
        List<RetryPolicyReader> readers = new ArrayList<>();
        parts.forEach(part -> Refusals.each(errors, () -> readers.add(new RetryPolicyReader(part))));
        Map<String, RetryPolicyReader> owners = new LinkedHashMap<>();
        Map<String, RetryPolicyReader> instanceOwners = new LinkedHashMap<>();
        Map<String, RetryPolicyConfig> resolved = new LinkedHashMap<>();
        Map<String, Set<String>> writtenConfigs = new LinkedHashMap<>();
        Map<String, Set<String>> written = new LinkedHashMap<>();
        for (RetryPolicyReader reader : readers) {
            reader.owners = owners;
            reader.resolvedConfigs = resolved;
            reader.writtenConfigs = writtenConfigs;
            reader.writtenPolicies = written;
            reader.configs.keySet().forEach(name -> Refusals.each(errors, () -> reader.claim("configs", name, owners)));
            reader.instances.keySet().forEach(name -> Refusals.each(errors, () -> reader.claim("instances", name, instanceOwners)));
        }
        for (RetryPolicyReader reader : readers) {
            reader.configs.keySet().forEach(name -> Refusals.each(errors, () -> reader.resolveConfig(name, new LinkedHashSet<>())));
        }
        Map<String, RetryPolicyConfig> policies = new LinkedHashMap<>();
        for (RetryPolicyReader reader : readers) {
            reader.instances.keySet().forEach(name -> Refusals.each(errors, () -> reader.resolveInstance(name, policies)));
        }
        if (!policies.containsKey(RetryPolicies.DEFAULT) && resolved.containsKey(RetryPolicies.DEFAULT)) {
            policies.put(RetryPolicies.DEFAULT, resolved.get(RetryPolicies.DEFAULT));
            written.put(RetryPolicies.DEFAULT, writtenConfigs.get(RetryPolicies.DEFAULT));
        }
        written.keySet().retainAll(policies.keySet());
        return new PolicyRead(policies, written);
    }

    private void claim(String section, String name, Map<String, RetryPolicyReader> owners) {
        RetryPolicyReader first = owners.putIfAbsent(name, this);
        if (first != null && first != this) {
            throw invalid(section + "." + name, name, "also defined in " + first.source);
        }
    }

    private void collect(JsonNode node, String section, Map<String, JsonNode> into) {
        JsonNode entries = node.get(section);
        if (entries == null || entries.isNull()) {
            return;
        }
        if (!entries.isObject()) {
            throw invalid(section, entries.toString(), "must be a mapping of policy names");
        }
        entries.properties().forEach(e -> {
            String path = section + "." + e.getKey();
            if (!e.getKey().matches("[A-Za-z0-9_.-]{1,64}")) {
                throw invalid(path, e.getKey(), "a policy name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            if (!e.getValue().isObject()) {
                throw invalid(path, e.getValue().toString(), "must be a mapping of keys");
            }
            for (Map.Entry<String, JsonNode> field : e.getValue().properties()) {
                String key = field.getKey();
                if (!KEYS.contains(key)) {
                    throw invalid(path + "." + key, EngineConfigFile.shown(e.getValue().get(key)),
                            "unknown key; known keys are " + KEYS.stream().sorted().toList());
                }
            }
            into.put(e.getKey(), e.getValue());
        });
    }

    private void resolveInstance(String name, Map<String, RetryPolicyConfig> policies) {
        JsonNode node = instances.get(name);
        String path = "instances." + name;
        String baseName = node.has("baseConfig") ? node.get("baseConfig").asText() : RetryPolicies.DEFAULT;
        RetryPolicyConfig base = node.has("baseConfig") ? baseConfig(path, node.get("baseConfig"))
                : resolvedConfigs.getOrDefault(RetryPolicies.DEFAULT, RetryPolicyConfig.ofDefaults());
        policies.put(name, apply(path, node, base));
        writtenPolicies.put(name, written(node, writtenConfigs.getOrDefault(baseName, Set.of())));
    }

    private static Set<String> written(JsonNode node, Set<String> base) {
        Set<String> keys = new java.util.TreeSet<>(base);
        node.fieldNames().forEachRemaining(keys::add);
        keys.remove("baseConfig");
        return keys;
    }

    private RetryPolicyConfig resolveConfig(String name, Set<String> visiting) {
        RetryPolicyConfig done = resolvedConfigs.get(name);
        if (done != null) {
            return done;
        }
        if (visiting.contains(name)) {
            String first = visiting.iterator().next();
            throw invalid("configs." + first + ".baseConfig", String.join(" → ", visiting) + " → " + name,
                    "baseConfig inheritance loops");
        }
        if (visiting.size() == MAX_CHAIN) {
            String first = visiting.iterator().next();
            throw invalid("configs." + first + ".baseConfig", first + " → … (" + MAX_CHAIN + " configs)",
                    "a baseConfig chain is at most " + MAX_CHAIN + " configs long");
        }
        visiting.add(name);
        String path = "configs." + name;
        JsonNode node = configs.get(name);
        RetryPolicyConfig base = RetryPolicyConfig.ofDefaults();
        Set<String> baseWritten = Set.of();
        if (node.has("baseConfig")) {
            String baseName = node.get("baseConfig").asText();
            RetryPolicyReader owner = owners.get(baseName);
            if (owner == null) {
                throw invalid(path + ".baseConfig", baseName, "no such config; known configs are " + owners.keySet());
            }
            base = owner.resolveConfig(baseName, visiting);
            baseWritten = writtenConfigs.get(baseName);
        }
        RetryPolicyConfig resolved = apply(path, node, base);
        resolvedConfigs.put(name, resolved);
        writtenConfigs.put(name, written(node, baseWritten));
        return resolved;
    }

    private RetryPolicyConfig baseConfig(String path, JsonNode value) {
        String baseName = value.asText();
        RetryPolicyConfig base = resolvedConfigs.get(baseName);
        if (base == null) {
            throw invalid(path + ".baseConfig", baseName, owners.containsKey(baseName) ? "that config is in error (above)"
                    : "no such config; known configs are " + owners.keySet());
        }
        return base;
    }

    private RetryPolicyConfig apply(String path, JsonNode node, RetryPolicyConfig base) {
        RetryPolicyConfig.Builder b = RetryPolicyConfig.from(base);
        for (Map.Entry<String, JsonNode> e : node.properties()) {
            String key = path + "." + e.getKey();
            JsonNode v = e.getValue();
            // The builder holds every range (one place); a refusal is reported here against the file and key.
            try {
                switch (e.getKey()) {
                    case "maxAttempts" -> b.maxAttempts(integer(key, v));
                    case "waitDuration" -> b.waitDuration(duration(key, v));
                    case "exponentialMaxWaitDuration" -> b.exponentialMaxWaitDuration(duration(key, v));
                    case "maxTotalWait" -> b.maxTotalWait(duration(key, v));
                    case "enableExponentialBackoff" -> b.enableExponentialBackoff(bool(key, v));
                    case "enableRandomizedWait" -> b.enableRandomizedWait(bool(key, v));
                    case "exponentialBackoffMultiplier" -> b.exponentialBackoffMultiplier(number(key, v));
                    case "randomizedWaitFactor" -> b.randomizedWaitFactor(number(key, v));
                    case "retryExceptions" -> b.retryExceptions(exceptionClasses(key, v));
                    case "ignoreExceptions" -> b.ignoreExceptions(exceptionClasses(key, v));
                    case "retryCodes" -> b.retryCodes(codes(key, v));
                    case "ignoreCodes" -> b.ignoreCodes(codes(key, v));
                    default -> { } // baseConfig, applied by the caller
                }
            } catch (EngineRuntimeException bad) {
                if (bad.getExceptionCode() == ExceptionCode.E_CONFIG_INVALID) {
                    throw bad;
                }
                throw invalid(key, EngineConfigFile.shown(v), Refusals.ruleOf(bad));
            }
        }
        try {
            return b.build();
        } catch (EngineRuntimeException e) {
            throw invalid(path, node.toString(), e.getMessage());
        }
    }

    private int integer(String key, JsonNode v) {
        return EngineConfigFile.integer(source, prefix + key, v);
    }

    private double number(String key, JsonNode v) {
        try {
            return v.isNumber() ? v.doubleValue() : Double.parseDouble(v.asText().trim());
        } catch (NumberFormatException e) {
            throw invalid(key, v.asText(), "must be a number");
        }
    }

    private boolean bool(String key, JsonNode v) {
        return EngineConfigFile.bool(source, prefix + key, v);
    }

    private Duration duration(String key, JsonNode v) {
        Duration d = Durations.parse(v.asText());
        if (d == null) {
            throw invalid(key, v.asText(), "must be a duration such as 500ms, 10s, 1m or PT10S");
        }
        return d;
    }

    /** A YAML list, or the comma-separated text a .properties file has. */
    private List<String> list(String key, JsonNode v) {
        List<String> items = new ArrayList<>();
        if (v.isArray()) {
            v.forEach(item -> items.add(item.asText().trim()));
        } else if (v.isValueNode()) {
            Arrays.stream(v.asText().split(",")).map(String::trim).filter(s -> !s.isEmpty()).forEach(items::add);
        } else {
            throw invalid(key, v.toString(), "must be a list");
        }
        return items;
    }

    /** Checked here, so that a bad name is reported against this file (at the open it was against turnstile.yaml). */
    private Set<String> exceptionClasses(String key, JsonNode v) {
        Set<String> names = new LinkedHashSet<>(list(key, v));
        for (String name : names) {
            String refusal = FailureMatcher.refusalOf(name);
            if (refusal != null) {
                throw invalid(key, name, refusal);
            }
        }
        return names;
    }

    private Set<ExceptionCode> codes(String key, JsonNode v) {
        Set<ExceptionCode> codes = EnumSet.noneOf(ExceptionCode.class);
        for (String name : list(key, v)) {
            try {
                codes.add(ExceptionCode.valueOf(name));
            } catch (IllegalArgumentException e) {
                throw invalid(key, name, "not an ExceptionCode; known codes are " + Arrays.toString(ExceptionCode.values()));
            }
        }
        return codes;
    }

    private EngineRuntimeException invalid(String key, Object value, String rule) {
        return EngineRuntimeException.configInvalid(source, prefix + key, value, rule);
    }
}
