package dev.turnstile.engine.host;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbHostTransactionTest extends AbstractHostTransactionTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
