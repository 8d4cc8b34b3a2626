package dev.turnstile.engine.locks;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import dev.turnstile.engine.TurnstileMetrics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On PostgreSQL an unlock in one process wakes the lock's waiters in another at once (the unlock's
 * UPDATE sends a NOTIFY, delivered at its commit): here the waiter's policy waits five minutes
 * between attempts, and it holds the lock within a minute of the other process's unlock. MariaDB
 * and H2 have no notifications; there a waiter tries again after its policy's wait.
 */
class PostgresLockWakeUpTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @Test
    void anUnlockInAnotherProcess_wakesTheWaiterHere_beforeItsNextAttempt() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        EngineConfig config = EngineConfig.from(pg)
                .retryPolicy("slow-poll", RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMinutes(5)).build())
                .build();
        String cls = "WakeUp" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (ContentEngine engine = ContentEngine.open(config)) {
            ObjectStore os = engine.session("parent").objectStore();
            os.defineClass(cls, c -> c.integer32("Counter"));
            CustomObject o = os.createCustomObject(cls);
            o.save(RefreshMode.REFRESH);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            new TurnstileMetrics(engine).bindTo(registry);
            RetryPolicy slow = engine.retryPolicies().get("slow-poll");
            try (ChildJvm holder = ChildJvm.start(LockWorker.class, pg.jdbcUrl(), pg.username(), pg.password(), cls,
                    o.getId().toString(), "hand-over", "600")) {
                holder.awaitLine("LOCKED"::equals, STARTUP);
                Future<?> waiting = pool.submit(() -> Locking.lockWithRetry(o, 30, "parent's", slow));
                Awaitility.await("refused once").atMost(STARTUP).until(() -> refusals(registry) > 0);
                holder.send("UNLOCK");
                holder.awaitLine("UNLOCKED"::equals, STARTUP);
                waiting.get(60, TimeUnit.SECONDS); // without the note, the next attempt is 5 minutes away
                assertThat(slow.metrics().successfulWithRetry()).isEqualTo(1);
                assertThat(o.getLockOwner()).isEqualTo("parent's");
                holder.send("EXIT");
                assertThat(holder.awaitExit(STARTUP)).isZero();
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private static double refusals(SimpleMeterRegistry registry) {
        return registry.get("turnstile.lock.acquire").tag("outcome", "refused").functionCounter().count();
    }
}
