package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2DispenserContractTest extends AbstractDispenserContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("dispensers");
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }
}
