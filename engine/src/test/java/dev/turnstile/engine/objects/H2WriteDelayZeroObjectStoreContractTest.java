package dev.turnstile.engine.objects;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

/**
 * The object contract on an H2 file that writes each commit to disk before it answers it
 * ({@code WRITE_DELAY=0}), as a host that will not lose an answered commit sets it. There, at READ
 * COMMITTED, H2 (2.3.232 to 2.5.252) let a transaction that had waited for another's row lock and
 * then rolled back put the row back as it was before that other's commit: racing saves lost
 * updates and the article's listings issued numbers twice (issue 16).
 */
class H2WriteDelayZeroObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        EngineConfig h2 = TestDatabases.h2("write-delay-zero");
        return EngineConfig.from(h2).jdbcUrl(h2.jdbcUrl() + ";WRITE_DELAY=0").build();
    }
}
