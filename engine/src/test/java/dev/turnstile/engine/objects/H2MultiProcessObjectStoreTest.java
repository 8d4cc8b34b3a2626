package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

import java.util.UUID;

class H2MultiProcessObjectStoreTest extends AbstractMultiProcessObjectStoreTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("multiprocess");
    }

    @Override
    protected EngineConfig freshDatabase() {
        return TestDatabases.h2("fresh-" + UUID.randomUUID());
    }
}
