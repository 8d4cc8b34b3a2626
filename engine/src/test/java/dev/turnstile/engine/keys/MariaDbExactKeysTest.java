package dev.turnstile.engine.keys;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbExactKeysTest extends AbstractExactKeysTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
