package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2MultiProcessDispenserTest extends AbstractMultiProcessDispenserTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("dispensers-multiprocess");
    }
}
