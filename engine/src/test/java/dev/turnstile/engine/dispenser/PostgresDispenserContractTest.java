package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresDispenserContractTest extends AbstractDispenserContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected boolean takesInOneStatement() {
        return true;
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }
}
