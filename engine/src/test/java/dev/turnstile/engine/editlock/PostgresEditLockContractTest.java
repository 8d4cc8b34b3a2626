package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresEditLockContractTest extends AbstractEditLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
