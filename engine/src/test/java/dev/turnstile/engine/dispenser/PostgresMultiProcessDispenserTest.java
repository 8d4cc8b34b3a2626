package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresMultiProcessDispenserTest extends AbstractMultiProcessDispenserTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
