package dev.turnstile.engine;

import dev.turnstile.api.ConfigCheck;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.config.EngineConfigFile;
import dev.turnstile.engine.db.HibernateVersion;
import dev.turnstile.engine.retry.DefaultRetryPolicies;
import dev.turnstile.spi.EngineProvider;

import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/** Found by {@link java.util.ServiceLoader} when {@link ContentEngine#open} is called. */
public final class TurnstileEngineProvider implements EngineProvider {
    @Override
    public ContentEngine open(EngineConfig config) {
        HibernateVersion.check(); // before a class of the engine that needs Hibernate 7 is loaded
        return DefaultContentEngine.open(config);
    }

    @Override
    public ContentEngine open(Path configFile) {
        EngineConfigFile.Loaded file = EngineConfigFile.load(configFile);
        // What an open refuses of the file (a policy a capability names) is placed at its line too.
        return file.places().placing(() -> open(file.config()));
    }

    @Override
    public EngineConfig readConfig(Path configFile) {
        return EngineConfigFile.read(configFile);
    }

    @Override
    public EngineConfig readConfig(String source, Map<String, String> settings, Path baseDir) {
        return EngineConfigFile.read(source, settings, baseDir);
    }

    @Override
    public ConfigCheck checkConfig(Path configFile) {
        Set<String> errors = new LinkedHashSet<>(); // one failed config named by several others says so once
        EngineConfigFile.Loaded file = EngineConfigFile.check(configFile, e -> errors.add(e.getMessage()));
        EngineConfig config = file.config();
        Map<String, RetryPolicyConfig> policies = new TreeMap<>();
        if (config != null) {
            DefaultRetryPolicies built = DefaultContentEngine.checkBeforeOpening(config,
                    e -> errors.add(file.places().place(e).getMessage()));
            if (built != null) {
                built.names().forEach(name -> policies.put(name, built.get(name).config()));
            }
        }
        return new ConfigCheck(configFile, List.copyOf(errors), policies);
    }
}
