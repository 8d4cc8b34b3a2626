package dev.turnstile.engine.config;

import com.fasterxml.jackson.databind.JsonNode;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.retry.PolicyRead;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Reads {@code turnstile.yaml} into an {@link EngineConfig}. Every key is checked: an unknown key or
 * a bad value fails with {@code E_CONFIG_INVALID} naming the file, the key path and the value, so a
 * typo never silently falls back to a default. The keys are listed in {@code turnstile-reference.yaml}.
 */
public final class EngineConfigFile {
    private static final Set<String> TOP_LEVEL = Set.of("database", "locks", "retry", "dispensers", "treeLocks", "changes", "editLocks");
    private static final Set<String> DISPENSERS = Set.of("adminRole", "series");
    private static final Set<String> LOCKS = Set.of("breakerRole", "handOver");
    private static final Set<String> TREE_LOCKS = Set.of("lease", "retryPolicy");
    private static final Set<String> RETRY = Set.of("configs", "instances", "policyFile", "reload");
    private static final Set<String> DATABASE = Set.of("url", "username", "password", "maxPoolSize", "connectionTimeout", "migrate");

    private EngineConfigFile() {
    }

    public static EngineConfig read(Path file) {
        return load(file).config();
    }

    /** With {@code env} standing for the environment ({@code ${NAME}} in values). */
    static EngineConfig read(Path file, UnaryOperator<String> env) {
        return load(file, env, null).config();
    }

    /**
     * A {@code turnstile.yaml} read: its configuration, where each of its settings is (to place an
     * error found later, such as an open's check of the policies a capability names) and the keys
     * written for each retry policy (what a reload compares).
     */
    public record Loaded(EngineConfig config, Places places, PolicyRead policies) {
    }

    /** The file read, or its first error, placed at its line. */
    public static Loaded load(Path file) {
        return load(file, System::getenv, null);
    }

    /**
     * Every error found rather than the first, for {@code check-config}: each section's and each
     * policy's first error goes to {@code errors}, placed, and the reading goes on; the configuration
     * returned holds what was valid (null if the file itself could not be read).
     */
    public static Loaded check(Path file, Consumer<EngineRuntimeException> errors) {
        try {
            return load(file, System::getenv, errors);
        } catch (EngineRuntimeException e) {
            errors.accept(e);
            return new Loaded(null, new Places(), null);
        }
    }

    private static Loaded load(Path file, UnaryOperator<String> env, Consumer<EngineRuntimeException> errors) {
        String source = file.toString();
        Places places = new Places();
        return places.placing(() -> {
            JsonNode root = ConfigText.read(file, env, places);
            if (root == null || root.isMissingNode() || root.isNull() || (root.isObject() && root.isEmpty())) {
                // A truncated production file must not quietly open the built-in defaults: a brand-new H2
                // database in the working directory would hand out INV-…-000001 again.
                throw EngineRuntimeException.configInvalid(source, "(root)", root == null || root.isMissingNode() ? "" : root.toString(),
                        "the file holds no settings (empty, only comments, ~ or {}); to run on the built-in defaults, open"
                        + " without a file");
            }
            return read(source, root, file.toAbsolutePath().getParent(), env, places.placing(errors), places);
        });
    }

    /**
     * The same keys from another source of settings, such as a Spring environment's {@code turnstile.*}
     * properties: {@code settings} maps each key path ({@code database.url},
     * {@code retry.instances.x.retryExceptions[0]}) to its text, placeholders already resolved.
     * {@code source} names where they came from in every error; a policy file is found from
     * {@code baseDir}. No settings at all is the built-in defaults.
     */
    public static EngineConfig read(String source, Map<String, String> settings, Path baseDir) {
        JsonNode root = ConfigText.tree(source, settings);
        Places places = new Places();
        return places.placing(() -> read(source, root != null ? root : com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode(),
                baseDir, System::getenv, null, places)).config();
    }

