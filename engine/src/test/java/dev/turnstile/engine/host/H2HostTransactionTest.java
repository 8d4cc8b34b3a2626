package dev.turnstile.engine.host;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2HostTransactionTest extends AbstractHostTransactionTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("host-transactions");
    }

    /** H2 takes {@code Connection.setReadOnly} as a hint and writes anyway: there is nothing to refuse. */
    @Override
    protected boolean enforcesReadOnly() {
        return false;
    }
}
