package dev.turnstile.engine;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.LockStatistics;
import dev.turnstile.api.Session;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.retry.RetryExhaustedException;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.changes.DefaultChangeFeed;
import dev.turnstile.engine.config.EngineConfigFile;
import dev.turnstile.engine.retry.PolicyRead;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.dispenser.DispenserServices;
import dev.turnstile.engine.editlock.DefaultEditLocks;
import dev.turnstile.engine.editlock.EditLockService;
import dev.turnstile.engine.locks.CooperativeLocks;
import dev.turnstile.engine.objects.ObjectStoreServices;
import dev.turnstile.engine.retry.DefaultRetryPolicies;
import dev.turnstile.engine.retry.PolicyFileWatch;
import dev.turnstile.engine.retry.RetryWaits;
import dev.turnstile.engine.treelock.DefaultTreeLocks;
import dev.turnstile.engine.treelock.TreeLockService;
import dev.turnstile.spi.OperationObserver;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/** The engine: one database and the capabilities built on it. */
final class DefaultContentEngine implements ContentEngine {
    static final int MAX_USER_LENGTH = 128;

    private final EngineConfig config;
    private final Database database;
    private final CooperativeLocks locks;
    private final LockBreaks breaks;
    private final ObjectStoreServices objects;
    private final DefaultRetryPolicies retryPolicies;
    private final PolicyFileWatch policyWatch;
    private final DispenserServices dispensers;
    private final TreeLockService treeLocks;
    private final DefaultChangeFeed changes;
    private final EditLockService editLocks;

    /** Retry policies wait on the engine's wake-ups: a refused cooperative lock's wait ends at its unlock. */
    private static final RetryWaits WAKE_UPS = new RetryWaits() {
        @Override
        public <T> T call(Supplier<T> attempts) {
            return WakeUps.retrying(attempts);
        }

        @Override
        public void awaitAfter(Throwable failure, long millis) throws InterruptedException {
            WakeUps.awaitAfter(failure, millis);
        }
    };

    /** Reads the engine's files again for a reload: none for a configuration built in code or bound from a Spring environment. */
    private static Supplier<PolicyRead> files(EngineConfig config) {
        if (config.source() == null || config.source().equals("builder") || !java.nio.file.Files.isRegularFile(Path.of(config.source()))) {
            return null;
        }
        Path file = Path.of(config.source());
        return () -> EngineConfigFile.load(file).policies();
    }

    /**
     * What is checked before any connection is made: the policies (their exception classes), and
     * every policy a capability names. {@code errors}: null to throw the first error, else each is
     * handed to it; the policies are returned either way (null if they could not be built).
     */
    static DefaultRetryPolicies checkBeforeOpening(EngineConfig config, java.util.function.Consumer<EngineRuntimeException> errors) {
        DefaultRetryPolicies policies;
        try {
            policies = new DefaultRetryPolicies(config.retry().policies(), config.source(), config.hostTransactions(), files(config),
                    WAKE_UPS);
        } catch (EngineRuntimeException e) {
            if (errors == null) {
                throw e;
            }
            errors.accept(e);
            return null;
        }
        List<Runnable> checks = List.of(() -> {
            if (!policies.names().contains(config.treeLocks().retryPolicy())) {
                throw EngineRuntimeException.configInvalid(config.source(), "treeLocks.retryPolicy", config.treeLocks().retryPolicy(),
                        "no such retry policy; known policies are " + policies.names());
            }
        }, () -> DispenserServices.checkConfigured(config.source(), config.dispensers().series(), policies.names()));
        for (Runnable check : checks) {
            try {
                check.run();
            } catch (EngineRuntimeException e) {
                if (errors == null) {
                    throw e;
                }
                errors.accept(e);
            }
        }
        return policies;
    }

