package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbAnswerLostTest extends AbstractAnswerLostTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
