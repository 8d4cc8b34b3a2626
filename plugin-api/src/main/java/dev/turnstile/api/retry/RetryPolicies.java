package dev.turnstile.api.retry;

import dev.turnstile.api.ExceptionCode;

import java.util.Set;
import java.util.function.Consumer;

/**
 * The engine's named retry policies. A policy named {@value #DEFAULT} always exists. A policy got
 * here follows reloads: each call runs under the settings in force when it started.
 */
public interface RetryPolicies {
    /** The name of the built-in policy every engine has. */
    String DEFAULT = "default";

    /** Fails with {@link ExceptionCode#E_BAD_VALUE} naming the known policies if there is none of that name. */
    RetryPolicy get(String name);

    /** The names of every policy. */
    Set<String> names();

    /**
     * Reads the files the engine was opened from again (turnstile.yaml and its policy file) and puts
     * the policies they define in force, all at once; a policy they no longer define keeps its
     * settings. Returns the names whose settings changed. A bad file changes nothing and throws its
     * {@code E_CONFIG_INVALID}; an engine opened without a file has nothing to reload
     * ({@code E_CONFIG_INVALID} too). Calls in flight finish under the settings they started with.
     */
    Set<String> reload();

    /** Told of every reload, by {@link #reload()} or the file watch ({@code retry.reload: watch}). */
    void onReload(Consumer<PolicyReload> listener);
}
