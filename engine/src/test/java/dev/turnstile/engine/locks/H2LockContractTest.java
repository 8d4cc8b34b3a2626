package dev.turnstile.engine.locks;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2LockContractTest extends AbstractLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("locks");
    }

    @Override
    protected long statementsOfALockRequest() {
        return 1; // the UPDATE with the lock rule in its WHERE, returning the row it wrote (FINAL TABLE)
    }
}
