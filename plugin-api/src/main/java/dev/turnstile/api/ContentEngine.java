package dev.turnstile.api;

import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.treelock.TreeLocks;

import dev.turnstile.spi.EngineProvider;
import dev.turnstile.spi.OperationObserver;

import java.nio.file.Path;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.Set;

/**
 * The entry point: an engine on one database. Open it once per process and share it; close it when
 * the application stops. The implementation is found on the class path through
 * {@link ServiceLoader} ({@link EngineProvider}).
 */
public interface ContentEngine extends AutoCloseable {

    /** Opens an engine configured by a {@code turnstile.yaml} file. */
    static ContentEngine open(Path configFile) {
        return provider().open(configFile);
    }

    /** Opens an engine configured in code. */
    static ContentEngine open(EngineConfig config) {
        return provider().open(config);
    }

    /**
     * Reads and checks a {@code turnstile.yaml} into a configuration, for a host that adds to it in
     * code (with {@link EngineConfig#from}) before opening.
     */
    static EngineConfig readConfig(Path configFile) {
        return provider().readConfig(configFile);
    }

    /**
     * Reads the keys of {@code turnstile.yaml} from another source of settings, such as a Spring
     * environment's {@code turnstile.*} properties, with the file's checks and messages:
     * {@code settings} maps each key path ({@code treeLocks.lease},
     * {@code retry.instances.x.retryExceptions[0]}) to its text; {@code source} names where they
     * came from in every error; a policy file is found from {@code baseDir}. No settings at all is
     * the defaults.
     */
    static EngineConfig readConfig(String source, Map<String, String> settings, Path baseDir) {
        return provider().readConfig(source, settings, baseDir);
    }

    /**
     * Checks a {@code turnstile.yaml} and its policy file as an open would, without opening the
     * database, and reports every error found rather than the first (for a deployment pipeline).
     */
    static ConfigCheck checkConfig(Path configFile) {
        return provider().checkConfig(configFile);
    }

    private static EngineProvider provider() {
        return ServiceLoader.load(EngineProvider.class).findFirst()
                .orElseThrow(() -> EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID,
                        "No Turnstile engine on the class path: add dev.turnstile:turnstile-engine"));
    }

    /** A session for a user the host application has authenticated. */
    default Session session(String user) {
        return session(user, Set.of());
    }

    /** A session whose user has these roles (for example {@link LockConfig#breakerRole()}). */
    Session session(String user, Set<String> roles);

    /** The user the engine itself acts as, for example in {@link #dispensers()}. */
    String SYSTEM_USER = "turnstile";

    /** The dispensers, taking numbers as {@link #SYSTEM_USER}; use a session's to record its user. */
    default Dispensers dispensers() {
        return session(SYSTEM_USER).dispensers();
    }

    /**
     * Locks on the nodes of hierarchies, shared with every process on this database, held as
     * {@link #SYSTEM_USER}; use a session's to hold them as its user.
     */
    default TreeLocks treeLocks() {
        return session(SYSTEM_USER).treeLocks();
    }

    /**
     * Web edit locks with heartbeat, timeout and paragraph granularity, held as {@link #SYSTEM_USER}
     * (for an operator's console: status, held locks, audit); an editor's locks are taken through
     * its own session's.
     */
    default EditLocks editLocks() {
        return session(SYSTEM_USER).editLocks();
    }

    /** The change feed of this engine's object store. */
    ChangeFeed changes();

    /** The latest {@code max} (1 to 10,000) locks of any kind an operator broke, newest first: who, when, why. */
    java.util.List<LockBreak> lockBreaks(int max);

    /** The named retry policies of the configuration, and {@value RetryPolicies#DEFAULT}. */
    RetryPolicies retryPolicies();

    /** The configuration the engine was opened with. */
    EngineConfig config();

    /** The database work the engine has done since it opened (transactions, statements by kind, conflicts). */
    EngineStatistics statistics();

    /** The cooperative locks this engine's sessions took, were refused and released since it opened. */
    LockStatistics lockStatistics();

    /**
     * From now on, each number taken, each save (a lock, an unlock, a batch) and each dispatch pass
     * runs through {@code observer} (null: none), so that a host's tracing and timers show them.
     */
    void observeWith(OperationObserver observer);

    /**
     * Binds the meters of the connection pool the engine opened (HikariCP's {@code hikaricp.*}) to
     * {@code registry}, a Micrometer {@code MeterRegistry} or a Dropwizard {@code MetricRegistry} as
     * HikariCP takes it; false, nothing bound, where the engine works on a host's {@code DataSource}.
     */
    boolean bindPoolMetrics(Object registry);

    @Override
    void close();
}
