package dev.turnstile.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code turnstile.*}: the keys of {@code turnstile.yaml}, bound the Spring way (kebab-case or
 * camelCase, environment variables such as {@code TURNSTILE_LOCKS_BREAKERROLE}, profiles), then
 * checked by the engine exactly as the file's keys are. An unknown key fails the start. The
 * database is the application's DataSource: {@code spring.datasource.*}, not {@code turnstile.database.*}.
 * Each field's name is its key in {@code turnstile.yaml} ({@link SpringSettings} reads them so), but
 * {@code spring}: the starter's own keys.
 */
@ConfigurationProperties(prefix = "turnstile", ignoreUnknownFields = false)
public class TurnstileProperties {
    private final Database database = new Database();
    private final Locks locks = new Locks();
    private final Retry retry = new Retry();
    private final Dispensers dispensers = new Dispensers();
    private final TreeLocks treeLocks = new TreeLocks();
    private final Changes changes = new Changes();
    private final EditLocks editLocks = new EditLocks();
    private final Spring spring = new Spring();

    public Database getDatabase() {
        return database;
    }

    public Locks getLocks() {
        return locks;
    }

    public Retry getRetry() {
        return retry;
    }

    public Dispensers getDispensers() {
        return dispensers;
    }

    public TreeLocks getTreeLocks() {
        return treeLocks;
    }

    public Changes getChanges() {
        return changes;
    }

    public EditLocks getEditLocks() {
        return editLocks;
    }

    public Spring getSpring() {
        return spring;
    }

    /** How Turnstile meets the application's transactions: the starter's own keys, not turnstile.yaml's. */
    public static class Spring {
        /**
         * Let Turnstile commit a number taken, or an object's values written, outside any Spring
         * transaction in a transaction of its own; false (the default) refuses it with
         * E_HOST_TRANSACTION, since a row the application then fails to write would leave it behind.
         */
        private Boolean allowOwnTransactions = false;

        public Boolean getAllowOwnTransactions() {
            return allowOwnTransactions;
        }

        public void setAllowOwnTransactions(Boolean allowOwnTransactions) {
            this.allowOwnTransactions = allowOwnTransactions;
        }
    }

    /** The schema: the engine runs on the application's DataSource. */
    public static class Database {
        /**
         * Apply Turnstile's schema migrations at start-up (Flyway, table ts_schema_history); false:
         * the application runs them with its own Flyway and the engine refuses a schema with
         * migrations pending.
         */
        private Boolean migrate = true;

        public Boolean getMigrate() {
            return migrate;
        }

        public void setMigrate(Boolean migrate) {
            this.migrate = migrate;
        }
    }

    /** Cooperative locks. */
    public static class Locks {
        /** The role that lets a session unlock objects other users locked. */
        private String breakerRole = "lock-breaker";
        /**
         * After an unlock that woke waiters in other processes (PostgreSQL), how long at most this
         * engine's next requests for that lock wait for them first; 0s: no wait; up to 1m.
         */
        private Duration handOver = Duration.ofMillis(5);

        public String getBreakerRole() {
            return breakerRole;
        }

        public void setBreakerRole(String breakerRole) {
            this.breakerRole = breakerRole;
        }

        public Duration getHandOver() {
            return handOver;
        }

        public void setHandOver(Duration handOver) {
            this.handOver = handOver;
        }
    }

    /** Named retry policies, with Resilience4j's key names. */
    public static class Retry {
        /** Templates by name; configs.default is the base of every instance that names no base-config. */
        private final Map<String, Policy> configs = new LinkedHashMap<>();
        /** The policies, by the names code asks for (engine.retryPolicies().get(name)). */
        private final Map<String, Policy> instances = new LinkedHashMap<>();
        /** A separate policy file (.yaml, .yml or .properties), relative to the working directory. */
        private String policyFile;
        /** manual: policies change with engine.retryPolicies().reload() only. */
        private String reload;

        public Map<String, Policy> getConfigs() {
            return configs;
        }

        public Map<String, Policy> getInstances() {
            return instances;
        }

        public String getPolicyFile() {
            return policyFile;
        }

        public void setPolicyFile(String policyFile) {
            this.policyFile = policyFile;
        }

        public String getReload() {
            return reload;
        }

        public void setReload(String reload) {
            this.reload = reload;
        }
    }

