package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbExpiryContractTest extends AbstractExpiryContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
