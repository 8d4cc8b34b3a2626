package dev.turnstile.engine.objects;

import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.engine.TestDatabases;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

class H2ObjectStoreContractTest extends AbstractObjectStoreContractTest {
    @Override
    protected EngineConfig config() {
        return TestDatabases.h2("contract");
    }

    @Override
    protected boolean locksInOneStatement() {
        return true;
    }

    /**
     * A hand-over seen from H2's one-statement lock: bob's request waits for the row while carol's
     * grant is being committed. H2 (REPEATABLE READ) takes no row changed since the statement's
     * snapshot, so the waiting UPDATE writes nothing or is aborted and runs again; either way bob is
     * refused for carol's lock, and never holds it beside her.
     */
    @Test
    void aLockRequestThatWaitedForAnotherGrant_isRefusedForIt_andTheRowKeepsHerLock() throws Exception {
        CustomObject created = newCounter(0);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        ref.lock(30, "bob's edit");
        try (Connection carol = carolsGrantInFlight(created.getId())) {
            int waitersBefore = TestDatabases.lockWaiters(carol);
            CompletableFuture<Void> request = CompletableFuture.runAsync(() -> ref.save(RefreshMode.REFRESH));
            Awaitility.await("bob's statement waits for carol's row").atMost(Duration.ofMinutes(1))
                    .until(() -> TestDatabases.lockWaiters(carol) > waitersBefore);
            carol.commit();

            Throwable refused = request.handle((done, failure) -> failure).get(1, TimeUnit.MINUTES);

            assertThat(refused).hasRootCauseInstanceOf(EngineRuntimeException.class);
            assertThat(refused.getCause().getMessage()).startsWith("E_OBJECT_LOCKED: The object " + counterClass
                    + " {" + created.getId() + "} is locked by carol until ");
            CustomObject stored = fetch(alice, created.getId());
            assertThat(stored.getLockHolder()).isEqualTo("carol");
            assertThat(stored.getUpdateSequenceNumber()).as("carol's grant the only write").isEqualTo(1L);
        }
    }
}
