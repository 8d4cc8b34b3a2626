package dev.turnstile.engine.db;

import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.spi.HostTransactions;
import jakarta.persistence.PersistenceException;
import org.hibernate.SessionFactory;
import org.hibernate.StatelessSession;
import org.hibernate.Transaction;
import org.hibernate.cfg.AvailableSettings;
import org.hibernate.exception.JDBCConnectionException;
import org.hibernate.jpa.HibernatePersistenceConfiguration;
import org.hibernate.tool.schema.Action;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;
import java.util.function.Supplier;
import javax.sql.DataSource;

/**
 * One engine's database: the HikariCP pool, the Hibernate session factory over it, the schema, the
 * clock and the statistics. Work runs in {@link #inTransaction}, on a {@link StatelessSession} so
 * that no persistence context adds round trips; Hibernate and JDBC failures that no capability
 * handled become {@link ExceptionCode#E_DATABASE_UNAVAILABLE} here, in one place.
 */
public final class Database implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Database.class);

    private final DataSource dataSource;
    /** The engine's own pool, closed with it; null when it runs on the host's. */
    private final HikariDataSource ownPool;
    private final HostTransactions host;
    private final HostTransaction hostTransaction;
    private volatile boolean closed;
    private final SessionFactory sessionFactory;
    private final StatementCounter counter = new StatementCounter();
    private final Clock clock;
    private final String productName;
    /** H2: its conflicts run again for {@link #H2_CONFLICTS}, not {@link #CONFLICT_ATTEMPTS} times. */
    private final boolean h2;
    private final Notifications notifications;
    private final Waiting waiting;
    /** On a Galera cluster, the nodes engines write through (warned of when more than one); null elsewhere. */
    private final GaleraWriterNodes writerNodes;
    /** Transactions the current thread has open on this database (a thread holding a connection). */
    private final ThreadLocal<int[]> openTransactions = ThreadLocal.withInitial(() -> new int[1]);

    public Database(EngineConfig config, List<Class<?>> entities) {
        this.ownPool = config.dataSource() == null ? EnginePool.open(config) : null;
        DataSource given = ownPool != null ? ownPool : config.dataSource();
        this.host = config.hostTransactions();
        this.hostTransaction = new HostTransaction(host);
        try {
            this.productName = productName(given);
            this.h2 = Sql.isH2(productName);
            // A host's H2 DataSource lends its connections at REPEATABLE READ while the engine has them (isolation).
            this.dataSource = h2 && ownPool == null ? new RepeatableReadConnections(given) : given;
            boolean ownsPool = ownPool != null;
            // The listener's connection is its own, outside the pool, which stays whole for work.
            this.notifications = new Notifications(productName, ownsPool
                    ? () -> java.sql.DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password())
                    : config.dataSource()::getConnection);
            this.waiting = new Waiting(this, notifications);
            String where = ownsPool ? config.jdbcUrl() : "the host's DataSource";
            boolean galera = Galera.checkCausalReads(dataSource, productName, where);
            Replication.warnIfStandbysAreAsynchronous(dataSource, productName, where);
            Migrations.apply(dataSource, productName, config.migrate(), where);
            this.writerNodes = galera ? GaleraWriterNodes.recordedFrom(dataSource, config.severalGaleraWriters(), where) : null;
            HibernatePersistenceConfiguration hibernate = new HibernatePersistenceConfiguration("turnstile")
                    .managedClasses(entities)
                    .statementInspector(counter)
                    // The tables are the migrations' (Migrations): Hibernate neither makes nor reads them at open.
                    .schemaToolingAction(Action.NONE)
                    .property(AvailableSettings.JAKARTA_NON_JTA_DATASOURCE, dataSource)
                    .property(AvailableSettings.JDBC_TIME_ZONE, "UTC")
                    // Work that joins the host's transaction runs on its connection without a
                    // Hibernate transaction; everything else begins one (inTransaction).
                    .property(AvailableSettings.ALLOW_UPDATE_OUTSIDE_TRANSACTION, true)
                    // Every SQL error becomes an outcome or an EngineRuntimeException carrying it: Hibernate's
                    // log-before-throw put a WARN in the host's log for each conflict the engine settled itself.
                    .property(AvailableSettings.LOG_JDBC_ERRORS, false);
            this.sessionFactory = hibernate.createEntityManagerFactory();
            this.clock = config.clock() != null ? config.clock()
                    : new DatabaseClock(dataSource, productName, () -> openTransactions.get()[0] == 0,
                    DatabaseClock.RESYNC_INTERVAL);
        } catch (RuntimeException e) {
            if (ownPool != null) {
                ownPool.close();
            }
            throw translate(e, "opening " + config.jdbcUrl());
        }
    }

    private static void pause(long millis, Supplier<String> what) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw EngineRuntimeException.interrupted(what.get(), e);
        }
    }

    private static String productName(DataSource dataSource) {
        try (Connection c = dataSource.getConnection()) {
            return c.getMetaData().getDatabaseProductName();
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot read the database product: " + e.getMessage(), e);
        }
    }

    /**
     * Runs {@code work} in one transaction and commits it; any exception rolls it back. Engine
     * exceptions pass through; anything else becomes {@link ExceptionCode#E_DATABASE_UNAVAILABLE}.
     *
     * <p>A transaction the database aborted for a conflicting one committed nothing, so it runs
     * again ({@link #CONFLICT_ATTEMPTS} times at most, after a short random pause): a deadlock
     * victim, and on a Galera cluster a certification conflict at commit or a transaction aborted
     * by another node's replicated write. Work that runs again sees the winner's commit: a save
     * whose USN guard it broke now fails with {@code E_OBJECT_MODIFIED}, a lock taken by the
     * winner is refused — the outcome a single server gives. {@code work} must keep its effects
     * in the database (or in values it returns) for that reason.
     */
    public <T> T inTransaction(Supplier<String> what, Function<StatelessSession, T> work) {
        checkOpen(what);
        Optional<Connection> hostConnection = host.current();
        if (hostConnection.isPresent()) {
            return inHostTransaction(hostConnection.get(), what, work);
        }
        return againAfterConflicts(what, () -> once(what, work));
    }

    /**
     * Runs {@code work}, whose only write is its last statement, on a connection in autocommit: that
     * statement commits itself, so the work costs no BEGIN and no COMMIT round trip (a lock or an
     * unlock alone: issue 16, item 5). Each read before it sees its own snapshot. Not for work that
     * writes twice, nor inside the host's transaction (callers check {@link #host()}).
     * Runs again after a conflict abort, as {@link #inTransaction} does; counted as no transaction
     * in {@link #statistics}, which counts the round trips that end one.
     */
    public <T> T alone(Supplier<String> what, Function<StatelessSession, T> work) {
        checkOpen(what);
        return againAfterConflicts(what, () -> autocommitted(what, work));
    }

    private void checkOpen(Supplier<String> what) {
        if (closed) {
            throw EngineRuntimeException.of(ExceptionCode.E_ENGINE_CLOSED, "This engine is closed (ContentEngine.close()"
                    + " was called) and cannot be used for " + what.get() + "; open a new one");
        }
    }

    private <T> T againAfterConflicts(Supplier<String> what, Supplier<T> work) {
        long firstConflict = 0;
        for (int attempt = 1; ; attempt++) {
            try {
                T result = work.get();
                if (writerNodes != null) {
                    writerNodes.nowAndThen();
                }
                return result;
            } catch (RuntimeException e) {
                if (!Sql.isConflictAbort(e)) {
                    throw e;
                }
                counter.conflictAborted();
                long now = System.nanoTime();
                firstConflict = attempt == 1 ? now : firstConflict;
                if (h2 && now - firstConflict > H2_CONFLICTS.toNanos()) {
                    throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "The database aborted "
                            + what.get() + " " + attempt + " times in " + H2_CONFLICTS.toSeconds()
                            + " s for rows other transactions changed: " + rootMessage(e), e);
                }
                if (!h2 && attempt == CONFLICT_ATTEMPTS) {
                    throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "The database aborted "
                            + what.get() + " " + CONFLICT_ATTEMPTS + " times for conflicting transactions (deadlocks, or"
                            + " certification conflicts with other Galera nodes): " + rootMessage(e), e);
                }
                pause(ThreadLocalRandom.current().nextLong(1, 2L << Math.min(attempt, 6)),
                        () -> "waiting to run " + what.get() + " again");
            }
        }
    }

    /** How many times a transaction may be aborted for a conflicting one before the caller hears of it. */
    static final int CONFLICT_ATTEMPTS = 20;
    /**
     * On H2, how long a transaction runs again after its first conflict, instead of a count: at
     * REPEATABLE READ ({@link #isolation}) H2 fails a statement that met a row changed since its
     * snapshot, where READ COMMITTED waited for the row lock — 4 processes × 4 threads on one
     * dispenser row ran transactions 19 times. As long as the engine's URLs let a statement wait
     * for a row lock (LOCK_TIMEOUT).
     */
    static final Duration H2_CONFLICTS = Duration.ofSeconds(10);

    private <T> T once(Supplier<String> what, Function<StatelessSession, T> work) {
        int[] open = openTransactions.get();
        open[0]++;
        try (StatelessSession session = sessionFactory.openStatelessSession()) {
            Transaction tx = session.beginTransaction();
            try {
                T result = work.apply(session);
                tx.commit();
                return result;
            } catch (RuntimeException | Error e) {
                if (tx.isActive()) {
                    try {
                        tx.rollback();
                    } catch (RuntimeException rollbackFailure) {
                        e.addSuppressed(rollbackFailure);
                    }
                }
                throw e;
            } finally {
                counter.transactionEnded();
            }
        } catch (RuntimeException e) {
            if (Sql.isConflictAbort(e)) {
                throw e; // inTransaction runs it again
            }
            throw translate(e, what.get());
        } finally {
            open[0]--;
        }
    }

    private <T> T autocommitted(Supplier<String> what, Function<StatelessSession, T> work) {
        int[] open = openTransactions.get();
        open[0]++;
        try (Connection connection = dataSource.getConnection()) {
            boolean autoCommit = connection.getAutoCommit();
            connection.setAutoCommit(true);
            try (StatelessSession session = sessionFactory.withStatelessOptions().connection(connection).openStatelessSession()) {
                return work.apply(session);
            } finally {
                connection.setAutoCommit(autoCommit);
            }
        } catch (SQLException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Database failure while " + what.get() + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            if (Sql.isConflictAbort(e)) {
                throw e; // alone runs it again
            }
            throw translate(e, what.get());
        } finally {
            open[0]--;
        }
    }

    /**
     * Work on the host's connection, inside the transaction the host has open on it: no begin, no
     * commit, no rollback — the host's transaction decides. A failure goes back to the host, who
     * must roll back (on PostgreSQL a failed statement has already doomed its transaction).
     */
    private <T> T inHostTransaction(Connection connection, Supplier<String> what, Function<StatelessSession, T> work) {
        int[] open = openTransactions.get();
        open[0]++;
        try (StatelessSession session = sessionFactory.withStatelessOptions().connection(connection).openStatelessSession()) {
            hostTransaction.bound(connection, productName, what);
            return work.apply(session);
        } catch (RuntimeException e) {
            if (Sql.isTimedOut(e) && !(e instanceof EngineRuntimeException)) {
                throw HostTransaction.timedOut(what, e);
            }
            if (Sql.isConflictAbort(e) && !(e instanceof EngineRuntimeException)) {
                throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE, "The database aborted the host's"
                        + " transaction while " + what.get() + " for a conflicting one (a deadlock, or a certification"
                        + " conflict with another Galera node): roll it back and run it again. " + rootMessage(e), e);
            }
            if (Sql.isReadOnlyRefusal(e)) {
                throw EngineRuntimeException.of(ExceptionCode.E_HOST_TRANSACTION, "The host's transaction is read-only, and "
                        + what.get() + " writes: run it in a read-write transaction (Spring: @Transactional without"
                        + " readOnly = true). " + rootMessage(e), e);
            }
            throw translate(e, what.get() + " (in the host's transaction)");
        } finally {
            counter.transactionEnded();
            open[0]--;
        }
    }

    /** For background upkeep that is no caller's operation: uncounted, as the clock's reads are. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** The host's transaction as the engine's work meets it. */
    public HostTransaction host() {
        return hostTransaction;
    }

    private static RuntimeException translate(RuntimeException e, String what) {
        if (e instanceof EngineRuntimeException) {
            return e;
        }
        if (e instanceof JDBCConnectionException || e instanceof PersistenceException
                || e instanceof org.hibernate.HibernateException) {
            return EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Database failure while " + what + ": " + rootMessage(e), e);
        }
        return e;
    }

    static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage() != null ? root.getMessage() : root.getClass().getSimpleName();
    }

    /** The current time by the engine's clock, to the microsecond every database here stores. */
    public Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    public String productName() {
        return productName;
    }

    /** What this process says in {@code ts_waiting} of its waiters, so that releases elsewhere notify it. */
    public Waiting waiting() {
        return waiting;
    }

    /** Wake-ups between the engines on this database (PostgreSQL LISTEN/NOTIFY; none elsewhere). */
    public Notifications notifications() {
        return notifications;
    }

    public EngineStatistics statistics() {
        return counter.snapshot();
    }

    /** Gives the engine's own pool HikariCP's meters in {@code registry} (a Micrometer MeterRegistry); false on the host's pool. */
    public boolean bindPoolMetrics(Object registry) {
        if (ownPool == null) {
            return false;
        }
        ownPool.setMetricRegistry(registry);
        return true;
    }

    @Override
    public void close() {
        closed = true;
        notifications.close();
        if (writerNodes != null) {
            writerNodes.forget();
        }
        try {
            sessionFactory.close();
        } catch (RuntimeException e) {
            log.warn("Closing the session factory failed", e);
        }
        if (ownPool != null) {
            ownPool.close();
        }
    }
}
