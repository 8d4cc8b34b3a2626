package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2ExpiryContractTest extends AbstractExpiryContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("expiry-contract");
    }
}
