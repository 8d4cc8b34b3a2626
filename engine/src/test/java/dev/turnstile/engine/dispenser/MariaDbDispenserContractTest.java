package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbDispenserContractTest extends AbstractDispenserContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