    /** One retry policy or template; a key left out comes from its base (base-config, else configs.default). */
    public static class Policy {
        /** Another config to start from. */
        private String baseConfig;
        /** Attempts in all, the first included; 1 to 10,000,000 (default 3). */
        private Integer maxAttempts;
        /** The wait before the second attempt; 1ms to 1h (default 500ms). */
        private Duration waitDuration;
        /** Multiply the wait after each failure (default false). */
        private Boolean enableExponentialBackoff;
        /** The factor; 1 to 100 (default 1.5). */
        private Double exponentialBackoffMultiplier;
        /** The longest single wait (default: no cap). */
        private Duration exponentialMaxWaitDuration;
        /** Jitter: each wait drawn from wait × [1 - factor, 1 + factor] (default false). */
        private Boolean enableRandomizedWait;
        /** The jitter's factor, in [0, 1) (default 0.5). */
        private Double randomizedWaitFactor;
        /** Error codes retried (default E_OBJECT_MODIFIED, E_OBJECT_LOCKED). */
        private List<String> retryCodes;
        /** Error codes never retried; an ignored code wins over a retried one. */
        private List<String> ignoreCodes;
        /** Exception classes (fully qualified) retried, matched anywhere in the cause chain. */
        private List<String> retryExceptions;
        /** Exception classes never retried; wins over retry-exceptions. */
        private List<String> ignoreExceptions;
        /** No new attempt starts once this much time has passed since the first; 0s to 7d (default: no limit). */
        private Duration maxTotalWait;

        public String getBaseConfig() {
            return baseConfig;
        }

        public void setBaseConfig(String baseConfig) {
            this.baseConfig = baseConfig;
        }

        public Integer getMaxAttempts() {
            return maxAttempts;
        }

        public void setMaxAttempts(Integer maxAttempts) {
            this.maxAttempts = maxAttempts;
        }

        public Duration getWaitDuration() {
            return waitDuration;
        }

        public void setWaitDuration(Duration waitDuration) {
            this.waitDuration = waitDuration;
        }

        public Boolean getEnableExponentialBackoff() {
            return enableExponentialBackoff;
        }

        public void setEnableExponentialBackoff(Boolean enableExponentialBackoff) {
            this.enableExponentialBackoff = enableExponentialBackoff;
        }

        public Double getExponentialBackoffMultiplier() {
            return exponentialBackoffMultiplier;
        }

        public void setExponentialBackoffMultiplier(Double exponentialBackoffMultiplier) {
            this.exponentialBackoffMultiplier = exponentialBackoffMultiplier;
        }

        public Duration getExponentialMaxWaitDuration() {
            return exponentialMaxWaitDuration;
        }

        public void setExponentialMaxWaitDuration(Duration exponentialMaxWaitDuration) {
            this.exponentialMaxWaitDuration = exponentialMaxWaitDuration;
        }

        public Boolean getEnableRandomizedWait() {
            return enableRandomizedWait;
        }

        public void setEnableRandomizedWait(Boolean enableRandomizedWait) {
            this.enableRandomizedWait = enableRandomizedWait;
        }

        public Double getRandomizedWaitFactor() {
            return randomizedWaitFactor;
        }

        public void setRandomizedWaitFactor(Double randomizedWaitFactor) {
            this.randomizedWaitFactor = randomizedWaitFactor;
        }

        public List<String> getRetryCodes() {
            return retryCodes;
        }

        public void setRetryCodes(List<String> retryCodes) {
            this.retryCodes = retryCodes;
        }

        public List<String> getIgnoreCodes() {
            return ignoreCodes;
        }

        public void setIgnoreCodes(List<String> ignoreCodes) {
            this.ignoreCodes = ignoreCodes;
        }

        public List<String> getRetryExceptions() {
            return retryExceptions;
        }

        public void setRetryExceptions(List<String> retryExceptions) {
            this.retryExceptions = retryExceptions;
        }

        public List<String> getIgnoreExceptions() {
            return ignoreExceptions;
        }

        public void setIgnoreExceptions(List<String> ignoreExceptions) {
            this.ignoreExceptions = ignoreExceptions;
        }

        public Duration getMaxTotalWait() {
            return maxTotalWait;
        }

        public void setMaxTotalWait(Duration maxTotalWait) {
            this.maxTotalWait = maxTotalWait;
        }
    }

    /** Dispensers. */
    public static class Dispensers {
        /** The session role that may create dispensers, restart them (setStart, reset) and void numbers. */
        private String adminRole = "dispenser-admin";
        /** Dispensers created at start-up if they do not exist, by name. */
        private final Map<String, Series> series = new LinkedHashMap<>();

        public String getAdminRole() {
            return adminRole;
        }

        public void setAdminRole(String adminRole) {
            this.adminRole = adminRole;
        }

        public Map<String, Series> getSeries() {
            return series;
        }
    }

    /** One dispenser created at start-up; a key left out takes its default. */
    public static class Series {
        /** COOPERATIVE_LOCK, FIRST_WRITER_WINS, PESSIMISTIC or COMBINING (default COMBINING). */
        private String strategy;
        /** FIRST_WRITER_WINS only: fetch before every update (default false). */
        private Boolean feelingUnlucky;
        /** The first number of the series and of each period; 0 to 10^18 (default 1). */
        private Long start;
        /** {yyyy} {yy} {MM} {dd} {seq} {seq:N}, for example INV-{yyyy}-{seq:6}; none: plain numbers. */
        private String format;
        /** never, yearly, monthly or daily, by the database clock (UTC) (default never). */
        private String reset;
        /** The retry policy of a take (default dispenser, built in). */
        private String retryPolicy;
        /** COOPERATIVE_LOCK only: how long the counter's lock lasts; 1 to 86,400 (default 30). */
        private Integer lockTimeoutSeconds;
        /** Record every issued number (default: on when a format is set). */
        private Boolean register;
        /** The largest next(count); 1 to 1,000,000 (default 10,000). */
        private Integer maxBlock;
        /** How long next(count, requestKey) answers a repeat with the first answer; 1s to 366d (default 24h). */
        private Duration requestKeyRetention;

