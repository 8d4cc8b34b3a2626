package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbMultiProcessTreeLockTest extends AbstractMultiProcessTreeLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
