package dev.turnstile.api;

import dev.turnstile.api.retry.RetryPolicyConfig;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What {@link ContentEngine#checkConfig} found in a {@code turnstile.yaml} (and its policy file),
 * without opening the database: every error (each section's and each policy's first), and the
 * retry policies an engine opened on it would have, inheritance resolved, built-in ones included.
 *
 * @param file the configuration file checked
 * @param errors every error found, each naming the file and key
 * @param policies the retry policies read, by name
 */
public record ConfigCheck(Path file, List<String> errors, SortedMap<String, RetryPolicyConfig> policies) {
    /** A check of {@code file}; the policies are kept sorted by name. */
    public ConfigCheck(Path file, List<String> errors, Map<String, RetryPolicyConfig> policies) {
        this(file, List.copyOf(errors), new TreeMap<>(policies));
    }

    /** Whether the file and its policy file had no error. */
    public boolean isValid() {
        return errors.isEmpty();
    }
}
