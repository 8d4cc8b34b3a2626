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
import java.util.function.Predicate;

/**
 * The preprocessors registered in one engine, by class; run root class first. A user's runs on
 * every change; one of the engine's own may be scoped to the updates it acts on ({@link #addForUpdates}),
 * so that other saves of its class (a lock alone, say) need not run in a transaction for it.
 */
final class ChangePreprocessors {
    /** {@code concerns}: null for every change, else the stored values of the objects whose value-changing updates it acts on. */
    private record Entry(ChangePreprocessor preprocessor, Predicate<Map<String, Object>> concerns) {
        boolean runsOn(ChangeContext.Action action, Map<String, Object> values, Map<String, Object> stored) {
            return concerns == null || action == ChangeContext.Action.UPDATE && !values.equals(stored) && concerns.test(stored);
        }

        /** The same, before the values are merged: an update setting {@code pending} on {@code stored} (null: not known). */
        boolean mayRunOn(Map<String, Object> stored, Map<String, Object> pending) {
            return concerns == null || !pending.isEmpty() && (stored == null || concerns.test(stored));
        }
    }

    private final Map<String, List<Entry>> byClass = new ConcurrentHashMap<>();

    void add(String className, ChangePreprocessor preprocessor) {
        add(className, preprocessor, null);
    }

    /**
     * An engine preprocessor that acts only on updates that change values, of objects whose stored
     * values pass {@code concerns}: it is not run on other changes (its own code would return at once).
     */
    void addForUpdates(String className, Predicate<Map<String, Object>> concerns, ChangePreprocessor preprocessor) {
        add(className, preprocessor, Objects.requireNonNull(concerns, "concerns"));
    }

    private void add(String className, ChangePreprocessor preprocessor, Predicate<Map<String, Object>> concerns) {
        byClass.computeIfAbsent(className, c -> new CopyOnWriteArrayList<>())
                .add(new Entry(Objects.requireNonNull(preprocessor, "preprocessor"), concerns));
    }

    void remove(String className, ChangePreprocessor preprocessor) {
        List<Entry> list = byClass.get(className);
        if (list != null) {
            list.removeIf(e -> e.preprocessor() == preprocessor);
        }
    }

    /**
     * Whether a preprocessor of the class or of one of its ancestors would run on an update of an
     * object stored with {@code stored} (null: not known) that sets {@code pending}.
     */
    boolean anyFor(DefaultClassDefinition definition, Map<String, Object> stored, Map<String, Object> pending) {
        if (byClass.isEmpty()) {
            return false;
        }
        for (String className : definition.lineage()) {
            for (Entry e : byClass.getOrDefault(className, List.of())) {
                if (e.mayRunOn(stored, pending)) {
                    return true;
                }
            }
        }
        return false;
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
            for (Entry entry : byClass.getOrDefault(className, List.of())) {
                if (!entry.runsOn(action, values, originals)) {
                    continue;
                }
                ChangePreprocessor preprocessor = entry.preprocessor();
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
