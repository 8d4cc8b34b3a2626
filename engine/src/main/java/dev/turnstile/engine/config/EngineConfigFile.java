package dev.turnstile.engine.config;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.engine.retry.PolicyRead;
import tools.jackson.databind.JsonNode;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Reads {@code turnstile.yaml} (and its policy file) into an {@link EngineConfig}: {@link ConfigText}
 * reads the tree, {@link Binding} binds each section ({@link Sections}), dispenser series and retry
 * policy. Every key is checked: an unknown key or a bad value fails with {@code E_CONFIG_INVALID}
 * naming the file, the line, the key path and the value, so a typo never silently falls back to a
 * default. The keys are listed in {@code turnstile-reference.yaml}.
 */
public final class EngineConfigFile {
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
        return places.placing(() -> read(source, root != null ? root : tools.jackson.databind.node.JsonNodeFactory.instance.objectNode(),
                baseDir, System::getenv, null, places)).config();
    }

    private static Loaded read(String source, JsonNode root, Path baseDir, UnaryOperator<String> env,
                               Consumer<EngineRuntimeException> errors, Places places) {
        EngineConfig.Builder builder = EngineConfig.builder().source(source);
        // The top level's keys checked on their own: check-config goes on to report each section's error.
        Refusals.each(errors, () -> Binding.bind(source, "", root, Sections.Root.class, Set.of()));
        Sections.Root sections = Sections.Root.of(root);
        section(errors, source, "database", sections.database(), Sections.Database.class, database -> database.applyTo(builder));
        // Sections whose keys are their builder's setters are bound straight into it.
        sectionInto(errors, source, "locks", sections.locks(), LockConfig.builder(), locks -> builder.locks(locks.build()));
        sectionInto(errors, source, "treeLocks", sections.treeLocks(), TreeLocksConfig.builder(), treeLocks -> builder.treeLocks(treeLocks.build()));
        sectionInto(errors, source, "changes", sections.changes(), ChangesConfig.builder(), changes -> builder.changes(changes.build()));
        section(errors, source, "editLocks", sections.editLocks(), Sections.EditLocks.class, editLocks -> {
            EditLocksConfig.Builder b = EditLocksConfig.builder();
            if (editLocks.auditRetention() != null) {
                Refusals.at(source, "editLocks.auditRetention", editLocks.auditRetention(), () -> b.auditRetention(editLocks.auditRetention()));
            }
            Binding.entries(source, "editLocks.types", editLocks.types()).forEach((type, node) -> {
                String path = "editLocks.types." + type;
                Sections.EditLockType settings = Binding.bind(source, path, node, Sections.EditLockType.class, Set.of());
                EditLockConfig config = settings.config(source, path, node);
                Refusals.at(source, "editLocks.types", type, () -> b.type(type, config));
            });
            builder.editLocks(b.build());
        });
        section(errors, source, "dispensers", sections.dispensers(), Sections.Dispensers.class, dispensers -> {
            DispensersConfig.Builder b = DispensersConfig.builder();
            if (dispensers.adminRole() != null) {
                Refusals.at(source, "dispensers.adminRole", dispensers.adminRole(), () -> b.adminRole(dispensers.adminRole()));
            }
            DispenserConfigReader.read(source, dispensers.series())
                    .forEach((name, config) -> Refusals.at(source, "dispensers.series", name, () -> b.series(name, config)));
            builder.dispensers(b.build());
        });
        PolicyRead[] policies = {new PolicyRead(Map.of(), Map.of())};
        section(errors, source, "retry", sections.retry(), Sections.Retry.class, retry -> {
            RetryPoliciesConfig.Builder b = RetryPoliciesConfig.builder();
            List<RetryPolicyReader.Part> parts = new ArrayList<>(List.of(new RetryPolicyReader.Part(source, "retry.", sections.retry())));
            if (retry.policyFile() != null) {
                Path policyFile = baseDir.resolve(retry.policyFile());
                b.policyFile(policyFile.toString());
                parts.add(policyFile(policyFile, env, places));
            }
            if (retry.reload() != null) {
                if (!retry.reload().equals("watch") && !retry.reload().equals("manual")) {
                    throw EngineRuntimeException.configInvalid(source, "retry.reload", retry.reload(),
                            "must be watch (reload when the files change) or manual (engine.retryPolicies().reload())");
                }
                b.reloadWatch(retry.reload().equals("watch"));
            }
            policies[0] = RetryPolicyReader.read(parts, errors);
            policies[0].policies().forEach((name, config) -> Refusals.at(source, "retry.instances", name, () -> b.policy(name, config)));
            builder.retry(b.build());
        });
        EngineConfig[] built = new EngineConfig[1];
        Refusals.each(errors, () -> built[0] = builder.build());
        return new Loaded(built[0], places, policies[0]);
    }

    /** One section bound and applied; its first error thrown, or handed to {@code errors} and the reading goes on. */
    private static <T> void section(Consumer<EngineRuntimeException> errors, String source, String key, JsonNode node, Class<T> type,
                                    Consumer<T> apply) {
        if (node != null) {
            Refusals.each(errors, () -> apply.accept(Binding.bind(source, key, node, type, Set.of())));
        }
    }

    /** One section bound into an API builder (its setters are the keys), then applied; errors as {@link #section}'s. */
    private static <B> void sectionInto(Consumer<EngineRuntimeException> errors, String source, String key, JsonNode node, B builder,
                                        Consumer<B> apply) {
        if (node != null) {
            Refusals.each(errors, () -> apply.accept(Binding.<B>bind(source, key, node, builder, Set.of())));
        }
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
        String source = file.toString();
        String name = file.getFileName().toString();
        if (!name.endsWith(".properties") && !name.endsWith(".yaml") && !name.endsWith(".yml")) {
            throw EngineRuntimeException.configInvalid(source, "(file)", name, "a policy file ends in .yaml, .yml or .properties");
        }
        JsonNode root = ConfigText.read(file, env, places);
        if (root == null || root.isMissingNode() || root.isNull() || (root.isObject() && root.isEmpty())) {
            // An editor's save-in-place empties the file for a moment: read then, every policy would
            // fall back to its built-in default.
            throw EngineRuntimeException.configInvalid(source, "(root)", root == null || root.isMissingNode() ? "" : root.toString(),
                    "the policy file holds no policies (empty, only comments, ~ or {}); write them, or remove retry.policyFile");
        }
        String prefix = "";
        if (root.has("resilience4j")) {
            // Spring Boot's form: then nothing else in the file (top-level instances were dropped).
            Sections.SpringPolicyFile spring = Binding.bind(source, "", root, Sections.SpringPolicyFile.class, Set.of());
            root = spring.resilience4j() == null ? null : spring.resilience4j().retry();
            prefix = "resilience4j.retry.";
        }
        if (root == null) {
            throw EngineRuntimeException.configInvalid(source, "resilience4j.retry", "", "the policy file holds no policies under resilience4j.retry");
        }
        Binding.<Sections.PolicyFile>bind(source, prefix, root, Sections.PolicyFile.class, Set.of());
        return new RetryPolicyReader.Part(source, prefix, root);
    }
}
