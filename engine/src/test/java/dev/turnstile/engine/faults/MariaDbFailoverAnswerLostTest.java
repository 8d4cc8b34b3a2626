package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Tag;

/**
 * As on MariaDB, with the engine on a failover URL (MariaDB Connector/J's {@code sequential}), as
 * on a Galera cluster: when the proxy cuts, the driver moves the connection to the next host itself.
 */
@Tag("mariadb")
class MariaDbFailoverAnswerLostTest extends AbstractAnswerLostTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.mariadb();
    }

    @Override
    protected String urlThrough(AnswerCuttingProxy proxy) {
        String url = config().jdbcUrl();
        String server = url.substring("jdbc:mariadb://".length(), url.indexOf('/', "jdbc:mariadb://".length()));
        return proxy.url(url).replaceFirst("^jdbc:mariadb://([^/]+)/", "jdbc:mariadb:sequential://$1," + server + "/");
    }

    @Override
    protected boolean cutOffUntilRestored() {
        return false; // the driver moves to the next host at once
    }
}
