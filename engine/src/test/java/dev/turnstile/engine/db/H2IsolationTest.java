package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import javax.sql.DataSource;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's own transactions run at REPEATABLE READ on H2, where READ COMMITTED lost updates
 * (issue 16; {@code H2ObjectStoreContractTest.racingIncrements_loseNoUpdate} on a file written
 * with {@code WRITE_DELAY=0}), on its own pool and on a host's
 * DataSource — which gets its connection back at the isolation it lent it — and at READ COMMITTED
 * elsewhere.
 */
class H2IsolationTest {
    @Test
    void onItsOwnPool_theEnginesTransactionsOnH2_runAtRepeatableRead() {
        EngineConfig h2 = EngineConfig.builder().jdbcUrl("jdbc:h2:mem:isolation-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1").build();
        try (Database db = new Database(h2, List.of())) {
            assertThat(isolations(db)).containsExactly(Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_REPEATABLE_READ);
        }
    }

    @Test
    void onAHostsH2DataSource_theEnginesTransactionsRunAtRepeatableRead_andTheHostGetsItsConnectionBackAsLent() throws Exception {
        try (Connection shared = DriverManager.getConnection("jdbc:h2:mem:isolation-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1", "sa", "")) {
            shared.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            try (Database db = new Database(EngineConfig.builder().dataSource(oneConnection(shared)).build(), List.of())) {
                assertThat(isolations(db)).containsExactly(Connection.TRANSACTION_REPEATABLE_READ, Connection.TRANSACTION_REPEATABLE_READ);
            }
            assertThat(shared.getTransactionIsolation()).as("the host's connection, given back").isEqualTo(Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    @Test
    void onPostgres_theEnginesTransactionsRunAtReadCommitted() {
        try (Database db = new Database(TestDatabases.postgres(), List.of())) {
            assertThat(isolations(db)).containsExactly(Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_READ_COMMITTED);
        }
    }

    /**
     * At REPEATABLE READ H2 fails a statement that met a row changed since its snapshot (40001)
     * where READ COMMITTED waited for the row lock: 4 processes × 4 threads on one dispenser row saw
     * transactions run 19 times. Those run again past the 20 conflicts other databases' deadlocks
     * and certification conflicts get; on PostgreSQL the 20th conflict still ends the call.
     */
    @Test
    void onH2_aTransactionFailedForARowChangedSinceItsSnapshot_runsAgainPastTwentyConflicts() {
        EngineConfig h2 = EngineConfig.builder().jdbcUrl("jdbc:h2:mem:isolation-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1").build();
        try (Database db = new Database(h2, List.of())) {
            assertThat(conflicted(db, 25)).isEqualTo(26);
        }
        try (Database db = new Database(TestDatabases.postgres(), List.of())) {
            assertThatThrownBy(() -> conflicted(db, 25)).isInstanceOf(EngineRuntimeException.class)
                    .hasMessageContaining("The database aborted conflicting 20 times for conflicting transactions");
        }
    }

    /**
     * H2 answers an insert of a key that another open transaction has inserted by running the
     * statement again, busy, until LOCK_TIMEOUT: two transactions that each inserted a key the other
     * then inserts wait on each other unseen by its deadlock detection, for 10 s, and fail as if the
     * database were down (CI: five first lockers of a tree node's stripes, a 200 ms tryLock failed
     * after 10 s with E_DATABASE_UNAVAILABLE). {@link Sql#insertIfAbsent} gives way at once instead,
     * and the transaction runs again on the other's commit.
     */
    @Test
    void onH2_twoTransactionsInsertingEachOthersKeys_giveWayAndBothCommit() throws Exception {
        EngineConfig h2 = EngineConfig.builder()
                .jdbcUrl("jdbc:h2:mem:isolation-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000").build();
        try (Database db = new Database(h2, List.of())) {
            db.inTransaction(() -> "creating the table", s -> s.createNativeMutationQuery(
                    "CREATE TABLE first_rows (k VARCHAR(10) PRIMARY KEY)").executeUpdate());
            CyclicBarrier bothInsertedTheirFirst = new CyclicBarrier(2);
            ExecutorService pool = Executors.newFixedThreadPool(2);
            try {
                List<Future<Integer>> runs = List.of(
                        pool.submit(() -> insertBoth(db, "a", "b", bothInsertedTheirFirst)),
                        pool.submit(() -> insertBoth(db, "b", "a", bothInsertedTheirFirst)));
                assertThat(runs.get(0).get(60, TimeUnit.SECONDS) + runs.get(1).get(60, TimeUnit.SECONDS))
                        .as("runs of the two transactions: one at least gave way and ran again").isGreaterThan(2);
            } finally {
                pool.shutdownNow();
            }
            long rows = db.inTransaction(() -> "counting", s -> s.createNativeQuery("SELECT COUNT(*) FROM first_rows", Long.class)
                    .getSingleResult());
            assertThat(rows).isEqualTo(2);
        }
    }

    /** Inserts {@code first}, then (on its first run, once the other did the same) {@code second}; the runs it took. */
    private static int insertBoth(Database db, String first, String second, CyclicBarrier bothInsertedTheirFirst) {
        int[] runs = {0};
        db.inTransaction(() -> "inserting " + first + " and " + second, s -> {
            Sql.insertIfAbsent(s, "INSERT INTO first_rows (k) VALUES (?)", first);
            if (++runs[0] == 1) {
                try {
                    bothInsertedTheirFirst.await(30, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }
            Sql.insertIfAbsent(s, "INSERT INTO first_rows (k) VALUES (?)", second);
            return null;
        });
        return runs[0];
    }

    /** Runs a transaction that the database fails for a conflict {@code times} times, then lets through; the runs it took. */
    private static int conflicted(Database db, int times) {
        int[] runs = {0};
        db.inTransaction(() -> "conflicting", s -> {
            if (++runs[0] <= times) {
                throw new IllegalStateException(new SQLException("row changed since the snapshot", "40001"));
            }
            return null;
        });
        return runs[0];
    }

    /** The isolation of the engine's transaction, and of its statement that commits itself. */
    private static List<Integer> isolations(Database db) {
        return List.of(db.inTransaction(() -> "reading the isolation", s -> s.doReturningWork(Connection::getTransactionIsolation)),
                db.alone(() -> "reading the isolation", s -> s.doReturningWork(Connection::getTransactionIsolation)));
    }

    /** A host's DataSource that lends one connection again and again, as a pool that does not reset it would. */
    private static DataSource oneConnection(Connection shared) {
        Connection lent = (Connection) Proxy.newProxyInstance(Connection.class.getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> method.getName().equals("close") ? null : method.invoke(shared, args));
        return (DataSource) Proxy.newProxyInstance(DataSource.class.getClassLoader(), new Class<?>[] {DataSource.class},
                (proxy, method, args) -> method.getName().equals("getConnection") ? lent : null);
    }
}
