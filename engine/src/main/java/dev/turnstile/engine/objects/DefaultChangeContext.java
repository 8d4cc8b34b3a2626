package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.Properties;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.UUID;

/** The change a preprocessor sees; its properties write through to the values being saved. */
final class DefaultChangeContext implements ChangeContext {
    private final Action action;
    private final String className;
    private final UUID id;
    private final ObjectTransaction transaction;
    private final Map<String, Object> originals;
    private final Properties properties;

    DefaultChangeContext(Action action, String className, UUID id, ObjectTransaction transaction,
                         Map<String, Object> values, Map<String, Object> originals) {
        this.action = action;
        this.className = className;
        this.id = id;
        this.transaction = transaction;
        this.originals = originals;
        this.properties = new AbstractProperties() {
            @Override
            protected String className() {
                return className;
            }

            @Override
            protected UUID objectId() {
                return id;
            }

            @Override
            public void putValue(String name, Object value) {
                if (ClassRegistry.SYSTEM_PROPERTIES.contains(name)) {
                    throw EngineRuntimeException.badValue(className, id, name, value, "a read-only system property");
                }
                values.put(name, value);
            }

            @Override
            public Object getObjectValue(String name) {
                return values.get(name);
            }

            @Override
            public boolean isPropertyPresent(String name) {
                return values.containsKey(name);
            }

            @Override
            public Set<String> names() {
                return Set.copyOf(values.keySet());
            }

            @Override
            public Map<String, Object> toMap() {
                return new LinkedHashMap<>(values);
            }
        };
    }

    @Override
    public Action action() {
        return action;
    }

    @Override
    public String className() {
        return className;
    }

    @Override
    public UUID objectId() {
        return id;
    }

    @Override
    public String user() {
        return transaction.user();
    }

    @Override
    public Instant now() {
        return transaction.now();
    }

    ObjectTransaction transaction() {
        return transaction;
    }

    @Override
    public Properties properties() {
        return properties;
    }

    @Override
    public Object originalValue(String name) {
        return originals.get(name);
    }
}
