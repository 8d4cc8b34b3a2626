package dev.turnstile.engine.clock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbClockStepTest extends AbstractClockStepTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
