package dev.turnstile.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.jdbc.JdbcLockProvider;
import org.springframework.integration.jdbc.lock.DefaultLockRepository;
import org.springframework.integration.jdbc.lock.JdbcLockRegistry;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.LockSupport;

/**
 * The locks the locks benchmark compares, each as a user would take it on one database: the
 * database's own lock (the floor), ShedLock's JDBC provider, Spring Integration's
 * {@code JdbcLockRegistry} and the cooperative lock ({@link Locking#withLock}), with the tables
 * they need; and a plain-JDBC row lock, a second floor: the statements a lock in a row needs at least.
 */
final class LockColumns {
    static final String CLASS_NAME = "BenchLock";
    static final List<String> COLUMNS = List.of("FLOOR", "ROW_FLOOR", "SHEDLOCK", "JDBC_LOCK_REGISTRY", "TURNSTILE");
    private static final String POLICY = "bench-lock-pairs";

    private final BenchDatabase database;
    /** String properties of {@link #PROPERTY_LENGTH} characters on each Turnstile lock's object. */
    private final int properties;
    static final int PROPERTY_LENGTH = 40;

    LockColumns(BenchDatabase database, int properties) {
        this.database = database;
        this.properties = properties;
    }

    /** One thread's pair: lock, {@code inside} while holding it, then unlock, returning only once all are done. */
    interface Pair {
        void run(Work inside) throws Exception;
    }

    /** What a pair does while it holds the lock. */
    interface Work {
        Work NONE = () -> { };

        void run() throws SQLException;
    }

    /** A column's locks in one process: a pair per thread on the lock named, and what to close after. */
    interface Locks extends AutoCloseable {
        Pair pair(String lockName) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** A fresh lock for one cell: a name, or for Turnstile a new object's id. */
    String newLock(String column) throws Exception {
        if (!column.equals("TURNSTILE")) {
            return "bench-" + UUID.randomUUID().toString().substring(0, 8);
        }
        try (ContentEngine engine = ContentEngine.open(database.engineConfig(2))) {
            ObjectStore os = engine.session("bench").objectStore();
            os.defineClass(CLASS_NAME, c -> {
                c.int64("N");
                for (int p = 1; p <= properties; p++) {
                    c.string("P" + p, PROPERTY_LENGTH);
                }
            });
            CustomObject o = os.createCustomObject(CLASS_NAME);
            for (int p = 1; p <= properties; p++) {
                o.getProperties().putValue("P" + p, ("property " + p + " of a document ").repeat(3).substring(0, PROPERTY_LENGTH));
            }
            o.save(RefreshMode.REFRESH);
            return o.getId().toString();
        }
    }

    Locks open(String column, int threads) throws Exception {
        return switch (column) {
            case "FLOOR" -> floor();
            case "ROW_FLOOR" -> rowFloor();
            case "SHEDLOCK" -> shedLock(threads);
            case "JDBC_LOCK_REGISTRY" -> lockRegistry(threads);
            case "TURNSTILE" -> turnstile(threads);
            default -> throw new IllegalArgumentException("no column " + column + "; columns are " + COLUMNS);
        };
    }

    /** A pair on a connection of the thread's own. */
    private interface ConnectionPair {
        Pair pair(Connection c, String name) throws Exception;
    }

    /** Locks taken in plain JDBC, a connection per thread ({@code pair} on it), all closed with the column. */
    private Locks onOwnConnections(ConnectionPair pair) {
        List<Connection> opened = new ArrayList<>();
        return new Locks() {
            @Override
            public Pair pair(String name) throws Exception {
                Connection c = database.connect();
                opened.add(c);
                return pair.pair(c, name);
            }

            @Override
            public void close() throws SQLException {
                for (Connection c : opened) {
                    c.close();
                }
            }
        };
    }