        public String getStrategy() {
            return strategy;
        }

        public void setStrategy(String strategy) {
            this.strategy = strategy;
        }

        public Boolean getFeelingUnlucky() {
            return feelingUnlucky;
        }

        public void setFeelingUnlucky(Boolean feelingUnlucky) {
            this.feelingUnlucky = feelingUnlucky;
        }

        public Long getStart() {
            return start;
        }

        public void setStart(Long start) {
            this.start = start;
        }

        public String getFormat() {
            return format;
        }

        public void setFormat(String format) {
            this.format = format;
        }

        public String getReset() {
            return reset;
        }

        public void setReset(String reset) {
            this.reset = reset;
        }

        public String getRetryPolicy() {
            return retryPolicy;
        }

        public void setRetryPolicy(String retryPolicy) {
            this.retryPolicy = retryPolicy;
        }

        public Integer getLockTimeoutSeconds() {
            return lockTimeoutSeconds;
        }

        public void setLockTimeoutSeconds(Integer lockTimeoutSeconds) {
            this.lockTimeoutSeconds = lockTimeoutSeconds;
        }

        public Boolean getRegister() {
            return register;
        }

        public void setRegister(Boolean register) {
            this.register = register;
        }

        public Integer getMaxBlock() {
            return maxBlock;
        }

        public void setMaxBlock(Integer maxBlock) {
            this.maxBlock = maxBlock;
        }

        public Duration getRequestKeyRetention() {
            return requestKeyRetention;
        }

        public void setRequestKeyRetention(Duration requestKeyRetention) {
            this.requestKeyRetention = requestKeyRetention;
        }
    }

    /** Tree locks. */
    public static class TreeLocks {
        /** How long a tree lock lasts without a heartbeat; 1s to 1d. */
        private Duration lease = Duration.ofSeconds(30);
        /** The retry policy pacing a waiter when the release happens in another process. */
        private String retryPolicy = "tree-lock";

        public Duration getLease() {
            return lease;
        }

        public void setLease(Duration lease) {
            this.lease = lease;
        }

        public String getRetryPolicy() {
            return retryPolicy;
        }

        public void setRetryPolicy(String retryPolicy) {
            this.retryPolicy = retryPolicy;
        }
    }

    /** The change feed. */
    public static class Changes {
        /** Record every save for the change feed (one insert more per save); every process writing should agree. */
        private Boolean enabled = false;

        public Boolean getEnabled() {
            return enabled;
        }

        public void setEnabled(Boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** Web edit locks. */
    public static class EditLocks {
        /** Settings by resource type; a type not listed takes the paper's defaults. */
        private final Map<String, EditLockType> types = new LinkedHashMap<>();
        /** How long edit-lock audit rows are kept; 1d to 36,600d. */
        private Duration auditRetention = Duration.ofDays(366);

        public Map<String, EditLockType> getTypes() {
            return types;
        }

        public Duration getAuditRetention() {
            return auditRetention;
        }

        public void setAuditRetention(Duration auditRetention) {
            this.auditRetention = auditRetention;
        }
    }

    /** One resource type's edit locks, with the paper's keys; a key left out takes the paper's default. */
    public static class EditLockType {
        /** A lock whose last heartbeat is older lapses; 1s to 1d (default 2m). */
        private Duration heartbeat;
        /** A lock held longer lapses; the heartbeat to 30d (default 1h). */
        private Duration timeout;
        /** Paragraph granularity (default false). */
        private Boolean isMinimum;
        /** The HTML elements that are paragraphs, such as p;pre (default p;pre). */
        private String htmlTags;
        /** The most valid locks of this type one user may hold; 1 to 100,000 (default 20). */
        private Integer maxLocksPerUser;

        public Duration getHeartbeat() {
            return heartbeat;
        }

        public void setHeartbeat(Duration heartbeat) {
            this.heartbeat = heartbeat;
        }

        public Duration getTimeout() {
            return timeout;
        }

        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }

        public Boolean getIsMinimum() {
            return isMinimum;
        }

        public void setIsMinimum(Boolean isMinimum) {
            this.isMinimum = isMinimum;
        }

        public String getHtmlTags() {
            return htmlTags;
        }

        public void setHtmlTags(String htmlTags) {
            this.htmlTags = htmlTags;
        }

        public Integer getMaxLocksPerUser() {
            return maxLocksPerUser;
        }

        public void setMaxLocksPerUser(Integer maxLocksPerUser) {
            this.maxLocksPerUser = maxLocksPerUser;
        }
    }
}
