package dev.turnstile.api;

import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.internal.Ranges;
import dev.turnstile.spi.HostTransactions;

import java.time.Clock;
import java.time.Duration;
import javax.sql.DataSource;

/**
 * How to open an engine: the database and its pool, the clock, and each capability's settings
 * ({@link LockConfig}, {@link RetryPoliciesConfig}, {@link DispensersConfig}, {@link TreeLocksConfig},
 * {@link ChangesConfig}, {@link EditLocksConfig}: a section of {@code turnstile.yaml} each).
 * Immutable; build with {@link #builder()} or read from {@code turnstile.yaml} with
 * {@link ContentEngine#open(java.nio.file.Path)}.
 *
 * <p>Defaults: {@link #DEFAULT_JDBC_URL} (an H2 file under {@code ./turnstile-data/} that several
 * processes can share — AUTO_SERVER: the first engine to open it starts a server process that
 * serves it to all of them and exits when none is left), user {@code sa} with an empty password, {@link #DEFAULT_MAX_POOL_SIZE}
 * connections, {@link #DEFAULT_CONNECTION_TIMEOUT}, {@link #DEFAULT_IDLE_TRANSACTION_TIMEOUT}, and the database's clock.
 */
public final class EngineConfig {
    /** The embedded default: an H2 file database under {@code ./turnstile-data}, shareable by several processes. */
    public static final String DEFAULT_JDBC_URL =
            "jdbc:h2:file:./turnstile-data/turnstile;AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
    /** Connections in the engine's own pool unless {@code database.maxPoolSize} says otherwise. */
    public static final int DEFAULT_MAX_POOL_SIZE = 10;
    /** How long a call waits for a pooled connection by default. */
    public static final Duration DEFAULT_CONNECTION_TIMEOUT = Duration.ofSeconds(10);
    /** The most connections the engine's own pool may be given. */
    public static final int MAX_POOL_SIZE = 1000;
    /** The shortest connection timeout accepted. */
    public static final Duration MIN_CONNECTION_TIMEOUT = Duration.ofMillis(250);
    /** The longest connection timeout accepted. */
    public static final Duration MAX_CONNECTION_TIMEOUT = Duration.ofMinutes(10);
    /** How long the database lets a connection of the engine's own pool sit idle inside a transaction, by default. */
    public static final Duration DEFAULT_IDLE_TRANSACTION_TIMEOUT = Duration.ofSeconds(30);
    /** The shortest idle-transaction timeout accepted. */
    public static final Duration MIN_IDLE_TRANSACTION_TIMEOUT = Duration.ofSeconds(1);
    /** The longest idle-transaction timeout accepted. */
    public static final Duration MAX_IDLE_TRANSACTION_TIMEOUT = Duration.ofHours(1);

    private final String jdbcUrl;
    private final DataSource dataSource;
    private final HostTransactions hostTransactions;
    private final String username;
    private final String password;
    private final int maxPoolSize;
    private final Duration connectionTimeout;
    private final Duration idleTransactionTimeout;
    private final boolean migrate;
    private final boolean severalGaleraWriters;
    private final Clock clock;
    private final LockConfig locks;
    private final RetryPoliciesConfig retry;
    private final DispensersConfig dispensers;
    private final TreeLocksConfig treeLocks;
    private final ChangesConfig changes;
    private final EditLocksConfig editLocks;
    private final String source;

    private EngineConfig(Builder b) {
        this.jdbcUrl = b.jdbcUrl;
        this.dataSource = b.dataSource;
        this.hostTransactions = b.hostTransactions;
        this.username = b.username;
        this.password = b.password;
        this.maxPoolSize = b.maxPoolSize;
        this.connectionTimeout = b.connectionTimeout;
        this.idleTransactionTimeout = b.idleTransactionTimeout;
        this.migrate = b.migrate;
        this.severalGaleraWriters = b.severalGaleraWriters;
        this.clock = b.clock;
        this.locks = b.locks;
        this.retry = b.retry;
        this.dispensers = b.dispensers;
        this.treeLocks = b.treeLocks;
        this.changes = b.changes;
        this.editLocks = b.editLocks;
        this.source = b.source;
    }

    /** A builder starting from the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The defaults: the embedded H2 database, and each capability's defaults. */
    public static EngineConfig ofDefaults() {
        return builder().build();
    }

