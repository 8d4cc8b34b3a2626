package dev.turnstile.engine.clock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresClockStepTest extends AbstractClockStepTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
