package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2MultiProcessTreeLockTest extends AbstractMultiProcessTreeLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("treelocks-mp");
    }
}
