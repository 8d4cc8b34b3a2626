package dev.turnstile.micrometer;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.TestDatabases;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The Micrometer meters count what the engine did, read when scraped. */
class TurnstileMetricsTest {
    @Test
    void theMeters_countRetries_numbers_conflicts_locks_treeLocks_feedLag_statements_andThePool() {
        String tag = UUID.randomUUID().toString().substring(0, 8);
        EngineConfig config = EngineConfig.from(TestDatabases.h2("metrics-" + tag)).changes(ChangesConfig.of(true))
                .retry(RetryPoliciesConfig.builder().policy("flaky", RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMillis(1))
                        .retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_LOCKED)).build()).build())
                .build();
        try (ContentEngine engine = ContentEngine.open(config)) {
            var admin = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE));
            admin.dispensers().create("m", DispenserConfig.builder().build());
            engine.changes().registerClient("c-" + tag, ChangeFilter.classes("Document"), DeliveryMode.QUEUE);
            SimpleMeterRegistry registry = new SimpleMeterRegistry();
            // region metrics
            new TurnstileMetrics(engine).bindTo(registry);   // dev.turnstile.micrometer.TurnstileMetrics
            // endregion

            var combining = engine.session("u").dispensers().get("m", DispenserConfig.builder().strategy(DispenserStrategy.COMBINING).build());
            var pessimistic = engine.session("u").dispensers().get("m", DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build());
            for (int i = 0; i < 5; i++) {
                combining.next();
            }
            pessimistic.next(3);
            // Another engine user's save in between: the combiner's remembered counter is stale, one race lost.
            pessimistic.next();
            combining.next();

            AtomicInteger calls = new AtomicInteger();
            engine.retryPolicies().get("flaky").call(() -> {
                if (calls.incrementAndGet() < 3) {
                    throw EngineRuntimeException.of(ExceptionCode.E_OBJECT_LOCKED, "busy");
                }
                return null;
            });

            var os = engine.session("u").objectStore();
            os.defineClass("Counted" + tag, c -> c.integer32("N"));
            var counted = os.createCustomObject("Counted" + tag);
            counted.save(dev.turnstile.api.RefreshMode.REFRESH);
            counted.lock(60, "metrics");
            counted.save(dev.turnstile.api.RefreshMode.REFRESH);
            var other = engine.session("v").objectStore().getCustomObject("Counted" + tag, counted.getId());
            other.lock(60, "refused");
            assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(EngineRuntimeException.class,
                    () -> other.save(dev.turnstile.api.RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
            counted.unlock();
            counted.save(dev.turnstile.api.RefreshMode.REFRESH);

            TreePath site = TreePath.root("site", tag);
            try (TreeLockHandle held = engine.session("a").treeLocks().lock(Set.of(site), Duration.ofSeconds(30))) {
                assertThat(engine.session("b").treeLocks().tryLock(dev.turnstile.api.treelock.TreeLockRequest.exclusive(site))).isEmpty();
            }
            engine.session("u").objectStore().createDocument("Document").save(dev.turnstile.api.RefreshMode.REFRESH);

            assertThat(registry.get("turnstile.dispenser.numbers").tag("strategy", "combining").functionCounter().count()).isEqualTo(6);
            assertThat(registry.get("turnstile.dispenser.numbers").tag("strategy", "pessimistic").functionCounter().count()).isEqualTo(4);
            assertThat(registry.get("turnstile.dispenser.conflicts").tag("strategy", "combining").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("turnstile.retry.calls").tags("policy", "flaky", "outcome", "successful_with_retry")
                    .functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("turnstile.retry.attempts").tag("policy", "flaky").functionCounter().count()).isEqualTo(3);
            assertThat(registry.get("turnstile.lock.acquire").tag("outcome", "granted").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("turnstile.lock.acquire").tag("outcome", "refused").functionCounter().count()).isEqualTo(1);
            assertThat(registry.get("turnstile.lock.held").functionTimer().count()).isEqualTo(1);
            FunctionTimer granted = registry.get("turnstile.treelock.acquire").tag("outcome", "granted").functionTimer();
            FunctionTimer refused = registry.get("turnstile.treelock.acquire").tag("outcome", "refused").functionTimer();
            assertThat(granted.count()).isEqualTo(1);
            assertThat(refused.count()).isEqualTo(1);
            assertThat(granted.totalTime(TimeUnit.NANOSECONDS)).isPositive();
            assertThat(registry.get("turnstile.changes.pending").tag("client", "c-" + tag).gauge().value()).isEqualTo(1);
            assertThat(registry.get("turnstile.db.statements").tag("kind", "update").functionCounter().count()).isPositive();
            assertThat(registry.get("turnstile.db.transactions").functionCounter().count()).isPositive();
            assertThat(registry.get("turnstile.db.conflicts").functionCounter().count())
                    .isEqualTo((double) engine.statistics().conflicts());
            assertThat(registry.find("hikaricp.connections").gauge()).as("the engine's own pool's meters").isNotNull();
        }
    }
}
