package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresDatabaseRestartIT extends AbstractDatabaseRestartTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected void restartDatabase() throws Exception {
        DatabaseServers.restartPostgres(config());
    }
}
