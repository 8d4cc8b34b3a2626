package dev.turnstile.engine.clock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2ClockStepTest extends AbstractClockStepTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("clock-steps");
    }
}
