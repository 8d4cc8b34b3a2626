package dev.turnstile.engine.locks;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2MultiProcessLockTest extends AbstractMultiProcessLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("locks-multiprocess");
    }
}