    /**
     * Opens an engine. Its policies are checked first: a bad one fails the open before any
     * connection is made. The open's database work (the pool, the schema, the system classes, the
     * configured series) then waits out a lost connection — a failover, a restart — as a dispenser
     * call does, within the {@value DefaultRetryPolicies#DISPENSER} policy's {@code maxTotalWait}
     * (a minute by default), and names the database and its user when it gives up.
     */
    static DefaultContentEngine open(EngineConfig config) {
        DefaultRetryPolicies policies = checkBeforeOpening(config, null);
        if (config.retry().reloadWatch() && files(config) == null) {
            throw EngineRuntimeException.configInvalid(config.source(), "retry.reload", "watch", "only an engine opened from a file can watch it");
        }
        RetryPolicyConfig waits = RetryPolicyConfig.from(policies.get(DefaultRetryPolicies.DISPENSER).config())
                .retryCodes(Set.of()).ignoreCodes(Set.of()).retryExceptions(Set.of(ConnectionLost.class.getName())).build();
        RetryPolicy outage = new DefaultRetryPolicies(Map.of(OPENING, waits), config.source()).get(OPENING);
        try {
            return outage.call(() -> {
                try {
                    return new DefaultContentEngine(config, policies);
                } catch (RuntimeException e) { // the schema's migration fails as Flyway's exception
                    throw Sql.isConnectionLost(e) ? new ConnectionLost(e) : e;
                }
            });
        } catch (RetryExhaustedException e) {
            if (!(e.getCause() instanceof ConnectionLost lost)) {
                throw e;
            }
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "Cannot open Turnstile on "
                    + (config.dataSource() == null ? config.jdbcUrl() + " as " + config.username() : "the host's DataSource")
                    + ": the connection was lost or refused for " + e.getElapsed().toMillis() + " ms (" + e.getAttempts()
                    + " attempts, the " + DefaultRetryPolicies.DISPENSER + " policy's maxTotalWait); last: "
                    + lost.getCause().getMessage(), lost.getCause());
        }
    }

    /** The retry policy of the open's outage waits, apart from the configured ones (and their metrics). */
    private static final String OPENING = "opening";

    /** A failure of the open that waiting may outlive: what the open's policy retries. */
    static final class ConnectionLost extends RuntimeException {
        ConnectionLost(RuntimeException cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private DefaultContentEngine(EngineConfig config, DefaultRetryPolicies retryPolicies) {
        this.config = config;
        this.retryPolicies = retryPolicies;
        List<Class<?>> entities = new ArrayList<>(ObjectStoreServices.ENTITIES);
        entities.addAll(DispenserServices.ENTITIES);
        entities.addAll(TreeLockService.ENTITIES);
        entities.addAll(DefaultChangeFeed.ENTITIES);
        entities.addAll(EditLockService.ENTITIES);
        entities.addAll(LockBreaks.ENTITIES);
        this.database = new Database(config, entities);
        try {
            this.breaks = new LockBreaks(database, config.locks().breakerRole());
            this.locks = new CooperativeLocks(database, config.locks().handOver());
            this.objects = new ObjectStoreServices(database, breaks, locks);
            this.dispensers = new DispenserServices(objects, database, retryPolicies, config.dispensers());
            this.treeLocks = new TreeLockService(database, retryPolicies, breaks, config);
            this.changes = new DefaultChangeFeed(database, objects, config.changes().enabled());
            this.editLocks = new EditLockService(database, objects, breaks, config);
            this.policyWatch = config.retry().reloadWatch() ? new PolicyFileWatch(retryPolicies, config.retry().policyFile() == null
                    ? List.of(Path.of(config.source())) : List.of(Path.of(config.source()), Path.of(config.retry().policyFile()))) : null;
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    @Override
    public Session session(String user, Set<String> roles) {
        if (user == null || user.isBlank() || user.length() > MAX_USER_LENGTH) {
            throw EngineRuntimeException.badArgument("user", user,
                    "must be a non-blank name of at most " + MAX_USER_LENGTH + " characters");
        }
        Set<String> copy = Set.copyOf(roles);
        return new DefaultSession(this, user, copy, objects.objectStore(user, copy), dispensers.dispensers(user, copy),
                new DefaultEditLocks(editLocks, user, copy), new DefaultTreeLocks(treeLocks, user, copy));
    }

    @Override
    public List<LockBreak> lockBreaks(int max) {
        return breaks.recent(max);
    }

    @Override
    public ChangeFeed changes() {
        return changes;
    }

    @Override
    public RetryPolicies retryPolicies() {
        return retryPolicies;
    }

    @Override
    public EngineConfig config() {
        return config;
    }

    Database database() {
        return database;
    }

    DispenserServices dispenserServices() {
        return dispensers;
    }

    @Override
    public EngineStatistics statistics() {
        return database.statistics();
    }

    @Override
    public LockStatistics lockStatistics() {
        return locks.counts().snapshot();
    }

    @Override
    public void observeWith(OperationObserver observer) {
        objects.operations.observeWith(observer);
    }

    @Override
    public boolean bindPoolMetrics(Object registry) {
        return database.bindPoolMetrics(registry);
    }

    @Override
    public void close() {
        if (policyWatch != null) {
            policyWatch.close();
        }
        changes.stopDispatchers();
        dispensers.close();
        database.close();
    }

    @Override
    public String toString() {
        return "ContentEngine[" + config.jdbcUrl() + ", " + database.productName() + "]";
    }
}
