package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.ChangePreprocessor;
import dev.turnstile.api.EngineRuntimeException;
import jakarta.persistence.PersistenceException;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The preprocessors registered in one engine, by class; run root class first. */
final class ChangePreprocessors {
    private final Map<String, List<ChangePreprocessor>> byClass = new ConcurrentHashMap<>();

    void add(String className, ChangePreprocessor preprocessor) {
        byClass.computeIfAbsent(className, c -> new CopyOnWriteArrayList<>())
                .add(Objects.requireNonNull(preprocessor, "preprocessor"));
    }

    void remove(String className, ChangePreprocessor preprocessor) {
        List<ChangePreprocessor> list = byClass.get(className);
        if (list != null) {
            list.remove(preprocessor);
        }
    }

    /** Whether a preprocessor of the class or of one of its ancestors would run on its changes. */
    boolean anyFor(DefaultClassDefinition definition) {
        return !byClass.isEmpty() && definition.lineage().stream().anyMatch(c -> !byClass.getOrDefault(c, List.of()).isEmpty());
    }

    /**
     * Runs every preprocessor of the class and its ancestors on {@code values}, which they may
     * change. A failure rolls the transaction back: engine and database exceptions pass as they
     * are, others become {@code E_PREPROCESSOR_FAILED}.
     */
    void run(DefaultClassDefinition definition, ChangeContext.Action action, UUID id, ObjectTransaction tx,
             Map<String, Object> values, Map<String, Object> originals) {
        if (byClass.isEmpty()) {
            return;
        }
        ChangeContext context = null;
        for (String className : definition.lineage()) {
            for (ChangePreprocessor preprocessor : byClass.getOrDefault(className, List.of())) {
                if (context == null) {
                    context = new DefaultChangeContext(action, definition.getName(), id, tx, values, originals);
                }
                try {
                    preprocessor.preprocessObjectChange(context);
                } catch (EngineRuntimeException | PersistenceException e) {
                    // The database's own failures keep their meaning (an outage stays E_DATABASE_UNAVAILABLE,
                    // so a policy retrying outages retries a numbered creation too): Database translates them.
                    throw e;
                } catch (RuntimeException e) {
                    throw EngineRuntimeException.preprocessorFailed(definition.getName(), id, e);
                }
            }
        }
    }
}
