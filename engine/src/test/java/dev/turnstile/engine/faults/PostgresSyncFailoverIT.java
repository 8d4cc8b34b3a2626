package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.LogCapture;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart test on a PostgreSQL primary with a synchronous standby, the engine on a multi-host
 * URL with {@code targetServerType=primary}. The "restart" is the worst moment to lose the primary:
 * its WAL sender is paused, so commits have been written on the primary and wait for the standby;
 * then the primary is SIGKILLed and the standby promoted. Those commits were never answered, so
 * their numbers may be issued again without any caller having seen them twice: nothing reaches a
 * caller twice, keyed numbers stay exactly 1..N, every process goes on on the new primary.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Tag("faults")
class PostgresSyncFailoverIT extends AbstractDatabaseRestartTest {
    @BeforeAll
    static void startPrimaryAndSynchronousStandby() throws Exception {
        DatabaseServers.pgFailover("start", "sync");
    }

    @AfterAll
    static void stopThem() throws Exception {
        DatabaseServers.pgFailover("stop");
    }

    @Test
    @Order(1) // before the failover leaves a primary without standbys
    void openingOnThePrimary_doesNotWarn() throws Exception {
        assertThat(DatabaseServers.replicationStates(TestDatabases.postgresFailoverFirstPrimary())).containsExactly("streaming sync");
        try (LogCapture log = new LogCapture("dev.turnstile.engine.db.Replication");
             ContentEngine ignored = ContentEngine.open(config())) {
            assertThat(log.lines()).isEmpty();
        }
    }

    @Override
    protected EngineConfig config() {
        return TestDatabases.postgresFailover();
    }

    @Override
    protected void restartDatabase() throws Exception {
        DatabaseServers.pgFailover("pause");
        DatabaseServers.awaitCommitWaitingForStandby(TestDatabases.postgresFailoverFirstPrimary());
        DatabaseServers.pgFailover("fail");
    }
}
