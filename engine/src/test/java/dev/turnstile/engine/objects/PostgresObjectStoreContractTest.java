package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }
}
