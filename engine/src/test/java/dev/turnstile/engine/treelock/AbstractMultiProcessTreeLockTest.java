package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/** Tree locks between real processes sharing one database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("multi-process")
public abstract class AbstractMultiProcessTreeLockTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private final MutableClock clock = new MutableClock(Instant.now());
    private ContentEngine engine;
    private TreeLocks locks;

    @TempDir
    Path dir;

    protected abstract EngineConfig config();

    /** The database child process {@code process} opens: the one database, or on a cluster a node of its own. */
    protected EngineConfig config(int process) {
        return config();
    }

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).build());
        locks = engine.treeLocks();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    private String[] args(int process, String... more) {
        EngineConfig node = config(process);
        List<String> all = new ArrayList<>(List.of(node.jdbcUrl(), node.username(), node.password()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private record Operation(long start, long end, String pid, TreeLockRequest request) {
    }

    /** The tree locks as {@code user}. */
    private TreeLocks as(String user) {
        return engine.session(user).treeLocks();
    }

    @Test
    void threeProcesses_conflictingOperationsNeverOverlap() throws Exception {
        String site = UUID.randomUUID().toString().substring(0, 8);
        Path log = dir.resolve("operations.log");
        int rounds = 40;
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(TreeLockWorker.class, args(i, "race", site, "" + rounds, log.toString())));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY"::equals, STARTUP);
            }
            children.forEach(c -> c.send("GO"));
            for (ChildJvm c : children) {
                c.awaitLine("DONE"::equals, Duration.ofMinutes(3));
                assertThat(c.awaitExit(STARTUP)).isZero();
            }
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
        List<Operation> ops = Files.readAllLines(log).stream().map(line -> {
            String[] f = line.split(" ", 4);
            return new Operation(Long.parseLong(f[0]), Long.parseLong(f[1]), f[2], TreeLockStore.decode(f[3].replace(';', '\n')));
        }).toList();
        assertThat(ops).hasSize(3 * rounds);
        for (int i = 0; i < ops.size(); i++) {
            for (int j = i + 1; j < ops.size(); j++) {
                Operation a = ops.get(i);
                Operation b = ops.get(j);
                boolean overlap = a.start < b.end && b.start < a.end;
                if (overlap) {
                    assertThat(AbstractTreeLockContractTest.conflict(a.request, b.request))
                            .as("%s (pid %s) overlapped %s (pid %s)", a.request, a.pid, b.request, b.pid).isFalse();
                }
            }
        }
        assertThat(locks.status(TreePath.root("site", site))).isEmpty();
    }

    @Test
    void anotherProcessesLock_blocksTheConflictingNode_notAnIndependentOne() throws Exception {
        String site = UUID.randomUUID().toString().substring(0, 8);
        TreePath root = TreePath.root("site", site);
        try (ChildJvm holder = ChildJvm.start(TreeLockWorker.class, args(1, "hold", site))) {
            holder.awaitLine(l -> l.startsWith("LOCKED "), STARTUP);
            assertThat(as("parent").tryLock(TreeLockRequest.exclusive(root.child("workshop", "A").child("bench", "2"))))
                    .as("a bench under the held workshop").isEmpty();
            assertThat(as("parent").tryLock(TreeLockRequest.shared(root))).as("the site above it").isEmpty();
            Optional<TreeLockHandle> other = as("parent").tryLock(TreeLockRequest.exclusive(root.child("workshop", "B")));
            assertThat(other).as("the other workshop, while A is held").isPresent();
            other.get().unlock();
            holder.kill();
        }
    }

    /**
     * Issue 44: a holder paused (SIGSTOP) past its lease, whose nodes another process then takes,
     * resumes: its heartbeat is refused and its release releases nothing — the new holder keeps
     * its lock and a third request is still refused.
     */
    @Test
    void aHolderPausedPastItsLease_resumes_andCannotRenewOrReleaseTheNewHoldersLock() throws Exception {
        String site = UUID.randomUUID().toString().substring(0, 8);
        TreePath workshop = TreePath.root("site", site).child("workshop", "A");
        TreeLockRequest bench = TreeLockRequest.exclusive(workshop.child("bench", "1"));
        try (ChildJvm paused = ChildJvm.start(TreeLockWorker.class, args(1, "paused-holder", site))) {
            String line = paused.awaitLine(l -> l.startsWith("LOCKED "), STARTUP);
            Instant expiry = Instant.parse(line.substring("LOCKED ".length()));
            paused.pause();
            Optional<TreeLockHandle> taken;
            try {
                clock.set(expiry.plusMillis(1)); // the paused holder's lease has lapsed, by the taker's clock
                taken = as("parent").tryLock(bench);
                assertThat(taken).as("taken once the lease lapsed").isPresent();
            } finally {
                paused.resume();
            }
            paused.send("RESUMED");
            assertThat(paused.awaitLine(l -> l.startsWith("HEARTBEAT "), STARTUP)).isEqualTo("HEARTBEAT E_LEASE_LAPSED");
            assertThat(paused.awaitLine(l -> l.startsWith("UNLOCK "), STARTUP)).isEqualTo("UNLOCK false");
            paused.send("EXIT");
            assertThat(locks.status(workshop)).extracting(TreeLockInfo::holder).containsExactly("parent");
            assertThat(as("third").tryLock(bench)).as("the new holder's lock still holds").isEmpty();
            taken.get().unlock();
        }
    }

    @Test
    void killedHoldersLocks_lapseAfterTheLease_notBefore() throws Exception {
        String site = UUID.randomUUID().toString().substring(0, 8);
        TreePath workshop = TreePath.root("site", site).child("workshop", "A");
        Instant expiry;
        try (ChildJvm holder = ChildJvm.start(TreeLockWorker.class, args(1, "hold", site))) {
            String line = holder.awaitLine(l -> l.startsWith("LOCKED "), STARTUP);
            expiry = Instant.parse(line.substring("LOCKED ".length()));
            holder.kill();
        }
        TreeLockRequest bench = TreeLockRequest.exclusive(workshop.child("bench", "1"));
        clock.set(expiry.minusMillis(1));
        assertThat(as("parent").tryLock(bench)).as("before the lease ends").isEmpty();
        clock.set(expiry.plusMillis(1));
        Optional<TreeLockHandle> taken = as("parent").tryLock(bench);
        assertThat(taken).as("after the lease ends").isPresent();
        taken.get().unlock();
        assertThat(locks.status(workshop)).isEmpty();
    }
}
