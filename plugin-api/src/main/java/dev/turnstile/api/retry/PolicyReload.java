package dev.turnstile.api.retry;

import java.time.Instant;
import java.util.Set;

/**
 * One reload of the retry policies ({@link RetryPolicies#reload()} or the file watch): the policies
 * whose settings changed, or the error that left every policy as it was.
 */
public record PolicyReload(Instant at, Set<String> changed, String error) {
    public PolicyReload {
        changed = Set.copyOf(changed);
    }

    public boolean isOk() {
        return error == null;
    }
}
