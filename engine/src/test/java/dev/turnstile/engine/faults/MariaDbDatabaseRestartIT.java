package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbDatabaseRestartIT extends AbstractDatabaseRestartTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }

    @Override
    protected void restartDatabase() throws Exception {
        DatabaseServers.restartMariaDb(config());
    }
}
