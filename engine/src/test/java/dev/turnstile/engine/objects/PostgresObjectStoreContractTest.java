package dev.turnstile.engine.objects;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class PostgresObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.postgres();
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }

    /**
     * A hand-over seen from the one-statement lock: bob's request waits for the row while carol's
     * grant is being committed. Its UPDATE then finds carol's lock and writes nothing, but the row
     * the same statement returns is from before carol's commit (the statement's snapshot), where
     * the lock is free. The request asks again in one more statement, whose snapshot has carol's
     * lock, and is refused for it — not by a transaction that looks, rolls back and comes back.
     */
    @Test
    void aLockRequestThatWaitedForAnotherGrant_isRefusedByItsNextStatement() throws Exception {
        CustomObject created = newCounter(0);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        ref.lock(30, "bob's edit");
        try (Connection carol = carolsGrantInFlight(created.getId())) {
            EngineStatistics before = engine.statistics();
            CompletableFuture<Void> request = CompletableFuture.runAsync(() -> ref.save(RefreshMode.REFRESH));
            awaitAStatementWaitingFor(carol);
            carol.commit();

            Throwable refused = request.handle((done, failure) -> failure).get(1, TimeUnit.MINUTES);

            assertThat(refused).hasRootCauseInstanceOf(EngineRuntimeException.class);
            assertThat(refused.getCause().getMessage()).startsWith("E_OBJECT_LOCKED: The object " + counterClass
                    + " {" + created.getId() + "} is locked by carol until ");
            assertThat(engine.statistics().since(before)).as("two statements, no transaction")
                    .isEqualTo(new EngineStatistics(0, 2, 0, 0, 2, 0));
        }
    }

    /** Returns once a statement of another session waits for a lock that {@code holder}'s transaction holds. */
    private static void awaitAStatementWaitingFor(Connection holder) throws SQLException, InterruptedException {
        try (PreparedStatement waiting = holder.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE pg_backend_pid() = ANY (pg_blocking_pids(pid))")) {
            while (true) {
                try (ResultSet rs = waiting.executeQuery()) {
                    rs.next();
                    if (rs.getInt(1) > 0) {
                        return;
                    }
                }
                Thread.onSpinWait();
            }
        }
    }
}
