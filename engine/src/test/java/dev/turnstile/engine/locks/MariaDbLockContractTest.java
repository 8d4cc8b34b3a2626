package dev.turnstile.engine.locks;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbLockContractTest extends AbstractLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
