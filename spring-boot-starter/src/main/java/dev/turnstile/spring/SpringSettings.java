package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.BindHandler;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.UnboundConfigurationPropertiesException;
import org.springframework.boot.context.properties.bind.handler.NoUnboundElementsBindHandler;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;
import org.springframework.core.env.ConfigurableEnvironment;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code turnstile.*} properties of a Spring environment, bound the Spring way into
 * {@link TurnstileProperties} (relaxed names, environment variables, profiles; an unknown key fails
 * the start), then handed to the engine as the key paths of {@code turnstile.yaml}, so that every
 * value gets the file's checks and messages.
 */
final class SpringSettings {
    static final String PREFIX = "turnstile";
    static final String SOURCE = "the Spring environment (turnstile.*)";
    /** The engine runs on the application's DataSource: these would configure a pool of its own. */
    private static final List<String> POOL_KEYS = List.of("url", "username", "password", "maxPoolSize", "connectionTimeout",
            "idleTransactionTimeout");

    private SpringSettings() {
    }

    /** What {@code turnstile.*} says: the engine's configuration, and the starter's own keys. */
    record Read(EngineConfig config, TurnstileProperties.Spring spring) {
    }

    static Read read(ConfigurableEnvironment environment) {
        Binder binder = Binder.get(environment);
        for (String key : POOL_KEYS) {
            binder.bind(ConfigurationPropertyName.adapt(PREFIX + ".database." + key, '.'), Bindable.of(String.class)).ifBound(value -> {
                throw EngineRuntimeException.configInvalid(SOURCE, "database." + key, value, "Turnstile runs on the application's"
                        + " DataSource and joins its transactions: configure the database under spring.datasource.*");
            });
        }
        BindHandler strict = new NoUnboundElementsBindHandler(new TextStaysText());
        TurnstileProperties properties;
        try {
            properties = binder.bindOrCreate(PREFIX, Bindable.of(TurnstileProperties.class), strict);
        } catch (BindException e) {
            if (e.getCause() instanceof UnboundConfigurationPropertiesException unbound) {
                throw unknownKey(unbound.getUnboundProperties().iterator().next());
            }
            throw e;
        }
        Map<String, String> settings = new TreeMap<>();
        flatten("", properties, settings);
        settings.keySet().removeIf(key -> key.startsWith("spring.")); // the starter's, not turnstile.yaml's
        return new Read(ContentEngine.readConfig(SOURCE, settings, Path.of("").toAbsolutePath()), properties.spring());
    }

    /**
     * A key no field binds, said as turnstile.yaml's unknown key is: its path with the keys of the
     * file, and the keys known at its level.
     */
    private static EngineRuntimeException unknownKey(ConfigurationProperty property) {
        FileKey key = FileKey.of(property.getName());
        return EngineRuntimeException.configInvalid(SOURCE, key.path(), String.valueOf(property.getValue()),
                key.known() == null ? "unknown key" : "unknown key; known keys here are " + key.known());
    }

    /**
     * The key path in turnstile.yaml's words of a {@code turnstile.*} name in any of Spring's forms
     * ({@code tree-locks.lease}, {@code TREELOCKS_LEASE} → {@code treeLocks.lease}); a record
     * component's name is its key. {@code known}: the keys at the level where an element matches none, else null.
     */
    private record FileKey(String path, Set<String> known) {
        static FileKey of(ConfigurationPropertyName name) {
            StringBuilder path = new StringBuilder();
            Class<?> level = TurnstileProperties.class;
            for (int i = 1; i < name.getNumberOfElements(); i++) {
                String element = name.getElement(i, ConfigurationPropertyName.Form.UNIFORM);
                path.append(path.isEmpty() ? "" : ".");
                RecordComponent key = level == null ? null : Arrays.stream(level.getRecordComponents())
                        .filter(c -> c.getName().equalsIgnoreCase(element)).findFirst().orElse(null);
                if (key == null) {
                    path.append(name.getElement(i, ConfigurationPropertyName.Form.ORIGINAL));
                    if (level != null) {
                        Set<String> known = new TreeSet<>();
                        Arrays.stream(level.getRecordComponents()).forEach(c -> known.add(c.getName()));
                        return new FileKey(path.toString(), known);
                    }
                    continue;
                }
                path.append(key.getName());
                level = key.getType().isRecord() ? key.getType() : null;
                if (Map.class.isAssignableFrom(key.getType()) && i + 1 < name.getNumberOfElements()) {
                    // the next element is a name in the map (a policy, a series, a type), then that entry's keys
                    path.append('.').append(name.getElement(++i, ConfigurationPropertyName.Form.ORIGINAL));
                    level = (Class<?>) ((ParameterizedType) key.getGenericType()).getActualTypeArguments()[1];
                }
            }
            return new FileKey(path.toString(), null);
        }
    }

    /** Each set value of {@code section} at its key path: a component's name is its key in turnstile.yaml. */
    private static void flatten(String path, Record section, Map<String, String> settings) {
        for (RecordComponent key : section.getClass().getRecordComponents()) {
            try {
                add(path + key.getName(), key.getAccessor().invoke(section), settings);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    private static void add(String path, Object value, Map<String, String> settings) {
        if (value == null) {
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, each) -> add(path + "." + key, each, settings));
        } else if (value instanceof List<?> list) {
            for (int i = 0; i < list.size(); i++) {
                add(path + "[" + i + "]", list.get(i), settings);
            }
        } else if (value instanceof Record section) {
            flatten(path + ".", section, settings);
        } else {
            settings.put(path, value.toString()); // a Duration as ISO-8601, which the engine reads
        }
    }

    /**
     * A text key given a YAML number or boolean is refused, as turnstile.yaml refuses it: YAML 1.1
     * (what Spring reads application.yaml with) turns {@code 0123} into 83 and {@code on} into true
     * before any binder sees the text.
     */
    private static final class TextStaysText extends AbstractBindHandler {
        @Override
        public Object onSuccess(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Object result) {
            ConfigurationProperty property = context.getConfigurationProperty();
            Object raw = property == null ? null : property.getValue();
            if (target.getType().resolve() == String.class && (raw instanceof Number || raw instanceof Boolean)) {
                throw EngineRuntimeException.configInvalid(SOURCE, FileKey.of(name).path(), raw,
                        "must be text, and YAML reads this unquoted value as the " + (raw instanceof Boolean ? "boolean " : "number ")
                                + raw + ": put it in quotes");
            }
            return super.onSuccess(name, target, context, result);
        }
    }
}
