package dev.turnstile.engine.changes;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbChangeFeedContractTest extends AbstractChangeFeedContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
