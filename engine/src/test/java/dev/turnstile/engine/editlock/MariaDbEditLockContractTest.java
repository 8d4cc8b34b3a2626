package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbEditLockContractTest extends AbstractEditLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
