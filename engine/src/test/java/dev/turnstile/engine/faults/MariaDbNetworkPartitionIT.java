package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class MariaDbNetworkPartitionIT extends AbstractNetworkPartitionIT {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }
}
