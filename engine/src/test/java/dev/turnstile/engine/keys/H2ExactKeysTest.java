package dev.turnstile.engine.keys;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

class H2ExactKeysTest extends AbstractExactKeysTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("exact-keys");
    }
}
