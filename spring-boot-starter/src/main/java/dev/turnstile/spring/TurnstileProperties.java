package dev.turnstile.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * {@code turnstile.*}: the keys of {@code turnstile.yaml}, bound the Spring way (kebab-case or
 * camelCase, environment variables such as {@code TURNSTILE_LOCKS_BREAKERROLE}, profiles), then
 * checked by the engine exactly as the file's keys are. An unknown key fails the start. The
 * database is the application's DataSource: {@code spring.datasource.*}, not {@code turnstile.database.*}.
 * Each component's name is its key in {@code turnstile.yaml} ({@link SpringSettings} reads them so),
 * but {@code spring}: the starter's own keys. A key left out is null: the engine's default applies.
 *
 * @param database The schema (the database itself is the application's DataSource)
 * @param locks Cooperative locks
 * @param retry Named retry policies, with Resilience4j's key names
 * @param dispensers Dispensers
 * @param treeLocks Tree locks
 * @param changes The change feed
 * @param editLocks Web edit locks
 * @param spring How Turnstile meets the application's transactions
 */
@ConfigurationProperties(prefix = "turnstile", ignoreUnknownFields = false)
public record TurnstileProperties(@DefaultValue Database database, @DefaultValue Locks locks, @DefaultValue Retry retry,
                                  @DefaultValue Dispensers dispensers, @DefaultValue TreeLocks treeLocks, @DefaultValue Changes changes,
                                  @DefaultValue EditLocks editLocks, @DefaultValue Spring spring) {

    /**
     * The schema.
     *
     * @param migrate Apply Turnstile's schema migrations at start-up (Flyway, table ts_schema_history);
     *                false: the application runs them with its own Flyway and the engine refuses a
     *                schema with migrations pending
     * @param severalGaleraWriters On a Galera cluster, let this engine write through another node than
     *                the other engines do (refused by default: Galera can lose a commit it acknowledged
     *                when two nodes write the same row)
     */
    public record Database(@DefaultValue("true") Boolean migrate, @DefaultValue("false") Boolean severalGaleraWriters) {
    }

    /**
     * Cooperative locks.
     *
     * @param breakerRole The role that lets a session unlock objects other users locked
     * @param handOver After an unlock that woke waiters in other processes (PostgreSQL), how long at
     *                 most this engine's next requests for that lock wait for them first; 0s: no
     *                 wait; up to 1m
     */
    public record Locks(@DefaultValue("lock-breaker") String breakerRole, @DefaultValue("5ms") Duration handOver) {
    }

    /**
     * Named retry policies.
     *
     * @param configs Templates by name; configs.default is the base of every instance that names no base-config
     * @param instances The policies, by the names code asks for (engine.retryPolicies().get(name))
     * @param policyFile A separate policy file (.yaml, .yml or .properties), relative to the working directory
     * @param reload Manual (the default): policies change with engine.retryPolicies().reload() only
     */
    public record Retry(Map<String, Policy> configs, Map<String, Policy> instances, String policyFile, String reload) {
    }

    /**
     * One retry policy or template; a key left out comes from its base (base-config, else configs.default).
     *
     * @param baseConfig Another config to start from
     * @param maxAttempts Attempts in all, the first included; 1 to 10,000,000 (default 3)
     * @param waitDuration The wait before the second attempt; 1ms to 1h (default 500ms)
     * @param enableExponentialBackoff Multiply the wait after each failure (default false)
     * @param exponentialBackoffMultiplier The factor; 1 to 100 (default 1.5)
     * @param exponentialMaxWaitDuration The longest single wait (default: no cap)
     * @param enableRandomizedWait Jitter: each wait drawn from wait × [1 - factor, 1 + factor] (default false)
     * @param randomizedWaitFactor The jitter's factor, in [0, 1) (default 0.5)
     * @param retryCodes Error codes retried (default E_OBJECT_MODIFIED, E_OBJECT_LOCKED)
     * @param ignoreCodes Error codes never retried; an ignored code wins over a retried one
     * @param retryExceptions Exception classes (fully qualified) retried, matched anywhere in the cause chain
     * @param ignoreExceptions Exception classes never retried; wins over retry-exceptions
     * @param maxTotalWait No new attempt starts once this much time has passed since the first; 0s to 7d
     *                     (default: no limit)
     */
    public record Policy(String baseConfig, Integer maxAttempts, Duration waitDuration, Boolean enableExponentialBackoff,
                         Double exponentialBackoffMultiplier, Duration exponentialMaxWaitDuration, Boolean enableRandomizedWait,
                         Double randomizedWaitFactor, List<String> retryCodes, List<String> ignoreCodes, List<String> retryExceptions,
                         List<String> ignoreExceptions, Duration maxTotalWait) {
    }

    /**
     * Dispensers.
     *
     * @param adminRole The session role that may create dispensers, restart them (setStart, reset) and void numbers
     * @param series Dispensers created at start-up if they do not exist, by name
     */
    public record Dispensers(@DefaultValue("dispenser-admin") String adminRole, Map<String, Series> series) {
    }

    /**
     * One dispenser created at start-up; a key left out takes its default.
     *
     * @param strategy COOPERATIVE_LOCK, FIRST_WRITER_WINS, PESSIMISTIC or COMBINING (default COMBINING)
     * @param feelingUnlucky FIRST_WRITER_WINS only: fetch before every update (default false)
     * @param start The first number of the series and of each period; 0 to 10^18 (default 1)
     * @param format {yyyy} {yy} {MM} {dd} {seq} {seq:N}, for example INV-{yyyy}-{seq:6}; none: plain numbers
     * @param reset Never, yearly, monthly or daily, by the database clock (UTC) (default never)
     * @param retryPolicy The retry policy of a take (default dispenser, built in)
     * @param lockTimeoutSeconds COOPERATIVE_LOCK only: how long the counter's lock lasts; 1 to 86,400 (default 30)
     * @param register Record every issued number (default: on when a format is set)
     * @param maxBlock The largest next(count); 1 to 1,000,000 (default 10,000)
     * @param requestKeyRetention How long next(count, requestKey) answers a repeat with the first
     *                            answer; 1s to 366d (default 24h)
     */
    public record Series(String strategy, Boolean feelingUnlucky, Long start, String format, String reset, String retryPolicy,
                         Integer lockTimeoutSeconds, Boolean register, Integer maxBlock, Duration requestKeyRetention) {
    }

    /**
     * Tree locks.
     *
     * @param lease How long a tree lock lasts without a heartbeat; 1s to 1d
     * @param retryPolicy The retry policy pacing a waiter when the release happens in another process
     */
    public record TreeLocks(@DefaultValue("30s") Duration lease, @DefaultValue("tree-lock") String retryPolicy) {
    }

    /**
     * The change feed.
     *
     * @param enabled Record every save for the change feed (one insert more per save); every process
     *                writing should agree
     */
    public record Changes(@DefaultValue("false") Boolean enabled) {
    }

    /**
     * Web edit locks.
     *
     * @param types Settings by resource type; a type not listed takes the paper's defaults
     * @param auditRetention How long edit-lock audit rows are kept; 1d to 36,600d
     */
    public record EditLocks(Map<String, EditLockType> types, @DefaultValue("366d") Duration auditRetention) {
    }

    /**
     * One resource type's edit locks, with the paper's keys; a key left out takes the paper's default.
     *
     * @param heartbeat A lock whose last heartbeat is older lapses; 1s to 1d (default 2m)
     * @param timeout A lock held longer lapses; the heartbeat to 30d (default 1h)
     * @param isMinimum Paragraph granularity (default false)
     * @param htmlTags The HTML elements that are paragraphs, such as p;pre (default p;pre)
     * @param maxLocksPerUser The most valid locks of this type one user may hold; 1 to 100,000 (default 20)
     */
    public record EditLockType(Duration heartbeat, Duration timeout, Boolean isMinimum, String htmlTags, Integer maxLocksPerUser) {
    }

    /**
     * How Turnstile meets the application's transactions: the starter's own keys, not turnstile.yaml's.
     *
     * @param allowOwnTransactions Let Turnstile commit a number taken, or an object's values written,
     *                             outside any Spring transaction in a transaction of its own; false
     *                             (the default) refuses it with E_HOST_TRANSACTION, since a row the
     *                             application then fails to write would leave it behind
     */
    public record Spring(@DefaultValue("false") Boolean allowOwnTransactions) {
    }
}
