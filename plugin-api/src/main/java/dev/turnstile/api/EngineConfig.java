package dev.turnstile.api;

import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.Dispensers;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.retry.RetryPolicies;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.internal.Ranges;
import dev.turnstile.spi.HostTransactions;

import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import javax.sql.DataSource;

/**
 * How to open an engine: the database and its pool, and the clock. Immutable; build with
 * {@link #builder()} or read from {@code turnstile.yaml} with {@link ContentEngine#open(java.nio.file.Path)}.
 *
 * <p>Defaults: {@link #DEFAULT_JDBC_URL} (an H2 file under {@code ./turnstile-data/} that several
 * processes can share — AUTO_SERVER: the first engine to open it starts a server process that
 * serves it to all of them and exits when none is left), user {@code sa} with an empty password, {@link #DEFAULT_MAX_POOL_SIZE}
 * connections, {@link #DEFAULT_CONNECTION_TIMEOUT}, and the database's clock.
 */
public final class EngineConfig {
    /** The embedded default: an H2 file database under {@code ./turnstile-data}, shareable by several processes. */
    public static final String DEFAULT_JDBC_URL =
            "jdbc:h2:file:./turnstile-data/turnstile;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
    /** Connections in the engine's own pool unless {@code database.maxPoolSize} says otherwise. */
    public static final int DEFAULT_MAX_POOL_SIZE = 10;
    /** How long a call waits for a pooled connection by default. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    /** The role that may unlock cooperative locks other users hold, by default. */
    public static final String DEFAULT_LOCK_BREAKER_ROLE = "lock-breaker";
    /**
     * How long, by default, this engine's next request for a cooperative lock it just let go waits
     * for a waiter in another process that the unlock woke ({@link #lockHandOver()}).
     */
    public static final Duration DEFAULT_LOCK_HAND_OVER = Duration.ofMillis(5);
    /** The longest lock hand-over accepted. */
    public static final Duration MAX_LOCK_HAND_OVER = Duration.ofMinutes(1);
    /** The role that may void numbers and read the register, by default. */
    public static final String DEFAULT_DISPENSER_ADMIN_ROLE = "dispenser-admin";
    /** How long a tree lock lasts past its last heartbeat, by default. */
    public static final Duration DEFAULT_TREE_LOCK_LEASE = Duration.ofSeconds(30);
    /** The retry policy whose waits pace tree-lock waiters, by default. */
    public static final String DEFAULT_TREE_LOCK_RETRY_POLICY = "tree-lock";
    /** Ranges of the numeric settings (a value outside fails with {@code E_CONFIG_INVALID}). */
    public static final int MAX_POOL_SIZE = 1000;
    /** The shortest connection timeout accepted. */
    public static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(250);
    /** The longest connection timeout accepted. */
    public static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofMinutes(10);
    /** The shortest tree-lock lease accepted. */
    public static final Duration MIN_TREE_LOCK_LEASE = Duration.ofSeconds(1);
    /** The longest tree-lock lease accepted. */
    public static final Duration MAX_TREE_LOCK_LEASE = Duration.ofDays(1);
    /** How long edit-lock audit rows are kept, by default, and the range of the setting. */
    public static final Duration DEFAULT_EDIT_AUDIT_RETENTION = Duration.ofDays(366);
    /** The shortest edit-lock audit retention accepted. */
    public static final Duration MIN_EDIT_AUDIT_RETENTION = Duration.ofDays(1);
    /** The longest edit-lock audit retention accepted. */
    public static final Duration MAX_EDIT_AUDIT_RETENTION = Duration.ofDays(36_600);

    private final String jdbcUrl;
    private final DataSource dataSource;
    private final HostTransactions hostTransactions;
    private final String username;
    private final String password;
    private final int maxPoolSize;
    private final Duration connectionTimeout;
    private final boolean migrate;
    private final Clock clock;
    private final String lockBreakerRole;
    private final Duration lockHandOver;
    private final Map<String, RetryPolicyConfig> retryPolicies;
    private final String dispenserAdminRole;
    private final Map<String, DispenserConfig> dispensers;
    private final Duration treeLockLease;
    private final String treeLockRetryPolicy;
    private final boolean changesEnabled;
    private final Map<String, EditLockConfig> editLockTypes;
    private final Duration editAuditRetention;
    private final String source;
    private final String policyFile;
    private final boolean retryReloadWatch;

