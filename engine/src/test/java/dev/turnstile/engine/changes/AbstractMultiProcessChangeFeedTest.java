package dev.turnstile.engine.changes;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.QueuedChange;
import dev.turnstile.engine.ChildJvm;
import dev.turnstile.engine.MutableClock;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/** Dispatchers in separate processes sharing the clients of one database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Tag("multi-process")
public abstract class AbstractMultiProcessChangeFeedTest {
    private static final Duration STARTUP = Duration.ofSeconds(60);
    private static final String PREFIX = "mp-";
    private final MutableClock clock = new MutableClock(Instant.now());
    private ContentEngine engine;
    private ChangeFeed feed;
    private ObjectStore alice;
    private ObjectStore bob;

    @TempDir
    Path dir;

    protected abstract EngineConfig config();

    /** The database child process {@code process} opens: the one database, or on a cluster a node of its own. */
    protected EngineConfig config(int process) {
        return config();
    }

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).changes(ChangesConfig.of(true)).build());
        feed = engine.changes();
        alice = engine.session("alice").objectStore();
        bob = engine.session("bob").objectStore();
        removeClients();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    @AfterEach
    void removeClients() {
        feed.clients().stream().filter(n -> n.startsWith(PREFIX)).forEach(feed::unregisterClient);
    }

    private String[] args(int process, String... more) {
        EngineConfig node = config(process);
        List<String> all = new ArrayList<>(List.of(node.jdbcUrl(), node.username(), node.password()));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void twoDispatcherProcesses_twentyClients_everyChangeDeliveredInObjectOrder() throws Exception {
        dispatchAcrossProcesses(2);
    }

    @Test
    void threeDispatcherProcesses_twentyClients_everyChangeDeliveredInObjectOrder() throws Exception {
        dispatchAcrossProcesses(3);
    }

    private void dispatchAcrossProcesses(int processes) throws Exception {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String docs = "MpDoc" + suffix;
        String notes = "MpNote" + suffix;
        alice.defineClass(docs, c -> c.string("Title").integer32("Pages"));
        alice.defineClass(notes, c -> c.string("Title"));
        // A reference client, served here without coalescing, sees every change of both classes.
        String reference = PREFIX + "ref-" + suffix;
        feed.registerClient(reference, ChangeFilter.classes(docs, notes), DeliveryMode.CALLBACK);
        List<Change> all = Collections.synchronizedList(new ArrayList<>());
        feed.subscribe(reference, (client, changes) -> all.addAll(changes));
        List<ChangeFilter> filters = List.of(ChangeFilter.classes(docs), ChangeFilter.classes(notes),
                ChangeFilter.classes(docs, notes), ChangeFilter.classes(docs).withProperties("Pages"),
                ChangeFilter.classes(docs, notes).withKinds(ChangeKind.CREATE, ChangeKind.DELETE));
        Map<String, ChangeFilter> clients = new LinkedHashMap<>();
        for (int i = 0; i < 20; i++) {
            String name = PREFIX + i + "-" + suffix;
            clients.put(name, filters.get(i % filters.size()));
            feed.registerClient(name, clients.get(name), DeliveryMode.QUEUE);
        }
        Path log = dir.resolve("served-" + processes + ".log");
        List<ChildJvm> children = new ArrayList<>();
        try {
            for (int i = 0; i < processes; i++) {
                children.add(ChildJvm.start(ChangeWorker.class, args(i, "dispatch", log.toString())));
            }
            for (ChildJvm c : children) {
                c.awaitLine("READY"::equals, STARTUP);
            }
            children.forEach(c -> c.send("GO"));
            write(docs, notes);
            // Only the child processes dispatch the 20 queue clients (the reference client's callback is here).
            Awaitility.await("every client caught up").atMost(Duration.ofMinutes(3)).pollInterval(Duration.ofMillis(200))
                    .until(() -> clients.keySet().stream().allMatch(n -> feed.lag(n).pending() == 0));
            children.forEach(c -> c.send("STOP"));
            for (ChildJvm c : children) {
                c.awaitLine(l -> l.startsWith("DONE "), STARTUP);
                assertThat(c.awaitExit(STARTUP)).isZero();
            }
        } finally {
            for (ChildJvm c : children) {
                c.close();
            }
        }
        ChangeDispatcher here = feed.dispatcher(DispatcherConfig.builder().coalesce(false).build());
        while (!here.runOnce().isIdle()) {
            // the reference client, and only it, is behind now
        }
        assertThat(feed.lag(reference).pending()).isZero();
        assertThat(all).isNotEmpty();
        for (Map.Entry<String, ChangeFilter> client : clients.entrySet()) {
            List<Long> expected = all.stream().filter(client.getValue()::matches).map(Change::lastChangeId).sorted().toList();
            List<Change> received = feed.poll(client.getKey(), 100_000).stream().map(QueuedChange::change).toList();
            List<Long> ids = received.stream().flatMap(c -> c.changeIds().stream()).distinct().sorted().toList();
            assertThat(ids).as("client %s (%s) received every matching change", client.getKey(), client.getValue())
                    .isEqualTo(expected);
            Map<UUID, Long> lastSeen = new HashMap<>();
            for (Change c : received) {
                Long before = lastSeen.put(c.objectId(), c.lastChangeId());
                // Queue deliveries are written with the position move: no duplicates, so strictly increasing.
                assertThat(before == null || before < c.changeIds().get(0))
                        .as("per-object order for client %s at %s", client.getKey(), c).isTrue();
            }
        }
        assertNoClientServedByTwoAtOnce(log);
    }

    /** Writers edit objects of both classes, with a bot making bursts of edits to one document. */
    private void write(String docs, String notes) {
        Random random = new Random(7);
        List<CustomObject> objects = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            CustomObject o = (i % 2 == 0 ? alice : bob).createCustomObject(i < 4 ? docs : notes);
            o.getProperties().putValue("Title", "t" + i);
            o.save(RefreshMode.REFRESH);
            objects.add(o);
        }
        for (int i = 0; i < 120; i++) {
            CustomObject o = objects.get(random.nextInt(objects.size()));
            if (i % 10 < 4) {
                for (int burst = 0; burst < 3; burst++) {
                    o = objects.get(0);
                    o.getProperties().putValue("Title", "bot " + i + "." + burst);
                    o.save(RefreshMode.REFRESH);
                }
            } else {
                o.getProperties().putValue("Title", "edit " + i);
                if (o.getClassName().equals(docs) && random.nextBoolean()) {
                    o.getProperties().putValue("Pages", i);
                }
                o.save(RefreshMode.REFRESH);
            }
        }
        objects.get(5).delete();
        objects.get(5).save(RefreshMode.REFRESH);
    }

    private static void assertNoClientServedByTwoAtOnce(Path log) throws Exception {
        Map<String, List<long[]>> windows = new HashMap<>();
        for (String line : Files.readAllLines(log)) {
            String[] f = line.split(" ");
            windows.computeIfAbsent(f[0], k -> new ArrayList<>()).add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2]),
                    Long.parseLong(f[3])});
        }
        assertThat(windows).isNotEmpty();
        for (Map.Entry<String, List<long[]>> e : windows.entrySet()) {
            List<long[]> w = e.getValue();
            for (int i = 0; i < w.size(); i++) {
                for (int j = i + 1; j < w.size(); j++) {
                    long[] a = w.get(i);
                    long[] b = w.get(j);
                    boolean overlap = a[0] < b[1] && b[0] < a[1];
                    assertThat(overlap && a[2] != b[2]).as("client %s served by %d and %d at once", e.getKey(), a[2], b[2])
                            .isFalse();
                }
            }
        }
    }

    /** A new class {@code cls} with a Title, and a CALLBACK client of it (named after it); returns the client's name. */
    private String callbackClientOf(String cls) {
        alice.defineClass(cls, c -> c.string("Title"));
        String client = PREFIX + cls;
        feed.registerClient(client, ChangeFilter.classes(cls), DeliveryMode.CALLBACK);
        return client;
    }

    @Test
    void aDispatcherKilledMidBatch_itsClientIsTakenOverAfterTheLease_andTheBatchRedelivered() throws Exception {
        String cls = "MpKill" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String client = callbackClientOf(cls);
        for (int i = 0; i < 3; i++) {
            CustomObject o = alice.createCustomObject(cls);
            o.getProperties().putValue("Title", "t" + i);
            o.save(RefreshMode.REFRESH);
        }
        String delivering;
        Instant beforeChild = Instant.now();
        Instant afterKill;
        try (ChildJvm child = ChildJvm.start(ChangeWorker.class, args(1, "hang", client))) {
            delivering = child.awaitLine(l -> l.startsWith("DELIVERING "), STARTUP).substring("DELIVERING ".length());
            child.kill();
            afterKill = Instant.now();
        }
        assertThat(delivering.split(",")).hasSize(3);
        List<String> redelivered = Collections.synchronizedList(new ArrayList<>());
        feed.subscribe(client, (c, changes) -> changes.forEach(ch -> ch.changeIds().forEach(id -> redelivered.add("" + id))));
        ChangeDispatcher rescuer = feed.dispatcher(DispatcherConfig.builder().coalesce(false).build());
        // The child took its lease between these two instants, by the database clock.
        clock.set(beforeChild.plus(DispatcherConfig.DEFAULT_LEASE).minusSeconds(1));
        assertThat(feed.lag(client).heldBy()).as("still held by the dead dispatcher").startsWith("hang-");
        assertThat(rescuer.runOnce().isIdle()).isTrue();
        clock.set(afterKill.plus(DispatcherConfig.DEFAULT_LEASE).plusSeconds(1));
        assertThat(rescuer.runOnce().client()).isEqualTo(client);
        assertThat(String.join(",", redelivered)).as("the same batch, nothing lost").isEqualTo(delivering);
        assertThat(feed.lag(client).pending()).isZero();
    }

    /**
     * A dispatcher paused between reading a batch and calling its subscriber, past its lease, while
     * another took the client and delivered: when it goes on it does not call (before: it called
     * with the stale batch, 5 s after its lease, an older state applied after a newer one).
     */
    @Test
    void aDispatcherPausedBeforeItsCall_pastItsLease_neverCalls_afterAnotherDelivered() throws Exception {
        String cls = "MpStall" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        String client = callbackClientOf(cls);
        CustomObject o = alice.createCustomObject(cls);
        o.save(RefreshMode.REFRESH);
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        feed.subscribe(client, (c, changes, token) -> tokens.add(token));
        ChangeDispatcher rescuer = feed.dispatcher(DispatcherConfig.builder().name("rescuer-" + cls).build());
        try (ChildJvm child = ChildJvm.start(ChangeWorker.class, args(1, "stall", client))) {
            child.awaitLine("STALLED"::equals, STARTUP);
            assertThat(feed.lag(client).heldBy()).startsWith("stall-");
            clock.set(Instant.now().plusSeconds(3)); // past the child's 2 s lease, by this engine's clock
            assertThat(rescuer.runOnce().delivered()).as("the rescuer takes the client and delivers").isEqualTo(1);
            child.send("GO");
            assertThat(child.awaitLine(l -> l.startsWith("DONE "), STARTUP)).isEqualTo("DONE delivered=0");
            assertThat(child.lines()).noneMatch(l -> l.startsWith("DELIVERING"));
        }
        assertThat(tokens).hasSize(1);
        assertThat(feed.lag(client).pending()).isZero();
    }
}
