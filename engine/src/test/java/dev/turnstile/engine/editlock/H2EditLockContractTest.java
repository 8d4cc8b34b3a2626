package dev.turnstile.engine.editlock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2EditLockContractTest extends AbstractEditLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("editlocks");
    }
}
