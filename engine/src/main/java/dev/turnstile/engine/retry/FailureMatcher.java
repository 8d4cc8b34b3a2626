package dev.turnstile.engine.retry;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.retry.RetryPolicyConfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Which failures a policy retries. Codes and classes are looked for along the whole cause chain,
 * so an optimistic-lock failure wrapped by Hibernate or Jakarta (a RollbackException around it)
 * matches as its cause would. An ignored code or class wins over a retried one.
 */
public final class FailureMatcher {
    private final Set<ExceptionCode> retryCodes;
    private final Set<ExceptionCode> ignoreCodes;
    private final List<Class<?>> retryClasses;
    private final List<Class<?>> ignoreClasses;

    private FailureMatcher(RetryPolicyConfig config, List<Class<?>> retryClasses, List<Class<?>> ignoreClasses) {
        this.retryCodes = config.effectiveRetryCodes();
        this.ignoreCodes = config.ignoreCodes();
        this.retryClasses = retryClasses;
        this.ignoreClasses = ignoreClasses;
    }

    /** Resolves the configured class names; an unknown or non-Throwable class is a configuration error. */
    static FailureMatcher of(String policy, String source, RetryPolicyConfig config) {
        return new FailureMatcher(config, resolve(policy, source, "retryExceptions", config.retryExceptions()),
                resolve(policy, source, "ignoreExceptions", config.ignoreExceptions()));
    }

    private static List<Class<?>> resolve(String policy, String source, String key, Set<String> names) {
        List<Class<?>> classes = new ArrayList<>();
        for (String name : names) {
            String refusal = refusalOf(name);
            if (refusal != null) {
                throw EngineRuntimeException.configInvalid(source, "retry.instances." + policy + "." + key, name, refusal);
            }
            classes.add(load(name));
        }
        return classes;
    }

    /** Why {@code name} cannot be a retried or ignored exception class, or null if it can. */
    public static String refusalOf(String name) {
        try {
            return Throwable.class.isAssignableFrom(load(name)) ? null : "not an exception class";
        } catch (IllegalArgumentException e) {
            return "no such exception class";
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, FailureMatcher.class.getClassLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException(name, e);
        }
    }

    boolean isRetried(Throwable failure) {
        boolean retried = false;
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof EngineRuntimeException e) {
                if (ignoreCodes.contains(e.getExceptionCode())) {
                    return false;
                }
                retried |= retryCodes.contains(e.getExceptionCode());
            }
            if (isAny(t, ignoreClasses)) {
                return false;
            }
            retried |= isAny(t, retryClasses);
        }
        return retried;
    }

    private static boolean isAny(Throwable t, List<Class<?>> classes) {
        for (Class<?> c : classes) {
            if (c.isInstance(t)) {
                return true;
            }
        }
        return false;
    }
}
