package dev.turnstile.api;

import dev.turnstile.spi.EngineProvider;

import java.nio.file.Path;
import java.util.ServiceLoader;

/**
 * The entry point: an engine on one database. Open it once per process and share it; close it when
 * the application stops. The implementation is found on the class path through
 * {@link ServiceLoader} ({@link EngineProvider}).
 */
public interface ContentEngine extends AutoCloseable {

    /** Opens an engine configured by a {@code turnstile.yaml} file. */
    static ContentEngine open(Path configFile) {
        return provider().open(configFile);
    }

    static ContentEngine open(EngineConfig config) {
        return provider().open(config);
    }

    private static EngineProvider provider() {
        return ServiceLoader.load(EngineProvider.class).findFirst()
                .orElseThrow(() -> EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID,
                        "No Turnstile engine on the class path: add dev.turnstile:turnstile-engine"));
    }

    /** A session for a user the host application has authenticated. */
    Session session(String user);

    EngineConfig config();

    EngineStatistics statistics();

    @Override
    void close();
}
