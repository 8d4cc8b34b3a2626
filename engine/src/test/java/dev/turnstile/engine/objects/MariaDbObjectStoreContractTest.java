package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
