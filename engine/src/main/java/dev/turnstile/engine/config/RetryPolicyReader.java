package dev.turnstile.engine.config;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.retry.PolicyRead;

import java.util.ArrayList;
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
        Binding.entries(source, prefix + section, node.get(section)).forEach((name, policy) -> {
            String path = section + "." + name;
            if (!name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw invalid(path, name, "a policy name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            if (!policy.isObject()) {
                throw invalid(path, policy.toString(), "must be a mapping of keys");
            }
            into.put(name, policy);
        });
    }

    private void resolveInstance(String name, Map<String, RetryPolicyConfig> policies) {
        JsonNode node = instances.get(name);
        String path = "instances." + name;
        String baseName = node.has("baseConfig") ? node.get("baseConfig").asString() : RetryPolicies.DEFAULT;
        RetryPolicyConfig base = node.has("baseConfig") ? baseConfig(path, node.get("baseConfig"))
                : resolvedConfigs.getOrDefault(RetryPolicies.DEFAULT, RetryPolicyConfig.ofDefaults());
        policies.put(name, apply(path, node, base));
        writtenPolicies.put(name, written(node, writtenConfigs.getOrDefault(baseName, Set.of())));
    }

    private static Set<String> written(JsonNode node, Set<String> base) {
        Set<String> keys = new java.util.TreeSet<>(base);
        keys.addAll(node.propertyNames());
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
            String baseName = node.get("baseConfig").asString();
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
        String baseName = value.asString();
        RetryPolicyConfig base = resolvedConfigs.get(baseName);
        if (base == null) {
            throw invalid(path + ".baseConfig", baseName, owners.containsKey(baseName) ? "that config is in error (above)"
                    : "no such config; known configs are " + owners.keySet());
        }
        return base;
    }

    /** The policy's keys bound into a builder starting from {@code base}: the builder holds every range. */
    private RetryPolicyConfig apply(String path, JsonNode node, RetryPolicyConfig base) {
        ObjectNode settings = (ObjectNode) node.deepCopy();
        settings.remove("baseConfig");
        RetryPolicyConfig.Builder b = Binding.bind(source, prefix + path, settings, RetryPolicyConfig.from(base), Set.of("baseConfig"));
        try {
            return b.build();
        } catch (EngineRuntimeException e) {
            throw invalid(path, node.toString(), e.getMessage());
        }
    }

    private EngineRuntimeException invalid(String key, Object value, String rule) {
        return EngineRuntimeException.configInvalid(source, prefix + key, value, rule);
    }
}
