package dev.turnstile.engine.dispenser;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

/**
 * The multi-process proofs on a 3-node Galera cluster as it is supported: a single writer, every
 * process with the same failover URL (README, "A MariaDB Galera cluster"; with a writer per
 * process Galera itself lost acknowledged commits, so a failure there would prove nothing of the engine).
 */
@Tag("galera")
class GaleraMultiProcessDispenserTest extends AbstractMultiProcessDispenserTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.galeraSingleWriter();
    }

    /** Fewer than on one server, for the suite's time: each commit waits for the cluster. */
    @Override
    protected int perProcess() {
        return 200;
    }
}