    /** A builder holding this configuration's values. */
    public static Builder from(EngineConfig base) {
        return new Builder()
                .jdbcUrl(base.jdbcUrl).dataSource(base.dataSource).hostTransactions(base.hostTransactions)
                .username(base.username).password(base.password)
                .maxPoolSize(base.maxPoolSize).connectionTimeout(base.connectionTimeout)
                .idleTransactionTimeout(base.idleTransactionTimeout).migrate(base.migrate)
                .severalGaleraWriters(base.severalGaleraWriters).clock(base.clock).locks(base.locks).retry(base.retry).dispensers(base.dispensers)
                .treeLocks(base.treeLocks).changes(base.changes).editLocks(base.editLocks).source(base.source);
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
     * How long PostgreSQL or MariaDB lets a connection of the engine's own pool sit idle inside a
     * transaction before it ends the session: a node cut off from the database, or paused, in the
     * middle of a transaction holds its row locks no longer than this.
     */
    public Duration idleTransactionTimeout() {
        return idleTransactionTimeout;
    }

    /**
     * Whether the engine applies its schema migrations at open (the default), or only checks that
     * the host applied them: see {@code Migrations} in the engine.
     */
    public boolean migrate() {
        return migrate;
    }

    /**
     * Whether an engine may open on a Galera node while other engines write through another node of
     * the cluster (false by default: it is refused, naming the nodes).
     */
    public boolean severalGaleraWriters() {
        return severalGaleraWriters;
    }

    /** The clock for dates and expiry; null means the database's clock, shared by every node. */
    public Clock clock() {
        return clock;
    }

    /** The cooperative locks' settings. */
    public LockConfig locks() {
        return locks;
    }

    /** The named retry policies and their files. */
    public RetryPoliciesConfig retry() {
        return retry;
    }

    /** The dispensers' settings and the series created at open. */
    public DispensersConfig dispensers() {
        return dispensers;
    }

    /** The tree locks' settings. */
    public TreeLocksConfig treeLocks() {
        return treeLocks;
    }

    /** The change feed's settings. */
    public ChangesConfig changes() {
        return changes;
    }

    /** The edit locks' settings. */
    public EditLocksConfig editLocks() {
        return editLocks;
    }

    /** Where the configuration came from (a file path, or "builder"), for error messages. */
    public String source() {
        return source;
    }

    @Override
    public String toString() {
        return "EngineConfig{jdbcUrl=" + jdbcUrl + (dataSource == null ? "" : ", dataSource=" + dataSource)
                + (hostTransactions == HostTransactions.NONE ? "" : ", hostTransactions=" + hostTransactions)
                + ", username=" + username + ", password=" + (password.isEmpty() ? "" : "****")
                + ", maxPoolSize=" + maxPoolSize + ", connectionTimeout=" + connectionTimeout
                + ", idleTransactionTimeout=" + idleTransactionTimeout + ", migrate=" + migrate + ", severalGaleraWriters=" + severalGaleraWriters
                + ", clock=" + (clock == null ? "database" : clock) + ", locks=" + locks + ", retry=" + retry
                + ", dispensers=" + dispensers + ", treeLocks=" + treeLocks + ", changes=" + changes + ", editLocks=" + editLocks
                + ", source=" + source + "}";
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
        private Duration idleTransactionTimeout = DEFAULT_IDLE_TRANSACTION_TIMEOUT;
        private boolean migrate = true;
        private boolean severalGaleraWriters;
        private Clock clock;
        private LockConfig locks = LockConfig.ofDefaults();
        private RetryPoliciesConfig retry = RetryPoliciesConfig.ofDefaults();
        private DispensersConfig dispensers = DispensersConfig.ofDefaults();
        private TreeLocksConfig treeLocks = TreeLocksConfig.ofDefaults();
        private ChangesConfig changes = ChangesConfig.ofDefaults();
        private EditLocksConfig editLocks = EditLocksConfig.ofDefaults();
        private String source = "builder";

        private Builder() {
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
         * See {@link EngineConfig#idleTransactionTimeout()} (MIN_IDLE_TRANSACTION_TIMEOUT to
         * MAX_IDLE_TRANSACTION_TIMEOUT; whole seconds on MariaDB, rounded up). H2 has no such limit;
         * on a host's DataSource, the host's pool sets it (docs/configuration.md).
         */
        public Builder idleTransactionTimeout(Duration idleTransactionTimeout) {
            if (!Ranges.within(idleTransactionTimeout, MIN_IDLE_TRANSACTION_TIMEOUT, MAX_IDLE_TRANSACTION_TIMEOUT)) {
                throw EngineRuntimeException.configInvalid(source, "database.idleTransactionTimeout", idleTransactionTimeout,
                        Ranges.from(MIN_IDLE_TRANSACTION_TIMEOUT, MAX_IDLE_TRANSACTION_TIMEOUT));
            }
            this.idleTransactionTimeout = idleTransactionTimeout;
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
         * True lets engines write through several nodes of one Galera cluster; by default an engine
         * that would is refused at open. Galera can lose a commit it acknowledged when two nodes write
         * the same row — then a number is issued twice, as seen with a writer node killed. True
         * accepts that risk (for engines that never write the same rows, each through its own node).
         */
        public Builder severalGaleraWriters(boolean severalGaleraWriters) {
            this.severalGaleraWriters = severalGaleraWriters;
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

        /** The cooperative locks' settings. */
        public Builder locks(LockConfig locks) {
            this.locks = required("locks", locks);
            return this;
        }

        /** The named retry policies and their files. */
        public Builder retry(RetryPoliciesConfig retry) {
            this.retry = required("retry", retry);
            return this;
        }

        /** The dispensers' settings and the series created at open. */
        public Builder dispensers(DispensersConfig dispensers) {
            this.dispensers = required("dispensers", dispensers);
            return this;
        }

        /** The tree locks' settings. */
        public Builder treeLocks(TreeLocksConfig treeLocks) {
            this.treeLocks = required("treeLocks", treeLocks);
            return this;
        }

        /** The change feed's settings. */
        public Builder changes(ChangesConfig changes) {
            this.changes = required("changes", changes);
            return this;
        }

        /** The edit locks' settings. */
        public Builder editLocks(EditLocksConfig editLocks) {
            this.editLocks = required("editLocks", editLocks);
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

        /** The configuration. */
        public EngineConfig build() {
            return new EngineConfig(this);
        }
    }
}
