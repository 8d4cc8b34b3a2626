package dev.turnstile.engine.host;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresHostTransactionTest extends AbstractHostTransactionTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
