package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

/** The multi-process proofs on a 3-node Galera cluster, every child process on a node of its own. */
class GaleraMultiProcessObjectStoreTest extends AbstractMultiProcessObjectStoreTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.galera(1);
    }

    @Override
    protected EngineConfig config(int process) {
        return TestDatabases.galeraForProcess(process);
    }
}
