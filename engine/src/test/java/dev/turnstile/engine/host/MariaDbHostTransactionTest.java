package dev.turnstile.engine.host;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

@Tag("mariadb")
class MariaDbHostTransactionTest extends AbstractHostTransactionTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }

    /** MariaDB Connector/J takes {@code Connection.setReadOnly} as a hint outside its failover modes: the server writes. */
    @Override
    protected boolean enforcesReadOnly() {
        return false;
    }
}
