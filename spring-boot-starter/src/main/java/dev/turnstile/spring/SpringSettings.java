package dev.turnstile.spring;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.config.EngineConfigFile;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.EnumerablePropertySource;
import org.springframework.core.env.PropertySource;

import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code turnstile.*} properties of a Spring environment (application.yaml, profiles, system
 * properties; an environment variable through a placeholder) read with the keys of turnstile.yaml and
 * the same checks: an unknown key or a bad value fails the start, naming the key and the value.
 */
final class SpringSettings {
    static final String PREFIX = "turnstile.";
    static final String SOURCE = "the Spring environment (turnstile.*)";
    /** The engine runs on the application's DataSource: these would configure a pool of its own. */
    private static final Set<String> POOL_KEYS = Set.of("database.url", "database.username", "database.password",
            "database.maxPoolSize", "database.connectionTimeout");

    private SpringSettings() {
    }

    static EngineConfig read(ConfigurableEnvironment environment) {
        Map<String, String> settings = new TreeMap<>();
        for (PropertySource<?> source : environment.getPropertySources()) {
            if (source instanceof EnumerablePropertySource<?> enumerable) {
                for (String name : enumerable.getPropertyNames()) {
                    if (name.startsWith(PREFIX)) {
                        // The first source holding a key wins, as in the environment; its value with placeholders resolved.
                        settings.computeIfAbsent(name.substring(PREFIX.length()), key -> environment.getProperty(name));
                    }
                }
            }
        }
        for (String key : settings.keySet()) {
            if (POOL_KEYS.contains(key)) {
                throw EngineRuntimeException.configInvalid(SOURCE, key, settings.get(key), "Turnstile runs on the application's"
                        + " DataSource and joins its transactions: configure the database under spring.datasource.*");
            }
        }
        return EngineConfigFile.read(SOURCE, settings, Path.of("").toAbsolutePath());
    }
}
