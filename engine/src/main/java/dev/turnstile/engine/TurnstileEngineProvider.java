package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.config.EngineConfigFile;
import dev.turnstile.spi.EngineProvider;

import java.nio.file.Path;

/** Found by {@link java.util.ServiceLoader} when {@link ContentEngine#open} is called. */
public final class TurnstileEngineProvider implements EngineProvider {
    @Override
    public ContentEngine open(EngineConfig config) {
        return new DefaultContentEngine(config);
    }

    @Override
    public ContentEngine open(Path configFile) {
        return open(readConfig(configFile));
    }

    @Override
    public EngineConfig readConfig(Path configFile) {
        return EngineConfigFile.read(configFile);
    }
}