    /** The database's own lock, one connection per thread: the floor every JDBC lock pays at least. */
    private Locks floor() {
        return onOwnConnections((c, name) -> {
            String url = database.url();
            if (url.startsWith("jdbc:postgresql")) {
                return functionPair(c, "SELECT pg_advisory_lock(?)", "SELECT pg_advisory_unlock(?)", (long) name.hashCode());
            }
            if (url.startsWith("jdbc:mariadb")) {
                return functionPair(c, "SELECT GET_LOCK(?, 60)", "SELECT RELEASE_LOCK(?)", name);
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("MERGE INTO ts_bench_floor_lock (name) KEY (name) VALUES ('" + name + "')");
            }
            c.commit();
            PreparedStatement lock = c.prepareStatement("SELECT name FROM ts_bench_floor_lock WHERE name = ? FOR UPDATE");
            return inside -> {
                lock.setString(1, name);
                lock.executeQuery().close();
                inside.run();
                c.commit();
            };
        });
    }

    /** A lock and an unlock that are each a query of the database's lock functions on {@code key}, autocommitted. */
    private static Pair functionPair(Connection c, String lockQuery, String unlockQuery, Object key) throws SQLException {
        c.setAutoCommit(true);
        PreparedStatement lock = c.prepareStatement(lockQuery);
        PreparedStatement unlock = c.prepareStatement(unlockQuery);
        return inside -> {
            lock.setObject(1, key);
            lock.executeQuery().close();
            inside.run();
            unlock.setObject(1, key);
            unlock.executeQuery().close();
        };
    }

    /**
     * The floor of a lock in a row, in plain JDBC on a connection per thread, autocommitted: one
     * conditional UPDATE takes it (free, or lapsed at the database's time), one UPDATE gives it
     * back; a refused try backs off as the others do. What a row lock costs with no rules around it.
     */
    private Locks rowFloor() {
        return onOwnConnections((c, name) -> {
            c.setAutoCommit(true);
            try (PreparedStatement insert = c.prepareStatement("INSERT INTO ts_bench_row_lock (name) VALUES (?)")) {
                insert.setString(1, name);
                insert.executeUpdate();
            } catch (SQLException e) {
                if (e.getSQLState() == null || !e.getSQLState().startsWith("23")) {
                    throw e;
                } // another thread of this cell made the row
            }
            String holder = UUID.randomUUID().toString();
            PreparedStatement lock = c.prepareStatement("UPDATE ts_bench_row_lock SET holder = ?, lock_until = CURRENT_TIMESTAMP"
                    + " + INTERVAL '30' SECOND WHERE name = ? AND (holder IS NULL OR lock_until < CURRENT_TIMESTAMP)");
            PreparedStatement unlock = c.prepareStatement("UPDATE ts_bench_row_lock SET holder = NULL WHERE name = ? AND holder = ?");
            return inside -> {
                lock.setString(1, holder);
                lock.setString(2, name);
                while (lock.executeUpdate() == 0) {
                    backOff();
                }
                try {
                    inside.run();
                } finally {
                    unlock.setString(1, name);
                    unlock.setString(2, holder);
                    unlock.executeUpdate();
                }
            };
        });
    }

