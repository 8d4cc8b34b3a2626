package dev.turnstile.spring;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.changes.ChangeDispatcher;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * {@code turnstile}: UP while the engine's database answers and no change dispatcher keeps failing;
 * the details name the database and each dispatcher (running, failed passes in a row).
 */
public class TurnstileHealthIndicator extends AbstractHealthIndicator {
    /** Passes a dispatcher may fail in a row (a database restart costs one or two) before the engine is DOWN. */
    static final int FAILED_PASSES_DOWN = 3;
    private static final int VALID_TIMEOUT_SECONDS = 2;
    private final ContentEngine engine;
    private final DataSource dataSource;

    public TurnstileHealthIndicator(ContentEngine engine, DataSource dataSource) {
        super("Turnstile health check failed");
        this.engine = engine;
        this.dataSource = dataSource;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            if (!c.isValid(VALID_TIMEOUT_SECONDS)) {
                builder.down().withDetail("database", "no answer within " + VALID_TIMEOUT_SECONDS + " s");
                return;
            }
            builder.withDetail("database", c.getMetaData().getDatabaseProductName());
        }
        boolean failing = false;
        Map<String, String> dispatchers = new LinkedHashMap<>();
        for (ChangeDispatcher d : engine.changes().dispatchers()) {
            dispatchers.put(d.name(), (d.isRunning() ? "running" : "stopped") + ", " + d.failedPasses() + " failed passes in a row");
            failing |= d.failedPasses() >= FAILED_PASSES_DOWN;
        }
        builder.withDetail("dispatchers", dispatchers);
        if (failing) {
            builder.down();
        } else {
            builder.up();
        }
    }
}
