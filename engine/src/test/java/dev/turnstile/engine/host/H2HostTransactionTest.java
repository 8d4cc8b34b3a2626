package dev.turnstile.engine.host;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2HostTransactionTest extends AbstractHostTransactionTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("host-transactions");
    }
}
