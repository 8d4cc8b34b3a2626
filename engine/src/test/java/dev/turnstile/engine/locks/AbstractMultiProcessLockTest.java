package dev.turnstile.engine.locks;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
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
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/** Cooperative locks between real processes sharing one database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("multi-process")
public abstract class AbstractMultiProcessLockTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private final MutableClock clock = new MutableClock(Instant.now());
    private ContentEngine engine;
    private ObjectStore os;

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
        os = engine.session("parent").objectStore();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    private String[] args(int process, String cls, UUID id, String... more) {
        EngineConfig node = config(process);
        List<String> all = new ArrayList<>(List.of(node.jdbcUrl(), node.username(), node.password(), cls,
                id.toString()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    private UUID newObject(String cls) {
        os.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject o = os.createCustomObject(cls);
        o.save(RefreshMode.REFRESH);
        return o.getId();
    }

    @Test
    void threeProcessesTakingTheLock_neverHoldItAtOnce() throws Exception {
        String cls = "Raced" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        UUID id = newObject(cls);
        Path log = dir.resolve("critical-sections.log");
        int rounds = 30;
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                children.add(ChildJvm.start(LockWorker.class, args(i, cls, id, "race", "" + rounds, log.toString())));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY"::equals, STARTUP);
            }
            children.forEach(c -> c.send("GO"));
            for (ChildJvm c : children) {
                c.awaitLine(l -> l.startsWith("DONE "), Duration.ofMinutes(3));
                assertThat(c.awaitExit(STARTUP)).isZero();
            }
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
        List<String> lines = Files.readAllLines(log);
        assertThat(lines).hasSize(3 * rounds * 2);
        for (int i = 0; i < lines.size(); i += 2) {
            String holder = lines.get(i).substring("START ".length());
            assertThat(lines.get(i)).as("line %d", i).startsWith("START ");
            assertThat(lines.get(i + 1)).as("the section started at line %d ends before another starts", i)
                    .isEqualTo("END " + holder);
        }
        assertThat(lines.stream().map(l -> l.substring(l.indexOf(' ') + 1)).distinct()).hasSize(3);
        assertThat(os.fetchCustomObject(cls, id, PropertyFilter.ALL).getUpdateSequenceNumber())
                .as("every lock and unlock is one save").isEqualTo((long) (3 * rounds * 2));
    }

    /**
     * Issue 44: a holder paused (SIGSTOP, as a long GC pause would) past its lock's expiry, whose
     * lock another process then takes and writes under, resumes and writes with what it holds: its
     * save, batch and unlock are each refused (the USN and the lock's token fence it), and nothing
     * of it lands — the value and the lock are the new holder's.
     */
    @Test
    void aHolderPausedPastItsLock_resumes_andNothingItWritesLands() throws Exception {
        String cls = "Paused" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        UUID id = newObject(cls);
        try (ChildJvm paused = ChildJvm.start(LockWorker.class, args(1, cls, id, "paused-writer", "30"))) {
            paused.awaitLine("LOCKED"::equals, STARTUP);
            paused.pause();
            try {
                Instant expiry = os.fetchCustomObject(cls, id, PropertyFilter.ALL).getLockExpiry();
                clock.set(expiry.plusMillis(1)); // the paused holder's lock has lapsed, by the taker's clock
                CustomObject taken = os.getCustomObject(cls, id);
                taken.lock(30, "parent");
                taken.getProperties().putValue("Counter", 7);
                taken.save(RefreshMode.REFRESH);
            } finally {
                paused.resume();
            }
            paused.send("RESUMED");
            assertThat(paused.awaitLine(l -> l.startsWith("SAVE "), STARTUP)).isEqualTo("SAVE E_OBJECT_MODIFIED");
            assertThat(paused.awaitLine(l -> l.startsWith("BATCH "), STARTUP)).isEqualTo("BATCH E_OBJECT_MODIFIED");
            assertThat(paused.awaitLine(l -> l.startsWith("UNLOCK "), STARTUP)).isEqualTo("UNLOCK E_OBJECT_MODIFIED");
            paused.send("EXIT");
        }
        CustomObject now = os.fetchCustomObject(cls, id, PropertyFilter.ALL);
        assertThat(now.getProperties().getInteger32Value("Counter")).as("the new holder's write, not the paused one's").isEqualTo(7);
        assertThat(now.getLockHolder()).isEqualTo("parent");
    }

    @Test
    void killedHoldersLock_lapsesAtItsExpiry_notBefore() throws Exception {
        String cls = "Held" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        UUID id = newObject(cls);
        try (ChildJvm holder = ChildJvm.start(LockWorker.class, args(1, cls, id, "hold", "30"))) {
            holder.awaitLine("LOCKED"::equals, STARTUP);
            holder.kill();
        }
        Instant expiry = os.fetchCustomObject(cls, id, PropertyFilter.ALL).getLockExpiry();
        assertThat(expiry).isNotNull();

        clock.set(expiry.minusMillis(1));
        CustomObject early = os.getCustomObject(cls, id);
        early.lock(30, "parent");
        try {
            early.save(RefreshMode.REFRESH);
            throw new AssertionError("took a lock before it expired");
        } catch (EngineRuntimeException e) {
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        }

        clock.set(expiry.plusMillis(1));
        CustomObject late = os.getCustomObject(cls, id);
        late.lock(30, "parent");
        late.save(RefreshMode.REFRESH);
        assertThat(late.getLockHolder()).isEqualTo("parent");
    }
}
