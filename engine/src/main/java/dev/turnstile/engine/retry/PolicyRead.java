package dev.turnstile.engine.retry;

import dev.turnstile.api.retry.RetryPolicyConfig;

import java.util.Map;
import java.util.Set;

/**
 * Retry policies as read from files: each policy, and the keys written for it — its own, its
 * {@code baseConfig}'s and, for an instance without one, {@code configs.default}'s. A key not
 * written is a default; a reload will not let a setting in force fall back to one unseen.
 */
public record PolicyRead(Map<String, RetryPolicyConfig> policies, Map<String, Set<String>> written) {
}
