package dev.turnstile.engine.changes;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbMultiProcessChangeFeedTest extends AbstractMultiProcessChangeFeedTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
