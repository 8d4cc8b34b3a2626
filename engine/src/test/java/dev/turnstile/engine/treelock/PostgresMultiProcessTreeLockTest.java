package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresMultiProcessTreeLockTest extends AbstractMultiProcessTreeLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
