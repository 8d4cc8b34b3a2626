package dev.turnstile.engine.locks;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbMultiProcessLockTest extends AbstractMultiProcessLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
