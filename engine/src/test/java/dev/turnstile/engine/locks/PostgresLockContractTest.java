package dev.turnstile.engine.locks;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresLockContractTest extends AbstractLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected long statementsOfALockRequest() {
        return 1; // the UPDATE with the lock rule in its WHERE, reporting the row it found if it wrote nothing
    }
}
