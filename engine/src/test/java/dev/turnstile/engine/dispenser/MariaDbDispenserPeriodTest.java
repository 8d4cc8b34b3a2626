package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbDispenserPeriodTest extends AbstractDispenserPeriodTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
