package dev.turnstile.spi;

import dev.turnstile.api.ConfigCheck;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;

import java.nio.file.Path;
import java.util.Map;

/** Implemented by the engine and listed in {@code META-INF/services/dev.turnstile.spi.EngineProvider}. */
public interface EngineProvider {
    /** Opens an engine configured in code. */
    ContentEngine open(EngineConfig config);

    /** Opens an engine configured by a {@code turnstile.yaml} file. */
    ContentEngine open(Path configFile);

    /** Reads and checks a {@code turnstile.yaml} without opening anything. */
    EngineConfig readConfig(Path configFile);

    /** Reads the keys of {@code turnstile.yaml} from other settings (see {@link ContentEngine#readConfig(String, Map, Path)}). */
    EngineConfig readConfig(String source, Map<String, String> settings, Path baseDir);

    /** Checks a {@code turnstile.yaml} as an open would, without opening anything; every error found. */
    ConfigCheck checkConfig(Path configFile);
}
