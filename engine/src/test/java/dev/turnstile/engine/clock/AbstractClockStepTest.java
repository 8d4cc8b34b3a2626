package dev.turnstile.engine.clock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatchReport;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.ChildJvm;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Nodes whose wall clocks really move: child JVMs under libfaketime (Debian's {@code faketime}
 * package, which .ci/run installs). A node whose clock steps keeps its monotonic clock, as an NTP
 * step leaves CLOCK_MONOTONIC; a node constantly off has every clock off. While this node holds a cooperative lock, a tree lock, an edit lock and a change
 * feed client's lease, a node whose clock steps 10 minutes forward, then 10 minutes back, takes
 * none of them; nodes whose clocks are constantly 10 minutes ahead or behind hold their own locks
 * against this one.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("clock-step")
public abstract class AbstractClockStepTest {
    static final Path LIBFAKETIME = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");
    private static final Duration STARTUP = Duration.ofSeconds(90);
    private ContentEngine engine;
    private ObjectStore os;
    private String cls;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        assertThat(LIBFAKETIME).as("libfaketime (apt-get install faketime)").exists();
        engine = ContentEngine.open(EngineConfig.from(config()).treeLocks(TreeLocksConfig.builder().lease(Duration.ofMinutes(5)).build())
                .changes(ChangesConfig.of(true)).build());
        os = engine.session("here").objectStore();
        cls = "Stepped" + UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        os.defineClass(cls, c -> c.integer32("N"));
    }

    @AfterAll
    void close() {
        engine.close();
    }

    private String[] args(String client) {
        return new String[] {config().jdbcUrl(), config().username(), config().password(), client};
    }

    /**
     * A wall clock that steps ({@code FAKETIME_TIMESTAMP_FILE}): the monotonic clock is left alone, as
     * an NTP step leaves it. Without {@code FAKETIME_FORCE_MONOTONIC_FIX=0} libfaketime still shifts
     * the deadlines of waits on monotonic condition variables (the JVM's), so every timed wait spun:
     * the child took 20 s to open its engine instead of 2 s.
     */
    private static Map<String, String> steppingWallClock(Path offsetFile) {
        return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME_TIMESTAMP_FILE", offsetFile.toString(),
                "FAKETIME_DONT_FAKE_MONOTONIC", "1", "FAKETIME_CACHE_DURATION", "1", "FAKETIME_FORCE_MONOTONIC_FIX", "0");
    }

    /**
     * Every clock of the process {@code skew} off, for good: a constant offset of the monotonic clock
     * is invisible (only its differences mean anything), and leaving it alone made libfaketime's
     * timed waits spin — a child took 20-30 s to open its engine instead of 2-3 s.
     */
    private static Map<String, String> skewedClocks(String skew) {
        return Map.of("LD_PRELOAD", LIBFAKETIME.toString(), "FAKETIME", skew);
    }

    private CustomObject lockedHere() {
        CustomObject o = os.createCustomObject(cls);
        o.lock(300, "held here");
        o.save(RefreshMode.REFRESH);
        return o;
    }

    private String article() {
        String id = "clock-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("here").editLocks().createArticle("wiki", id, "<p>one</p>");
        return id;
    }

    private static String ask(ChildJvm child, String command, String answerPrefix) {
        long before = child.countLines(l -> l.startsWith(answerPrefix));
        child.send(command);
        return child.awaitLine(l -> l.startsWith(answerPrefix) && child.countLines(x -> x.startsWith(answerPrefix)) > before,
                STARTUP);
    }

    /** The four answers of a TRY, in order. */
    private static List<String> tryAll(ChildJvm child, String command) {
        long seen = child.countLines(l -> l.startsWith("FEED "));
        child.send(command);
        child.awaitLine(l -> l.startsWith("FEED ") && child.countLines(x -> x.startsWith("FEED ")) > seen, STARTUP);
        List<String> answers = child.lines().stream().filter(l -> l.matches("(COOP|TREE|EDIT|FEED) .*")).toList();
        return answers.subList(answers.size() - 4, answers.size());
    }

    @Test
    void aNodeWhoseWallClockStepsForwardThenBack_takesNothingAnotherNodeHolds() throws Exception {
        CustomObject held = lockedHere();
        String path = "site:S/workshop:" + UUID.randomUUID().toString().substring(0, 6);
        var treeLock = engine.session("here").treeLocks().tryLock(TreeLockRequest.exclusive(TreePath.parse(path))).orElseThrow();
        String article = article();
        assertThat(engine.session("here").editLocks().tryLock(EditResource.article("wiki", article)).isGranted()).isTrue();

        // A feed client whose lease this node holds: its subscriber is busy delivering.
        String client = "stepped-" + UUID.randomUUID().toString().substring(0, 8);
        engine.changes().registerClient(client, ChangeFilter.classes(cls), DeliveryMode.CALLBACK);
        CountDownLatch delivering = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        engine.changes().subscribe(client, (c, changes) -> {
            delivering.countDown();
            finish.await();
        });
        CustomObject change = os.createCustomObject(cls);
        change.save(RefreshMode.REFRESH);
        ExecutorService dispatching = Executors.newSingleThreadExecutor();
        Path offset = Files.createTempFile("faketime-", ".rc");
        Files.writeString(offset, "+0\n");
        try (ChildJvm node = ChildJvm.start(steppingWallClock(offset), ClockWorker.class, args(client))) {
            // A pass serves one client that is behind: on a shared database it may be another test's,
            // so passes run until this one's subscriber is delivering (and then it holds its lease).
            var dispatcher = engine.changes().dispatcher(DispatcherConfig.builder().name("here").lease(Duration.ofMinutes(5)).build());
            Future<DispatchReport> served = dispatching.submit(() -> {
                DispatchReport last = dispatcher.runOnce();
                for (long until = System.nanoTime() + STARTUP.toNanos(); delivering.getCount() > 0 && System.nanoTime() < until; ) {
                    last = dispatcher.runOnce();
                }
                return last;
            });
            assertThat(delivering.await(STARTUP.toSeconds(), TimeUnit.SECONDS))
                    .as("this node's dispatcher delivering to its client").isTrue();
            node.awaitLine("READY"::equals, STARTUP);
            String tryCommand = "TRY " + cls + " " + held.getId() + " " + path + " " + article;

            Files.writeString(offset, "+600\n"); // NTP steps the node's clock 10 minutes forward
            ask(node, "WALL 600", "WALL ");
            assertThat(tryAll(node, tryCommand)).as("stepped forward")
                    .containsExactly("COOP refused", "TREE refused", "EDIT refused", "FEED refused");

            Files.writeString(offset, "-600\n"); // and then 10 minutes back
            ask(node, "WALL -600", "WALL ");
            assertThat(tryAll(node, tryCommand)).as("stepped back")
                    .containsExactly("COOP refused", "TREE refused", "EDIT refused", "FEED refused");
            node.send("EXIT");
            assertThat(node.awaitExit(STARTUP)).isZero();
        } finally {
            finish.countDown();
            dispatching.shutdown();
            dispatching.awaitTermination(1, TimeUnit.MINUTES);
            engine.changes().unregisterClient(client); // a client left behind would hold back every prune
            treeLock.unlock();
            Files.deleteIfExists(offset);
        }
    }

    @Test
    void nodesTenMinutesAheadAndBehind_holdTheirLocksAgainstThisOne() throws Exception {
        for (String skew : List.of("+10m", "-10m")) {
            CustomObject o = os.createCustomObject(cls);
            o.save(RefreshMode.REFRESH);
            String path = "site:S/workshop:" + UUID.randomUUID().toString().substring(0, 6);
            String article = article();
            try (ChildJvm node = ChildJvm.start(skewedClocks(skew), ClockWorker.class, args("-"))) {
                node.awaitLine("READY"::equals, STARTUP);
                ask(node, "HOLD " + cls + " " + o.getId() + " " + path + " " + article, "HELD");

                CustomObject mine = os.getCustomObject(cls, o.getId());
                mine.lock(30, "here");
                try {
                    mine.save(RefreshMode.REFRESH);
                    throw new AssertionError("took the cooperative lock of a node " + skew + " off");
                } catch (EngineRuntimeException e) {
                    assertThat(e.getExceptionCode()).as(skew).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
                }
                assertThat(engine.session("here").treeLocks().tryLock(TreeLockRequest.exclusive(TreePath.parse(path)))).as(skew).isEmpty();
                assertThat(engine.session("here").editLocks().tryLock(EditResource.article("wiki", article)).isGranted()).as(skew).isFalse();
                node.send("EXIT");
                assertThat(node.awaitExit(STARTUP)).isZero();
            }
        }
    }
}