    private static Loaded read(String source, JsonNode root, Path baseDir, UnaryOperator<String> env,
                               Consumer<EngineRuntimeException> errors, Places places) {
        PolicyRead[] policies = new PolicyRead[1];
        EngineConfig.Builder builder = EngineConfig.builder().source(source);
        requireObject(source, "(root)", root);
        Refusals.each(errors, () -> checkKeys(source, "", root, TOP_LEVEL));
        Refusals.each(errors, () -> {
            JsonNode db = root.get("database");
            if (db != null) {
                requireObject(source, "database", db);
                checkKeys(source, "database.", db, DATABASE);
                if (db.has("url")) {
                    builder.jdbcUrl(text(source, "database.url", db.get("url")));
                }
                if (db.has("username")) {
                    builder.username(text(source, "database.username", db.get("username")));
                }
                if (db.has("password")) {
                    builder.password(text(source, "database.password", db.get("password")));
                }
                if (db.has("maxPoolSize")) {
                    builder.maxPoolSize(integer(source, "database.maxPoolSize", db.get("maxPoolSize")));
                }
                if (db.has("connectionTimeout")) {
                    builder.connectionTimeout(duration(source, "database.connectionTimeout", db.get("connectionTimeout")));
                }
                if (db.has("migrate")) {
                    builder.migrate(bool(source, "database.migrate", db.get("migrate")));
                }
            }
        });
        Refusals.each(errors, () -> {
            JsonNode locks = root.get("locks");
            if (locks != null) {
                requireObject(source, "locks", locks);
                checkKeys(source, "locks.", locks, LOCKS);
                if (locks.has("breakerRole")) {
                    builder.lockBreakerRole(text(source, "locks.breakerRole", locks.get("breakerRole")));
                }
                if (locks.has("handOver")) {
                    builder.lockHandOver(duration(source, "locks.handOver", locks.get("handOver")));
                }
            }
        });
        Refusals.each(errors, () -> {
            JsonNode treeLocks = root.get("treeLocks");
            if (treeLocks != null) {
                requireObject(source, "treeLocks", treeLocks);
                checkKeys(source, "treeLocks.", treeLocks, TREE_LOCKS);
                if (treeLocks.has("lease")) {
                    builder.treeLockLease(duration(source, "treeLocks.lease", treeLocks.get("lease")));
                }
                if (treeLocks.has("retryPolicy")) {
                    builder.treeLockRetryPolicy(text(source, "treeLocks.retryPolicy", treeLocks.get("retryPolicy")));
                }
            }
        });
        Refusals.each(errors, () -> {
            JsonNode changes = root.get("changes");
            if (changes != null) {
                requireObject(source, "changes", changes);
                checkKeys(source, "changes.", changes, Set.of("enabled"));
                if (changes.has("enabled")) {
                    builder.changesEnabled(bool(source, "changes.enabled", changes.get("enabled")));
                }
            }
        });
        Refusals.each(errors, () -> {
            JsonNode editLocks = root.get("editLocks");
            if (editLocks != null) {
                requireObject(source, "editLocks", editLocks);
                checkKeys(source, "editLocks.", editLocks, Set.of("types", "auditRetention"));
                if (editLocks.has("auditRetention")) {
                    builder.editAuditRetention(duration(source, "editLocks.auditRetention", editLocks.get("auditRetention")));
                }
                JsonNode types = editLocks.path("types");
                if (!types.isMissingNode()) {
                    requireObject(source, "editLocks.types", types);
                    for (Map.Entry<String, JsonNode> type : types.properties()) {
                        builder.editLockType(type.getKey(), editLockType(source, "editLocks.types." + type.getKey(), type.getValue()));
                    }
                }
            }
        });
        Refusals.each(errors, () -> {
            JsonNode dispensers = root.get("dispensers");
            if (dispensers != null) {
                requireObject(source, "dispensers", dispensers);
                checkKeys(source, "dispensers.", dispensers, DISPENSERS);
                if (dispensers.has("adminRole")) {
                    builder.dispenserAdminRole(text(source, "dispensers.adminRole", dispensers.get("adminRole")));
                }
                builder.dispensers(DispenserConfigReader.read(source, dispensers.get("series")));
            }
        });
        Refusals.each(errors, () -> {
            JsonNode retry = root.get("retry");
            if (retry != null) {
                requireObject(source, "retry", retry);
                checkKeys(source, "retry.", retry, RETRY);
                List<RetryPolicyReader.Part> parts = new ArrayList<>(List.of(new RetryPolicyReader.Part(source, "retry.", retry)));
                if (retry.has("policyFile")) {
                    Path policyFile = baseDir.resolve(text(source, "retry.policyFile", retry.get("policyFile")));
                    builder.policyFile(policyFile.toString());
                    parts.add(policyFile(policyFile, env, places));
                }
                if (retry.has("reload")) {
                    String reload = text(source, "retry.reload", retry.get("reload"));
                    if (!reload.equals("watch") && !reload.equals("manual")) {
                        throw EngineRuntimeException.configInvalid(source, "retry.reload", reload,
                                "must be watch (reload when the files change) or manual (engine.retryPolicies().reload())");
                    }
                    builder.retryReloadWatch(reload.equals("watch"));
                }
                policies[0] = RetryPolicyReader.read(parts, errors);
                builder.retryPolicies(policies[0].policies());
            }
        });
        EngineConfig[] built = new EngineConfig[1];
        Refusals.each(errors, () -> built[0] = builder.build());
        return new Loaded(built[0], places, policies[0] != null ? policies[0] : new PolicyRead(Map.of(), Map.of()));
    }


