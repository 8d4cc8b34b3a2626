package dev.turnstile.engine.changes;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2MultiProcessChangeFeedTest extends AbstractMultiProcessChangeFeedTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("changes-mp");
    }
}
