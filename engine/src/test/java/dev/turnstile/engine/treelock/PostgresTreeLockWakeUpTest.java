package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On PostgreSQL a release in one process wakes the waiters of another at once (LISTEN/NOTIFY),
 * not at their next poll: here the waiter's policy waits five minutes between attempts, and it is
 * granted within a minute of the other process's release — without the note it would wait the
 * five minutes.
 */
class PostgresTreeLockWakeUpTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @Test
    void aReleaseInAnotherProcess_wakesTheWaiterHere_beforeItsNextPoll() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        EngineConfig config = EngineConfig.from(pg)
                .retryPolicy("slow-poll", RetryPolicyConfig.builder().maxAttempts(100).waitDuration(Duration.ofMinutes(5)).build())
                .treeLockRetryPolicy("slow-poll")
                .build();
        String site = UUID.randomUUID().toString().substring(0, 8);
        TreePath bench = TreePath.root("site", site).child("workshop", "A").child("bench", "1");
        try (ContentEngine engine = ContentEngine.open(config);
             ChildJvm holder = ChildJvm.start(TreeLockWorker.class, pg.jdbcUrl(), pg.username(), pg.password(), "hand-over", site)) {
            holder.awaitLine(l -> l.startsWith("LOCKED "), STARTUP);
            TreeLockService locks = ((DefaultTreeLocks) engine.treeLocks()).service();
            CompletableFuture<TreeLockHandle> waiting = CompletableFuture.supplyAsync(
                    () -> locks.lock(TreeLockRequest.exclusive(bench), "parent", Duration.ofMinutes(10)));
            // Queued at the head of its node: it has been refused once and waits for its next attempt.
            org.awaitility.Awaitility.await("the waiter queued").atMost(STARTUP).until(() -> locks.hasQueue(bench));
            assertThat(waiting).isNotDone();
            holder.send("RELEASE");
            holder.awaitLine("RELEASED"::equals, STARTUP);
            TreeLockHandle granted = waiting.get(60, TimeUnit.SECONDS);
            granted.unlock();
            holder.send("EXIT");
            assertThat(holder.awaitExit(STARTUP)).isZero();
        }
    }
}
