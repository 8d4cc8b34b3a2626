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

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's own transactions run at REPEATABLE READ on H2, where READ COMMITTED lost updates
 * (issue 16; {@code H2WriteDelayZeroObjectStoreContractTest}), on its own pool and on a host's
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
