package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresAnswerLostTest extends AbstractAnswerLostTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }
}
