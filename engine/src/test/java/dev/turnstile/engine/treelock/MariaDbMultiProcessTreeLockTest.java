package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbMultiProcessTreeLockTest extends AbstractMultiProcessTreeLockTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
