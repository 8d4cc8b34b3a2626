package dev.turnstile.micrometer;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.retry.RetryMetrics;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.FunctionTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;

/**
 * A {@link ContentEngine}'s Micrometer meters, read through the plugin API. Every meter reads
 * counters the engine keeps anyway, at scrape time: binding costs the engine's callers nothing.
 *
 * <ul>
 * <li>{@code turnstile.retry.calls} {policy, outcome}, {@code turnstile.retry.attempts} {policy},
 *     {@code turnstile.retry.wait} {policy} (seconds spent waiting between attempts);</li>
 * <li>{@code turnstile.dispenser.numbers} and {@code turnstile.dispenser.conflicts} {strategy}: numbers
 *     issued, and take attempts another writer beat (a failed USN check, the counter's lock held);</li>
 * <li>{@code turnstile.lock.acquire} {outcome=granted|refused}: cooperative locks taken and refused;
 *     {@code turnstile.lock.held}: a timer of the locks taken and released through this engine;</li>
 * <li>{@code turnstile.treelock.acquire} {outcome=granted|refused}: a timer of the time to a grant or a refusal;</li>
 * <li>{@code turnstile.changes.pending} {client}: changes a feed client has not acknowledged (one query per
 *     scrape and client; the clients registered when bound);</li>
 * <li>{@code turnstile.db.transactions}, {@code turnstile.db.statements} {kind}, {@code turnstile.db.conflicts}
 *     (transactions aborted for a conflicting one and run again: logged nowhere);</li>
 * <li>HikariCP's own {@code hikaricp.*} meters when the engine owns its pool ({@link ContentEngine#bindPoolMetrics}).</li>
 * </ul>
 */
public final class TurnstileMetrics implements MeterBinder {
    private final ContentEngine engine;

    public TurnstileMetrics(ContentEngine engine) {
        this.engine = Objects.requireNonNull(engine, "engine");
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (String name : engine.retryPolicies().names()) {
            retryCounter(registry, name, "successful_without_retry", RetryMetrics::successfulWithoutRetry);
            retryCounter(registry, name, "successful_with_retry", RetryMetrics::successfulWithRetry);
            retryCounter(registry, name, "failed_without_retry", RetryMetrics::failedWithoutRetry);
            retryCounter(registry, name, "failed_with_retry", RetryMetrics::failedWithRetry);
            FunctionCounter.builder("turnstile.retry.attempts", engine, e -> metrics(e, name).attempts())
                    .description("Attempts the policy made, first ones included").tag("policy", name).register(registry);
            FunctionCounter.builder("turnstile.retry.wait", engine, e -> metrics(e, name).totalWait().toNanos() / 1e9)
                    .description("Time the policy waited between attempts").baseUnit("seconds").tag("policy", name).register(registry);
        }
        for (DispenserStrategy s : DispenserStrategy.values()) {
            String strategy = s.name().toLowerCase(Locale.ROOT);
            FunctionCounter.builder("turnstile.dispenser.numbers", engine, e -> e.dispensers().statistics(s).numbers())
                    .description("Numbers issued").tag("strategy", strategy).register(registry);
            FunctionCounter.builder("turnstile.dispenser.conflicts", engine, e -> e.dispensers().statistics(s).conflicts())
                    .description("Take attempts another writer beat").tag("strategy", strategy).register(registry);
        }
        FunctionCounter.builder("turnstile.lock.acquire", engine, e -> e.lockStatistics().granted())
                .description("Cooperative locks taken").tag("outcome", "granted").register(registry);
        FunctionCounter.builder("turnstile.lock.acquire", engine, e -> e.lockStatistics().refused())
                .description("Cooperative lock attempts refused: another holds it").tag("outcome", "refused").register(registry);
        FunctionTimer.builder("turnstile.lock.held", engine, e -> e.lockStatistics().released(),
                        e -> e.lockStatistics().held().toNanos(), TimeUnit.NANOSECONDS)
                .description("Cooperative locks taken and released through this engine, and how long they were held")
                .register(registry);
        FunctionTimer.builder("turnstile.treelock.acquire", engine, e -> e.treeLocks().statistics().granted(),
                        e -> e.treeLocks().statistics().grantedWait().toNanos(), TimeUnit.NANOSECONDS)
                .description("Tree lock requests granted, and the time to the grant").tag("outcome", "granted").register(registry);
        FunctionTimer.builder("turnstile.treelock.acquire", engine, e -> e.treeLocks().statistics().refused(),
                        e -> e.treeLocks().statistics().refusedWait().toNanos(), TimeUnit.NANOSECONDS)
                .description("Tree lock requests refused (timed out, or busy for tryLock)").tag("outcome", "refused").register(registry);
        if (engine.config().changes().enabled()) {
            for (String client : engine.changes().clients()) {
                Gauge.builder("turnstile.changes.pending", engine, e -> pending(e, client))
                        .description("Changes the feed client has not acknowledged").tag("client", client).register(registry);
            }
        }
        FunctionCounter.builder("turnstile.db.transactions", engine, e -> e.statistics().transactions())
                .description("Transactions the engine ran").register(registry);
        statements(registry, "select", EngineStatistics::selects);
        statements(registry, "insert", EngineStatistics::inserts);
        statements(registry, "update", EngineStatistics::updates);
        statements(registry, "delete", EngineStatistics::deletes);
        FunctionCounter.builder("turnstile.db.conflicts", engine, e -> e.statistics().conflicts())
                .description("Transactions the database aborted for a conflicting one, run again by the engine").register(registry);
        engine.bindPoolMetrics(registry);
    }

    private static RetryMetrics metrics(ContentEngine engine, String policy) {
        return engine.retryPolicies().get(policy).metrics();
    }

    private static double pending(ContentEngine engine, String client) {
        try {
            ClientLag lag = engine.changes().lag(client);
            return lag.pending();
        } catch (RuntimeException unregisteredOrDown) {
            return Double.NaN;
        }
    }

    private void retryCounter(MeterRegistry registry, String policy, String outcome, ToLongFunction<RetryMetrics> value) {
        FunctionCounter.builder("turnstile.retry.calls", engine, e -> value.applyAsLong(metrics(e, policy)))
                .description("Calls through the retry policy, by how they ended").tag("policy", policy).tag("outcome", outcome)
                .register(registry);
    }

    private void statements(MeterRegistry registry, String kind, ToLongFunction<EngineStatistics> value) {
        ToDoubleFunction<ContentEngine> read = e -> value.applyAsLong(e.statistics());
        FunctionCounter.builder("turnstile.db.statements", engine, read).description("Statements the engine sent")
                .tag("kind", kind).register(registry);
    }
}
