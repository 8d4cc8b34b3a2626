package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresDispenserPeriodTest extends AbstractDispenserPeriodTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
