package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresExpiryContractTest extends AbstractExpiryContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
