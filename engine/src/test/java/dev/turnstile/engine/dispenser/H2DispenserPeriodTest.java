package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2DispenserPeriodTest extends AbstractDispenserPeriodTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("dispenser-periods");
    }
}
