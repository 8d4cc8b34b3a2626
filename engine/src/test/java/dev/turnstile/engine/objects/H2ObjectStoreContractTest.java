package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2ObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("contract");
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }
}
