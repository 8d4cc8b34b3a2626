package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

/** The multi-process proofs on a 3-node Galera cluster, every child process on a node of its own. */
class GaleraMultiProcessDispenserTest extends AbstractMultiProcessDispenserTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.galera(1);
    }

    /** Fewer than on one server: an optimistic strategy takes about 20 numbers/s across nodes (docs/BENCHMARKS.md). */
    @Override
    protected int perProcess() {
        return 500;
    }

    @Override
    protected EngineConfig config(int process) {
        return TestDatabases.galeraForProcess(process);
    }
}
