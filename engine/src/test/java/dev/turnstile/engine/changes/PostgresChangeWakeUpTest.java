package dev.turnstile.engine.changes;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On PostgreSQL a change recorded in one process wakes the idle dispatchers of another at once
 * (the change's INSERT sends a NOTIFY, delivered at its commit): here the dispatcher's idle delay is
 * five minutes, and the change is delivered within a minute of the other process's save. MariaDB
 * and H2 have no notifications; there dispatchers look again after their idle delay.
 */
@Tag("multi-process")
class PostgresChangeWakeUpTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    @Test
    void aSaveInAnotherProcess_wakesTheIdleDispatcherHere_beforeItsIdleDelayEnds() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        String cls = "WakeDoc" + suffix;
        String client = "wake-up-" + suffix;
        try (ContentEngine engine = ContentEngine.open(EngineConfig.from(pg).changes(ChangesConfig.of(true)).build())) {
            engine.session("parent").objectStore().defineClass(cls, c -> c.string("Title"));
            engine.changes().registerClient(client, ChangeFilter.classes(cls), DeliveryMode.CALLBACK);
            try (ChildJvm writer = ChildJvm.start(ChangeWorker.class, pg.jdbcUrl(), pg.username(), pg.password(), "save", cls)) {
                CompletableFuture<UUID> delivered = new CompletableFuture<>();
                engine.changes().subscribe(client, (c, changes) -> delivered.complete(changes.get(0).objectId()));
                ChangeDispatcher d = engine.changes().dispatcher(DispatcherConfig.builder().idleDelay(Duration.ofMinutes(5)).build());
                writer.awaitLine("READY"::equals, STARTUP);
                d.start();
                try {
                    Awaitility.await("idle").atMost(STARTUP).until(() -> ((DefaultChangeDispatcher) d).idleWaits > 0);
                    writer.send("SAVE");
                    String saved = writer.awaitLine(l -> l.startsWith("SAVED "), STARTUP).substring("SAVED ".length());
                    // Without the note, the dispatcher's next pass is five minutes away.
                    assertThat(delivered.get(60, TimeUnit.SECONDS)).isEqualTo(UUID.fromString(saved));
                } finally {
                    d.stop();
                    writer.send("EXIT");
                }
                assertThat(writer.awaitExit(STARTUP)).isZero();
            } finally {
                engine.changes().unregisterClient(client);
            }
        }
    }

    /**
     * A change sends a note only while a dispatcher in another process has said it waits (a NOTIFY
     * holds a lock of the whole database until its commit, so a note on every change made every
     * saving transaction wait for the others' commits). Two engines on a database of this test's
     * own, as two processes: no dispatcher, no note; an idle dispatcher in the other engine, whose
     * idle delay is five minutes, a note — and the change is delivered.
     */
    @Test
    void aChange_sendsANote_onlyWhileADispatcherInAnotherProcessWaits() throws Exception {
        String name = "ts_changes_" + UUID.randomUUID().toString().substring(0, 8);
        EngineConfig db = EngineConfig.from(TestDatabases.newDatabase(TestDatabases.postgres(), name)).changes(ChangesConfig.of(true)).build();
        try (ContentEngine writing = ContentEngine.open(db);
             ContentEngine dispatching = ContentEngine.open(db);
             Connection listening = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password())) {
            try (Statement s = listening.createStatement()) {
                s.execute("LISTEN " + ChangeLog.CHANNEL);
            }
            ObjectStore os = writing.session("writer").objectStore();
            os.defineClass("Memo", c -> c.string("Title"));
            os.createCustomObject("Memo").save(RefreshMode.REFRESH);
            assertThat(TestDatabases.notesUntilMarker(db, listening, ChangeLog.CHANNEL))
                    .as("notes of a change no dispatcher waits for").isEmpty();

            dispatching.changes().registerClient("memos", ChangeFilter.classes("Memo"), DeliveryMode.CALLBACK); // after the first
            CompletableFuture<UUID> delivered = new CompletableFuture<>();
            dispatching.changes().subscribe("memos", (c, changes) -> delivered.complete(changes.get(0).objectId()));
            ChangeDispatcher d = dispatching.changes().dispatcher(DispatcherConfig.builder().idleDelay(Duration.ofMinutes(5)).build());
            d.start();
            try {
                Awaitility.await("idle").atMost(STARTUP).until(() -> ((DefaultChangeDispatcher) d).idleWaits > 0);
                var memo = os.createCustomObject("Memo");
                memo.save(RefreshMode.REFRESH);
                assertThat(delivered.get(60, TimeUnit.SECONDS)).isEqualTo(memo.getId());
                assertThat(TestDatabases.notesUntilMarker(db, listening, ChangeLog.CHANNEL))
                        .as("notes of a change an idle dispatcher in the other engine waits for").hasSize(1);
            } finally {
                d.stop();
            }
        } finally {
            TestDatabases.dropDatabase(TestDatabases.postgres(), name);
        }
    }
}
