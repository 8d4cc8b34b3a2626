package dev.turnstile.api;

import java.util.Set;

/** The engine's named retry policies. A policy named {@value #DEFAULT} always exists. */
public interface RetryPolicies {
    String DEFAULT = "default";

    /** Fails with {@link ExceptionCode#E_BAD_VALUE} naming the known policies if there is none of that name. */
    RetryPolicy get(String name);

    Set<String> names();
}
