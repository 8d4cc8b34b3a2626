package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class PostgresTreeLockContractTest extends AbstractTreeLockContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }
}
