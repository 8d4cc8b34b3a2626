package dev.turnstile.engine.clock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbClockStepTest extends AbstractClockStepTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
