package dev.turnstile.api.retry;

import java.time.Instant;
import java.util.Set;

/**
 * One reload of the retry policies ({@link RetryPolicies#reload()} or the file watch): the policies
 * whose settings changed, or the error that left every policy as it was.
 *
 * @param at when the reload ran
 * @param changed the policies whose settings changed
 * @param error why the reload was refused, or null
 */
public record PolicyReload(Instant at, Set<String> changed, String error) {
    public PolicyReload {
        changed = Set.copyOf(changed);
    }

    /** Whether the reload was taken. */
    public boolean isOk() {
        return error == null;
    }
}