    /**
     * A separate policy file: YAML ({@code .yaml}, {@code .yml}) or {@code .properties}, holding
     * {@code configs} and {@code instances}, optionally under {@code resilience4j.retry} as in a
     * Spring Boot file.
     */
    public static Map<String, RetryPolicyConfig> readPolicyFile(Path file) {
        Places places = new Places();
        return places.placing(() -> RetryPolicyReader.read(List.of(policyFile(file, System::getenv, places)), null).policies());
    }

    private static RetryPolicyReader.Part policyFile(Path file, UnaryOperator<String> env, Places places) {
        String name = file.getFileName().toString();
        boolean properties = name.endsWith(".properties");
        if (!properties && !name.endsWith(".yaml") && !name.endsWith(".yml")) {
            throw EngineRuntimeException.configInvalid(file.toString(), "(file)", name, "a policy file ends in .yaml, .yml or .properties");
        }
        JsonNode root = ConfigText.read(file, env, places);
        if (root == null || root.isMissingNode() || root.isNull() || (root.isObject() && root.isEmpty())) {
            // An editor's save-in-place empties the file for a moment: read then, every policy would
            // fall back to its built-in default.
            throw EngineRuntimeException.configInvalid(file.toString(), "(root)", root == null || root.isMissingNode() ? "" : root.toString(),
                    "the policy file holds no policies (empty, only comments, ~ or {}); write them, or remove retry.policyFile");
        }
        String prefix = "";
        if (root.has("resilience4j")) {
            // Spring Boot's form: then nothing else in the file (top-level instances were dropped).
            checkKeys(file.toString(), "", root, Set.of("resilience4j"));
            JsonNode resilience4j = root.get("resilience4j");
            requireObject(file.toString(), "resilience4j", resilience4j);
            checkKeys(file.toString(), "resilience4j.", resilience4j, Set.of("retry"));
            root = resilience4j.path("retry");
            prefix = "resilience4j.retry.";
        }
        requireObject(file.toString(), prefix.isEmpty() ? "(root)" : prefix, root);
        checkKeys(file.toString(), prefix, root, Set.of("configs", "instances"));
        return new RetryPolicyReader.Part(file.toString(), prefix, root);
    }

    private static void requireObject(String source, String path, JsonNode node) {
        if (!node.isObject()) {
            throw EngineRuntimeException.configInvalid(source, path, node.toString(), "must be a mapping of keys");
        }
    }

    private static void checkKeys(String source, String prefix, JsonNode node, Set<String> allowed) {
        for (Map.Entry<String, JsonNode> entry : node.properties()) {
            String key = entry.getKey();
            if (!allowed.contains(key)) {
                throw EngineRuntimeException.configInvalid(source, prefix + key, shown(node.get(key)),
                        "unknown key; known keys here are " + allowed.stream().sorted().toList());
            }
        }
    }

