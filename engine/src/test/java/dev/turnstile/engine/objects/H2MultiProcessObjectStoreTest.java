package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2MultiProcessObjectStoreTest extends AbstractMultiProcessObjectStoreTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("multiprocess");
    }
}