    private HikariDataSource pool(int threads) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.url());
        config.setUsername(database.user());
        config.setPassword(database.password());
        config.setMaximumPoolSize(threads + 1);
        return new HikariDataSource(config);
    }

    /** ShedLock's JDBC provider: lock is one conditional UPDATE (an INSERT the first time), unlock one UPDATE. */
    private Locks shedLock(int threads) {
        HikariDataSource pool = pool(threads);
        JdbcLockProvider provider = new JdbcLockProvider(pool, "ts_bench_shedlock");
        return new Locks() {
            @Override
            public Pair pair(String name) {
                return inside -> {
                    while (true) {
                        Optional<SimpleLock> held = provider.lock(new LockConfiguration(Instant.now(), name,
                                Duration.ofSeconds(30), Duration.ZERO));
                        if (held.isPresent()) {
                            try {
                                inside.run();
                            } finally {
                                held.get().unlock();
                            }
                            return;
                        }
                        backOff();
                    }
                };
            }

            @Override
            public void close() {
                pool.close();
            }
        };
    }

    /** Spring Integration's JdbcLockRegistry: a local lock per key, then a row in INT_LOCK taken and deleted. */
    private Locks lockRegistry(int threads) {
        HikariDataSource pool = pool(threads);
        DefaultLockRepository repository = new DefaultLockRepository(pool);
        repository.setPrefix("TS_BENCH_INT_");
        repository.setTransactionManager(new DataSourceTransactionManager(pool));
        repository.afterPropertiesSet();
        repository.afterSingletonsInstantiated();
        JdbcLockRegistry registry = new JdbcLockRegistry(repository);
        registry.setIdleBetweenTries(Duration.ofMillis(1));
        return new Locks() {
            @Override
            public Pair pair(String name) {
                return inside -> {
                    Lock l = registry.obtain(name);
                    l.lock();
                    try {
                        inside.run();
                    } finally {
                        l.unlock();
                    }
                };
            }

            @Override
            public void close() {
                repository.close();
                pool.close();
            }
        };
    }

    /** The cooperative lock: {@link Locking#withLock}, waiting by a policy like the back-off above. */
    Locks turnstile(int threads) {
        ContentEngine engine = ContentEngine.open(EngineConfig.from(database.engineConfig(threads + 1))
                .retry(RetryPoliciesConfig.builder().policy(POLICY, RetryPolicyConfig.builder().maxAttempts(RetryPolicyConfig.MAX_ATTEMPTS)
                        .waitDuration(Duration.ofMillis(1)).enableRandomizedWait(true).randomizedWaitFactor(0.5)
                        .maxTotalWait(Duration.ofMinutes(10)).build()).build())
                .build());
        RetryPolicy policy = engine.retryPolicies().get(POLICY);
        int[] next = {0};
        return new Locks() {
            @Override
            public Pair pair(String id) {
                String user = "locker-" + ProcessHandle.current().pid() + "-" + next[0]++;
                CustomObject o = engine.session(user).objectStore().getCustomObject(CLASS_NAME, UUID.fromString(id));
                return inside -> Locking.withLock(o, 30, "bench", policy, locked -> {
                    try {
                        inside.run();
                    } catch (SQLException e) {
                        throw new IllegalStateException(e);
                    }
                    return null;
                });
            }

            @Override
            public void close() {
                engine.close();
            }
        };
    }

    /** A refused try of a lock that does not wait by itself waits 0.5 to 1.5 ms, as the Turnstile policy does. */
    private static void backOff() {
        LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(500_000, 1_500_000));
    }

    /** The peers' tables, made if absent, with each project's own column types for the database. */
    void createTables() throws SQLException {
        String url = database.url();
        boolean postgres = url.startsWith("jdbc:postgresql");
        boolean mariadb = url.startsWith("jdbc:mariadb");
        String time = mariadb ? "DATETIME(6)" : "TIMESTAMP";
        try (Connection c = database.connect(); Statement s = c.createStatement()) {
            s.executeUpdate("CREATE TABLE IF NOT EXISTS ts_bench_shedlock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
                    + " lock_until " + time + " NOT NULL, locked_at " + time + " NOT NULL, locked_by VARCHAR(255) NOT NULL)");
            s.executeUpdate("CREATE TABLE IF NOT EXISTS TS_BENCH_INT_LOCK (LOCK_KEY CHAR(36) NOT NULL, REGION VARCHAR(100)"
                    + " NOT NULL, CLIENT_ID CHAR(36), CREATED_DATE " + time + " NOT NULL, EXPIRED_AFTER " + time
                    + " NOT NULL, CONSTRAINT TS_BENCH_INT_LOCK_PK PRIMARY KEY (LOCK_KEY, REGION))");
            s.executeUpdate("CREATE TABLE IF NOT EXISTS ts_bench_row_lock (name VARCHAR(64) NOT NULL PRIMARY KEY,"
                    + " holder VARCHAR(64), lock_until " + time + ")");
            if (!postgres && !mariadb) {
                s.executeUpdate("CREATE TABLE IF NOT EXISTS ts_bench_floor_lock (name VARCHAR(64) NOT NULL PRIMARY KEY)");
            }
            c.commit();
        }
    }
}
