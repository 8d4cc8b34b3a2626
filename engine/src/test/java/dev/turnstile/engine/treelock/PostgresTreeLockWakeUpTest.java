package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On PostgreSQL a release in one process wakes the waiters of another at once (LISTEN/NOTIFY),
 * not at their next poll: here the waiter's policy waits five minutes between attempts, and it is
 * granted within a minute of the other process's release — without the note it would wait the
 * five minutes.
 */
@Tag("multi-process")
class PostgresTreeLockWakeUpTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);

    /** {@code pg} with a tree-lock policy that waits five minutes between attempts. */
    private static EngineConfig slowPoll(EngineConfig pg) {
        return EngineConfig.from(pg)
                .retry(RetryPoliciesConfig.builder().policy("slow-poll", RetryPolicyConfig.builder().maxAttempts(100).waitDuration(Duration.ofMinutes(5)).build()).build())
                .treeLocks(TreeLocksConfig.builder().retryPolicy("slow-poll").build())
                .build();
    }

    @Test
    void aReleaseInAnotherProcess_wakesTheWaiterHere_beforeItsNextPoll() throws Exception {
        EngineConfig pg = TestDatabases.postgres();
        EngineConfig config = slowPoll(pg);
        String site = UUID.randomUUID().toString().substring(0, 8);
        TreePath bench = TreePath.root("site", site).child("workshop", "A").child("bench", "1");
        try (ContentEngine engine = ContentEngine.open(config);
             ChildJvm holder = ChildJvm.start(TreeLockWorker.class, pg.jdbcUrl(), pg.username(), pg.password(), "hand-over", site)) {
            holder.awaitLine(l -> l.startsWith("LOCKED "), STARTUP);
            TreeLockService locks = ((DefaultTreeLocks) engine.treeLocks()).service();
            CompletableFuture<TreeLockHandle> waiting = CompletableFuture.supplyAsync(
                    () -> locks.lock(TreeLockRequest.exclusive(bench), "parent", Duration.ofMinutes(10)));
            // Queued at the head of its node: it has been refused once and waits for its next attempt.
            org.awaitility.Awaitility.await("the waiter queued").atMost(STARTUP).until(() -> locks.hasQueue(bench));
            assertThat(waiting).isNotDone();
            holder.send("RELEASE");
            holder.awaitLine("RELEASED"::equals, STARTUP);
            TreeLockHandle granted = waiting.get(60, TimeUnit.SECONDS);
            granted.unlock();
            holder.send("EXIT");
            assertThat(holder.awaitExit(STARTUP)).isZero();
        }
    }

    /**
     * Every NOTIFY holds one lock of the whole database until its commit ends, so a release sends a
     * note only while another process has said it has a waiter (issue 16). Two engines on a
     * database of this test's own, as two processes: nobody waits, no note; a waiter in the same
     * engine, woken there, no note; a waiter in the other engine, a note, and that waiter (whose
     * policy polls every five minutes) is granted by it.
     */
    @Test
    void aReleaseSendsANote_onlyWhileAWaiterInAnotherProcessHasSaidItWaits() throws Exception {
        TreePath bench = TreePath.root("site", "s").child("workshop", "A").child("bench", "1");
        onTwoEngines((db, releasing, waiting, listening) -> {
            releasing.session("alone").treeLocks().lock(Set.of(bench), Duration.ZERO).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of a release nobody waits for").isEmpty();

            TreeLockHandle heldHere = releasing.session("holder").treeLocks().lock(Set.of(bench), Duration.ZERO);
            CompletableFuture<TreeLockHandle> grantedHere = queuedWaiter(releasing, bench);
            heldHere.unlock();
            grantedHere.get(60, TimeUnit.SECONDS).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of releases whose waiter is in the same process").isEmpty();

            TreeLockHandle held = releasing.session("holder").treeLocks().lock(Set.of(bench), Duration.ZERO);
            CompletableFuture<TreeLockHandle> granted = queuedWaiter(waiting, bench);
            held.unlock();
            granted.get(60, TimeUnit.SECONDS).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes once a waiter said it waits").contains(bench.toString());
        });
    }

    /**
     * A waiter in another process that got its lock takes back its word that it waits: its policy
     * waits five minutes, so the word stood five minutes more, and every release under that root
     * here sent a note (and its database-wide lock) to a process with no waiter left.
     */
    @Test
    void aWaiterInAnotherProcessThatGotTheLock_takesBackItsWord_andReleasesHereSendNoMoreNotes() throws Exception {
        TreePath bench = TreePath.root("site", "s").child("workshop", "A").child("bench", "1");
        onTwoEngines((db, releasing, waiting, listening) -> {
            TreeLockHandle held = releasing.session("holder").treeLocks().lock(Set.of(bench), Duration.ZERO);
            CompletableFuture<TreeLockHandle> granted = queuedWaiter(waiting, bench);
            held.unlock();
            granted.get(60, TimeUnit.SECONDS).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("the note that woke it").contains(bench.toString());

            releasing.session("holder").treeLocks().lock(Set.of(bench), Duration.ZERO).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of a release here after the other process's waiter had its lock").isEmpty();
        });
    }

    /**
     * Paths under different roots never conflict, so a waiter says which roots it waits under:
     * while the other engine waits only in site t, releases in site s (and in s and u at once) send
     * no note; a release that spans s and t does, and so does the release of what the waiter
     * waits for, which grants it.
     */
    @Test
    void aReleaseUnderAnotherRoot_sendsNoNote_whileAnotherProcessWaitsOnlyUnderItsOwn() throws Exception {
        TreePath waitedFor = TreePath.root("site", "t").child("workshop", "A").child("bench", "1");
        TreePath besideIt = TreePath.root("site", "t").child("workshop", "B");
        TreePath inS = TreePath.root("site", "s").child("workshop", "A");
        TreePath inU = TreePath.root("site", "u");
        onTwoEngines((db, releasing, waiting, listening) -> {
            TreeLockHandle held = releasing.session("holder").treeLocks().lock(Set.of(waitedFor), Duration.ZERO);
            CompletableFuture<TreeLockHandle> granted = queuedWaiter(waiting, waitedFor);

            releasing.session("in s").treeLocks().lock(Set.of(inS), Duration.ZERO).unlock();
            releasing.session("in s and u").treeLocks().lock(Set.of(inS, inU), Duration.ZERO).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of releases under roots nobody elsewhere waits under").isEmpty();

            releasing.session("in s and t").treeLocks().lock(Set.of(inS, besideIt), Duration.ZERO).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of a release under the waiter's root and another").hasSize(1);

            assertThat(granted).isNotDone();
            held.unlock();
            granted.get(60, TimeUnit.SECONDS).unlock();
            assertThat(TestDatabases.notesUntilMarker(db, listening, TreeLockStore.CHANNEL))
                    .as("notes of the release the waiter waits for").contains(waitedFor.toString());
        });
    }

    /** A test on two engines (two processes, as far as notes go) on a database of its own, and a connection listening for tree-lock notes. */
    private interface TwoEngines {
        void run(EngineConfig db, ContentEngine releasing, ContentEngine waiting, Connection listening) throws Exception;
    }

    /** Runs {@code test}; the waiting engine's tree-lock policy polls every five minutes. */
    private static void onTwoEngines(TwoEngines test) throws Exception {
        String name = "ts_wake_" + UUID.randomUUID().toString().substring(0, 8);
        EngineConfig db = TestDatabases.newDatabase(TestDatabases.postgres(), name);
        try (ContentEngine releasing = ContentEngine.open(db);
             ContentEngine waiting = ContentEngine.open(slowPoll(db));
             Connection listening = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password())) {
            try (Statement s = listening.createStatement()) {
                s.execute("LISTEN " + TreeLockStore.CHANNEL);
            }
            test.run(db, releasing, waiting, listening);
        } finally {
            TestDatabases.dropDatabase(TestDatabases.postgres(), name);
        }
    }

    /** An exclusive request of {@code node} in {@code engine}, refused once and queued at the head of its node. */
    private static CompletableFuture<TreeLockHandle> queuedWaiter(ContentEngine engine, TreePath node) {
        TreeLockService locks = ((DefaultTreeLocks) engine.treeLocks()).service();
        CompletableFuture<TreeLockHandle> granted = CompletableFuture.supplyAsync(
                () -> locks.lock(TreeLockRequest.exclusive(node), "waiter", Duration.ofMinutes(10)));
        org.awaitility.Awaitility.await("the waiter queued").atMost(STARTUP).until(() -> locks.hasQueue(node));
        return granted;
    }
}
