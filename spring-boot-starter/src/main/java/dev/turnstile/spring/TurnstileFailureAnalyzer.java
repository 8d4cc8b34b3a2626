package dev.turnstile.spring;

import dev.turnstile.api.EngineRuntimeException;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * A start-up that failed because of Turnstile, said as Spring Boot's "APPLICATION FAILED TO START"
 * report: the engine's message (file or property, key, value and rule for a configuration error),
 * and what to do about it.
 */
class TurnstileFailureAnalyzer extends AbstractFailureAnalyzer<EngineRuntimeException> {
    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, EngineRuntimeException cause) {
        return new FailureAnalysis("Turnstile could not start: " + cause.getMessage(), action(cause), cause);
    }

    private static String action(EngineRuntimeException cause) {
        return switch (cause.getExceptionCode()) {
            case E_CONFIG_INVALID -> "Correct " + (cause.getConfigKeyPath() == null ? "the setting named above"
                    : "turnstile." + cause.getConfigKeyPath() + (cause.getConfigSource() == null || cause.getConfigSource().equals(SpringSettings.SOURCE)
                    ? " (application.yaml or properties, a profile, or a TURNSTILE_… environment variable)" : " in " + cause.getConfigSource()))
                    + "; docs/configuration.md lists every key with its range.";
            case E_DATABASE_UNAVAILABLE -> "Check that the database of spring.datasource.* is up and reachable with its user.";
            default -> "See the message above; docs/host-integration.md describes how the engine joins a Spring application.";
        };
    }
}