    /** A value as an error shows it: a scalar's text, a list's or mapping's JSON (asText gave ""). */
    static String shown(JsonNode node) {
        return node.isValueNode() ? node.asText() : node.toString();
    }

    /** One resource type with the paper's keys; heartbeat and timeout in milliseconds (as the paper) or as durations. */
    private static EditLockConfig editLockType(String source, String path, JsonNode node) {
        requireObject(source, path, node);
        checkKeys(source, path + ".", node, Set.of("heartbeat", "timeout", "isMinimum", "htmlTags", "maxLocksPerUser"));
        EditLockConfig d = EditLockConfig.DEFAULTS;
        Duration heartbeat = node.has("heartbeat") ? millisOrDuration(source, path + ".heartbeat", node.get("heartbeat")) : d.heartbeat();
        Duration timeout = node.has("timeout") ? millisOrDuration(source, path + ".timeout", node.get("timeout")) : d.timeout();
        boolean isMinimum = d.isMinimum();
        if (node.has("isMinimum")) {
            JsonNode v = node.get("isMinimum");
            String t = v.asText().trim();
            if (v.isBoolean() || t.equals("true") || t.equals("false")) {
                isMinimum = t.equals("true");
            } else if (t.equals("0") || t.equals("1")) {
                isMinimum = t.equals("1");
            } else {
                throw EngineRuntimeException.configInvalid(source, path + ".isMinimum", v.asText(), "must be true, false, 1 or 0");
            }
        }
        int max = d.maxLocksPerUser();
        if (node.has("maxLocksPerUser")) {
            max = integer(source, path + ".maxLocksPerUser", node.get("maxLocksPerUser"));
        }
        try {
            return new EditLockConfig(heartbeat, timeout, isMinimum,
                    node.has("htmlTags") ? EditLockConfig.parseTags(text(source, path + ".htmlTags", node.get("htmlTags"))) : d.htmlTags(),
                    max);
        } catch (EngineRuntimeException e) {
            throw EngineRuntimeException.configInvalid(source, path, node.toString(), e.getMessage());
        }
    }

    /**
     * An integer, written as a YAML number or as text ("10"): a {@code .properties} file gives every
     * value as text. The retry policies' reader uses it too.
     */
    static int integer(String source, String path, JsonNode node) {
        if (node.isInt() || (node.isTextual() && node.asText().trim().matches("-?\\d{1,9}"))) {
            return node.isInt() ? node.intValue() : Integer.parseInt(node.asText().trim());
        }
        throw EngineRuntimeException.configInvalid(source, path, node.asText(), "must be an integer");
    }

    /** true or false, as a YAML boolean or as text. */
    static boolean bool(String source, String path, JsonNode node) {
        String t = node.asText().trim();
        if (node.isBoolean() || (node.isTextual() && (t.equals("true") || t.equals("false")))) {
            return t.equals("true");
        }
        throw EngineRuntimeException.configInvalid(source, path, node.asText(), "must be true or false");
    }

    private static Duration millisOrDuration(String source, String path, JsonNode node) {
        return node.isIntegralNumber() ? Duration.ofMillis(node.longValue()) : duration(source, path, node);
    }

    private static Duration duration(String source, String path, JsonNode node) {
        Duration d = Durations.parse(node.asText());
        if (d == null) {
            throw EngineRuntimeException.configInvalid(source, path, node.asText(), "must be a duration such as 500ms, 10s, 1m or PT10S");
        }
        return d;
    }

    /** Text as written: an unquoted value YAML reads as a number or a boolean (0123 as 83, on as true) is refused. */
    static String text(String source, String path, JsonNode node) {
        if (node.isTextual()) {
            return node.asText();
        }
        if (node.isNumber() || node.isBoolean()) {
            throw EngineRuntimeException.configInvalid(source, path, node.asText(), "must be text, and YAML reads this unquoted"
                    + " value as " + (node.isBoolean() ? "the boolean " : "the number ") + node.asText() + ": put it in quotes");
        }
        throw EngineRuntimeException.configInvalid(source, path, node.toString(), "must be a text value");
    }
}