    private EngineConfig(Builder b) {
        this.jdbcUrl = b.jdbcUrl;
        this.dataSource = b.dataSource;
        this.hostTransactions = b.hostTransactions;
        this.username = b.username;
        this.password = b.password;
        this.maxPoolSize = b.maxPoolSize;
        this.connectionTimeout = b.connectionTimeout;
        this.migrate = b.migrate;
        this.clock = b.clock;
        this.lockBreakerRole = b.lockBreakerRole;
        this.lockHandOver = b.lockHandOver;
        this.retryPolicies = Collections.unmodifiableMap(new LinkedHashMap<>(b.retryPolicies));
        this.dispenserAdminRole = b.dispenserAdminRole;
        this.dispensers = Collections.unmodifiableMap(new LinkedHashMap<>(b.dispensers));
        this.treeLockLease = b.treeLockLease;
        this.treeLockRetryPolicy = b.treeLockRetryPolicy;
        this.changesEnabled = b.changesEnabled;
        this.editLockTypes = Collections.unmodifiableMap(new LinkedHashMap<>(b.editLockTypes));
        this.editAuditRetention = b.editAuditRetention;
        this.source = b.source;
        this.policyFile = b.policyFile;
        this.retryReloadWatch = b.retryReloadWatch;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: the embedded H2 database, no named policies, dispensers or edit-lock types. */
    public static EngineConfig ofDefaults() {
        return builder().build();
    }

    /** A builder holding this configuration's values. */
    public static Builder from(EngineConfig base) {
        return new Builder()
                .jdbcUrl(base.jdbcUrl).dataSource(base.dataSource).hostTransactions(base.hostTransactions)
                .username(base.username).password(base.password)
                .maxPoolSize(base.maxPoolSize).connectionTimeout(base.connectionTimeout).migrate(base.migrate)
                .clock(base.clock).lockBreakerRole(base.lockBreakerRole).lockHandOver(base.lockHandOver)
                .retryPolicies(base.retryPolicies)
                .dispenserAdminRole(base.dispenserAdminRole).dispensers(base.dispensers)
                .treeLockLease(base.treeLockLease).treeLockRetryPolicy(base.treeLockRetryPolicy)
                .changesEnabled(base.changesEnabled).editLockTypes(base.editLockTypes)
                .editAuditRetention(base.editAuditRetention).source(base.source)
                .policyFile(base.policyFile).retryReloadWatch(base.retryReloadWatch);
    }

    /** The URL of the engine's own pool; with a {@link #dataSource()}, only a name for messages. */
    public String jdbcUrl() {
        return jdbcUrl;
    }

    /** The host's pool, which the engine uses and never closes; null: the engine's own pool on {@link #jdbcUrl()}. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Where the host's transaction is, for Turnstile's work to join it; {@link HostTransactions#NONE} by default. */
    public HostTransactions hostTransactions() {
        return hostTransactions;
    }

    /** The database user of the engine's own pool. */
    public String username() {
        return username;
    }

    /** The database password of the engine's own pool. */
    public String password() {
        return password;
    }

    /** The most connections the engine's own pool opens. */
    public int maxPoolSize() {
        return maxPoolSize;
    }

    /** How long a call waits for a connection of the engine's own pool. */
    public Duration connectionTimeout() {
        return connectionTimeout;
    }

    /**
     * Whether the engine applies its schema migrations at open (the default), or only checks that
     * the host applied them: see {@code Migrations} in the engine.
     */
    public boolean migrate() {
        return migrate;
    }

    /** The clock for dates and expiry; null means the database's clock, shared by every node. */
    public Clock clock() {
        return clock;
    }

    /** The role that lets a session unlock objects locked by other users. */
    public String lockBreakerRole() {
        return lockBreakerRole;
    }

    /**
     * After an unlock that woke waiters in other processes (PostgreSQL's notes), how long at most this
     * engine's own next requests for that lock wait first — until as many releases of it in other
     * processes as processes were waiting, or this long: without it the releasing process, a round
     * trip away, took the lock again before a woken process could ask. Zero: no wait. Default {@link #DEFAULT_LOCK_HAND_OVER}.
     */
    public Duration lockHandOver() {
        return lockHandOver;
    }

    /** Named retry policies; the engine adds {@value RetryPolicies#DEFAULT} with defaults if absent. */
    public Map<String, RetryPolicyConfig> retryPolicies() {
        return retryPolicies;
    }

    /** The role that may create, restart and void numbers of dispensers. */
    public String dispenserAdminRole() {
        return dispenserAdminRole;
    }

    /** Dispensers the engine creates at open if they do not exist yet, by name. */
    public Map<String, DispenserConfig> dispensers() {
        return dispensers;
    }

    /** How long a tree lock lasts without a heartbeat; default {@link #DEFAULT_TREE_LOCK_LEASE}. */
    public Duration treeLockLease() {
        return treeLockLease;
    }

    /**
     * The retry policy whose waits pace a tree lock waiter between attempts (a release in the same
     * process wakes it at once); default {@value #DEFAULT_TREE_LOCK_RETRY_POLICY}, built in.
     */
    public String treeLockRetryPolicy() {
        return treeLockRetryPolicy;
    }

    /**
     * Whether saves record changes for the change feed (one insert more per save); default false.
     * Every process writing to the database should agree.
     */
    public boolean changesEnabled() {
        return changesEnabled;
    }

    /**
     * Edit lock settings by resource type; a type not listed uses {@link EditLockConfig#DEFAULTS}.
     */
    public Map<String, EditLockConfig> editLockTypes() {
        return editLockTypes;
    }

    /** How long an edit-lock audit row is kept before the engine deletes it; default {@link #DEFAULT_EDIT_AUDIT_RETENTION}. */
    public Duration editAuditRetention() {
        return editAuditRetention;
    }

    /** Where the configuration came from (a file path, or "builder"), for error messages. */
    public String source() {
        return source;
    }

    /** The policy file {@link #source()} names ({@code retry.policyFile}, resolved), or null. */
    public String policyFile() {
        return policyFile;
    }

    /** {@code retry.reload: watch}: the engine reloads its retry policies when its files change. */
    public boolean retryReloadWatch() {
        return retryReloadWatch;
    }

    @Override
    public String toString() {
        return "EngineConfig{jdbcUrl=" + jdbcUrl + (dataSource == null ? "" : ", dataSource=" + dataSource)
                + (hostTransactions == HostTransactions.NONE ? "" : ", hostTransactions=" + hostTransactions) + ", username=" + username + ", password=" + (password.isEmpty() ? "" : "****")
                + ", maxPoolSize=" + maxPoolSize + ", connectionTimeout=" + connectionTimeout + ", migrate=" + migrate
                + ", clock=" + (clock == null ? "database" : clock) + ", lockBreakerRole=" + lockBreakerRole + ", lockHandOver=" + lockHandOver
                + ", retryPolicies=" + retryPolicies + ", dispenserAdminRole=" + dispenserAdminRole
                + ", dispensers=" + dispensers + ", treeLockLease=" + treeLockLease
                + ", treeLockRetryPolicy=" + treeLockRetryPolicy + ", changesEnabled=" + changesEnabled + ", editLockTypes=" + editLockTypes + ", editAuditRetention=" + editAuditRetention + ", source=" + source + ", policyFile=" + policyFile
                + ", retryReloadWatch=" + retryReloadWatch + "}";
    }

    /** Builds an {@link EngineConfig}; each setter refuses a bad value with {@code E_CONFIG_INVALID} naming it. */
    public static final class Builder {
        private String jdbcUrl = DEFAULT_JDBC_URL;
        private DataSource dataSource;
        private HostTransactions hostTransactions = HostTransactions.NONE;
        private String username = "sa";
        private String password = "";
        private int maxPoolSize = DEFAULT_MAX_POOL_SIZE;
        private Duration connectionTimeout = DEFAULT_CONNECTION_TIMEOUT;
        private boolean migrate = true;
        private Clock clock;
        private String lockBreakerRole = DEFAULT_LOCK_BREAKER_ROLE;
        private Duration lockHandOver = DEFAULT_LOCK_HAND_OVER;
        private final Map<String, RetryPolicyConfig> retryPolicies = new LinkedHashMap<>();
        private String dispenserAdminRole = DEFAULT_DISPENSER_ADMIN_ROLE;
        private final Map<String, DispenserConfig> dispensers = new LinkedHashMap<>();
        private Duration treeLockLease = DEFAULT_TREE_LOCK_LEASE;
        private String treeLockRetryPolicy = DEFAULT_TREE_LOCK_RETRY_POLICY;
        private boolean changesEnabled;
        private final Map<String, EditLockConfig> editLockTypes = new LinkedHashMap<>();
        private Duration editAuditRetention = DEFAULT_EDIT_AUDIT_RETENTION;
        private String source = "builder";
        private String policyFile;
        private boolean retryReloadWatch;

        private Builder() {
        }

        /** Sets the edit-lock settings of one resource type. */
        public Builder editLockType(String type, EditLockConfig config) {
            if (!EditResource.isType(type)) {
                throw EngineRuntimeException.configInvalid(source, "editLocks.types", type,
                        "a resource type is 1 to 32 letters or digits (any script), '_' or '-'");
            }
            editLockTypes.put(type, required("editLocks.types." + type, config));
            return this;
        }

        /** Replaces the edit-lock settings of every resource type. */
        public Builder editLockTypes(Map<String, EditLockConfig> all) {
            editLockTypes.clear();
            required("editLocks.types", all).forEach(this::editLockType);
            return this;
        }

        /** Whether saves record changes for the change feed (off by default: a save then writes no change row). */
        public Builder changesEnabled(boolean enabled) {
            this.changesEnabled = enabled;
            return this;
        }

        /**
         * How long a tree lock lasts past its last heartbeat ({@link #MIN_TREE_LOCK_LEASE} to
         * {@link #MAX_TREE_LOCK_LEASE}).
         */
        public Builder treeLockLease(Duration lease) {
            if (!Ranges.within(lease, MIN_TREE_LOCK_LEASE, MAX_TREE_LOCK_LEASE)) {
                throw EngineRuntimeException.configInvalid(source, "treeLocks.lease", lease,
                        Ranges.from(MIN_TREE_LOCK_LEASE, MAX_TREE_LOCK_LEASE));
            }
            this.treeLockLease = lease;
            return this;
        }

        /** See {@link EngineConfig#lockHandOver()}: zero to {@link #MAX_LOCK_HAND_OVER}. */
        public Builder lockHandOver(Duration handOver) {
            if (!Ranges.within(handOver, Duration.ZERO, MAX_LOCK_HAND_OVER)) {
                throw EngineRuntimeException.configInvalid(source, "locks.handOver", handOver, Ranges.from(Duration.ZERO, MAX_LOCK_HAND_OVER));
            }
            this.lockHandOver = handOver;
            return this;
        }

        /** How long edit-lock audit rows are kept before the sweep deletes them. */
        public Builder editAuditRetention(Duration retention) {
            if (!Ranges.within(retention, MIN_EDIT_AUDIT_RETENTION, MAX_EDIT_AUDIT_RETENTION)) {
                throw EngineRuntimeException.configInvalid(source, "editLocks.auditRetention", retention,
                        Ranges.from(MIN_EDIT_AUDIT_RETENTION, MAX_EDIT_AUDIT_RETENTION));
            }
            this.editAuditRetention = retention;
            return this;
        }

        /** The named retry policy whose waits pace tree-lock waiters. */
        public Builder treeLockRetryPolicy(String policy) {
            if (policy == null || policy.isBlank()) {
                throw EngineRuntimeException.configInvalid(source, "treeLocks.retryPolicy", policy, "must be a policy name");
            }
            this.treeLockRetryPolicy = policy;
            return this;
        }

        /** The role that may void numbers and read the register. */
        public Builder dispenserAdminRole(String role) {
            if (role == null || role.isBlank()) {
                throw EngineRuntimeException.configInvalid(source, "dispensers.adminRole", role, "must be a role name");
            }
            this.dispenserAdminRole = role;
            return this;
        }

        /** Adds or replaces the dispenser {@code name}. */
        public Builder dispenser(String name, DispenserConfig config) {
            if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw EngineRuntimeException.configInvalid(source, "dispensers.series", name,
                        "a dispenser name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            dispensers.put(name, required("dispensers.series." + name, config));
            return this;
        }

        /** Replaces every configured dispenser. */
        public Builder dispensers(Map<String, DispenserConfig> all) {
            dispensers.clear();
            required("dispensers.series", all).forEach(this::dispenser);
            return this;
        }

        /** The role that may unlock cooperative locks other users hold. */
        public Builder lockBreakerRole(String role) {
            if (role == null || role.isBlank()) {
                throw EngineRuntimeException.configInvalid(source, "locks.breakerRole", role, "must be a role name");
            }
            this.lockBreakerRole = role;
            return this;
        }

        /** Adds or replaces the retry policy {@code name}. */
        public Builder retryPolicy(String name, RetryPolicyConfig config) {
            if (name == null || !name.matches("[A-Za-z0-9_.-]{1,64}")) {
                throw EngineRuntimeException.configInvalid(source, "retry.instances", name,
                        "a policy name is 1 to 64 letters, digits, '.', '_' or '-'");
            }
            retryPolicies.put(name, required("retry.instances." + name, config));
            return this;
        }

        /** Replaces every named retry policy. */
        public Builder retryPolicies(Map<String, RetryPolicyConfig> policies) {
            retryPolicies.clear();
            required("retry.instances", policies).forEach(this::retryPolicy);
            return this;
        }

        /** The database of the engine's own pool (H2, PostgreSQL or MariaDB JDBC URL). */
        public Builder jdbcUrl(String jdbcUrl) {
            if (jdbcUrl == null || !jdbcUrl.startsWith("jdbc:")) {
                throw EngineRuntimeException.configInvalid(source, "database.url", jdbcUrl, "must start with jdbc:");
            }
            this.jdbcUrl = jdbcUrl;
            return this;
        }

        /** The database user of the engine's own pool. */
        public Builder username(String username) {
            this.username = required("database.username", username);
            return this;
        }

        /** The database password of the engine's own pool. */
        public Builder password(String password) {
            this.password = required("database.password", password);
            return this;
        }

        /** The most connections the engine's own pool opens (1 to MAX_POOL_SIZE). */
        public Builder maxPoolSize(int maxPoolSize) {
            if (!Ranges.within(maxPoolSize, 1, MAX_POOL_SIZE)) {
                throw EngineRuntimeException.configInvalid(source, "database.maxPoolSize", maxPoolSize, Ranges.from(1, MAX_POOL_SIZE));
            }
            this.maxPoolSize = maxPoolSize;
            return this;
        }

        /** How long a call waits for a pooled connection (MIN_CONNECTION_TIMEOUT to MAX_CONNECTION_TIMEOUT). */
        public Builder connectionTimeout(Duration connectionTimeout) {
            if (!Ranges.within(connectionTimeout, MIN_CONNECTION_TIMEOUT, MAX_CONNECTION_TIMEOUT)) {
                throw EngineRuntimeException.configInvalid(source, "database.connectionTimeout", connectionTimeout,
                        Ranges.from(MIN_CONNECTION_TIMEOUT, MAX_CONNECTION_TIMEOUT));
            }
            this.connectionTimeout = connectionTimeout;
            return this;
        }

        /**
         * False when the host runs Turnstile's migrations with its own Flyway (location
         * {@code classpath:dev/turnstile/engine/db/migration/<postgresql|mariadb|h2>}, table
         * {@code ts_schema_history}); the engine then refuses a schema with migrations pending.
         */
        public Builder migrate(boolean migrate) {
            this.migrate = migrate;
            return this;
        }

        /**
         * The host's pool: the engine takes its connections from it (its own transactions turn
         * auto-commit off while they run and keep the pool's isolation; READ COMMITTED, or MariaDB's
         * REPEATABLE READ, is what its USN checks are written for) and never closes it. Null: the
         * engine's own HikariCP pool on the URL.
         */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = dataSource;
            return this;
        }

        /** Where the host's transaction is; see {@link HostTransactions}. */
        public Builder hostTransactions(HostTransactions hostTransactions) {
            this.hostTransactions = required("hostTransactions", hostTransactions);
            return this;
        }

        /** Null (the default) uses the database's clock. */
        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        /** The retry policy file the configuration names ({@code retry.policyFile}), resolved. */
        public Builder policyFile(String policyFile) {
            this.policyFile = policyFile;
            return this;
        }

        /** Reload the retry policies when the configuration files change (needs a file: {@link #source}). */
        public Builder retryReloadWatch(boolean watch) {
            this.retryReloadWatch = watch;
            return this;
        }

        /** Where the configuration came from (a file path), named in error messages. */
        public Builder source(String source) {
            this.source = required("source", source);
            return this;
        }

        /** A null setting, refused as {@code E_CONFIG_INVALID} naming its key, as a bad value is. */
        private <T> T required(String keyPath, T value) {
            if (value == null) {
                throw EngineRuntimeException.configInvalid(source, keyPath, null, "must be set");
            }
            return value;
        }

        /** The configuration; conflicting settings are refused here with {@code E_CONFIG_INVALID}. */
        public EngineConfig build() {
            return new EngineConfig(this);
        }
    }
}
