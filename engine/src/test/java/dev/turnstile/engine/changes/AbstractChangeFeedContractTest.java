package dev.turnstile.engine.changes;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;
import dev.turnstile.api.changes.Change;
import dev.turnstile.api.changes.ChangeDispatcher;
import dev.turnstile.api.changes.ChangeFeed;
import dev.turnstile.api.changes.ChangeFilter;
import dev.turnstile.api.changes.ChangeKind;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.changes.ClientLag;
import dev.turnstile.api.changes.DeliveryMode;
import dev.turnstile.api.changes.DispatchReport;
import dev.turnstile.api.changes.DispatcherConfig;
import dev.turnstile.api.changes.PropertyChange;
import dev.turnstile.api.changes.QueuedChange;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.TestDatabases;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The change feed on every database: one change per committed save and none per rolled-back one,
 * delivery through dispatchers to queue and callback clients, coalescing, leases on an injected
 * clock, lag, pruning and bad input. Each test has its own class and clients; the suite has a
 * database of its own, since a prune counts every client in it (another suite's client that is
 * behind held it back on the shared one).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractChangeFeedContractTest {
    private final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    private EngineConfig database;
    private ContentEngine engine;
    private ChangeFeed feed;
    private ObjectStore alice;
    private ObjectStore bob;
    private String cls;
    private String other;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() throws java.sql.SQLException {
        database = TestDatabases.ownDatabase(config(), "ts_feed_contract");
        engine = ContentEngine.open(EngineConfig.from(database).clock(clock).changes(ChangesConfig.of(true)).build());
        feed = engine.changes();
        alice = engine.session("alice").objectStore();
        bob = engine.session("bob").objectStore();
    }

    @AfterAll
    void close() throws java.sql.SQLException {
        engine.close();
        TestDatabases.dropOwnDatabase(config(), database);
    }

    /** A test's clients: none may outlive it, or the next test's prune and lag would count them. */
    @org.junit.jupiter.api.AfterEach
    void removeTestClients() {
        feed.clients().stream().filter(n -> n.startsWith(PREFIX)).forEach(feed::unregisterClient);
    }

    private static final String PREFIX = "contract-";

    @BeforeEach
    void defineClasses() {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 10);
        cls = "Doc" + suffix;
        other = "Other" + suffix;
        alice.defineClass(cls, c -> c.string("Title").integer32("Pages"));
        alice.defineClass(other, c -> c.string("Title"));
    }

    private String client(DeliveryMode mode, ChangeFilter filter) {
        String name = PREFIX + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        feed.registerClient(name, filter, mode);
        return name;
    }

    /** Runs a dispatcher until no client of this test is behind; returns what the queue client got. */
    private List<Change> drain(String queueClient, DispatcherConfig config) {
        ChangeDispatcher d = feed.dispatcher(config);
        for (int i = 0; i < 1000 && !d.runOnce().isIdle(); i++) {
            // each pass serves one client
        }
        List<QueuedChange> queued = feed.poll(queueClient, 10_000);
        feed.acknowledge(queueClient, queued.stream().map(QueuedChange::deliveryId).toList());
        return queued.stream().map(QueuedChange::change).toList();
    }

    private List<Change> drain(String queueClient) {
        return drain(queueClient, DispatcherConfig.builder().coalesce(false).build());
    }

    private CustomObject create(ObjectStore os, String title) {
        CustomObject o = os.createCustomObject(cls);
        o.getProperties().putValue("Title", title);
        o.save(RefreshMode.REFRESH);
        return o;
    }

    @Test
    void everyCommittedSaveWritesExactlyOneChange_withKindUsnsAndValues() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        CustomObject o = create(alice, "Draft");
        o.getProperties().putValue("Title", "Final");
        o.getProperties().putValue("Pages", 12);
        o.save(RefreshMode.REFRESH);
        o.lock(60, "editing");
        o.save(RefreshMode.REFRESH);
        o.unlock();
        o.save(RefreshMode.REFRESH);
        o.delete();
        o.save(RefreshMode.REFRESH);

        List<Change> got = drain(c);
        assertThat(got).extracting(Change::kind).containsExactly(ChangeKind.CREATE, ChangeKind.UPDATE, ChangeKind.LOCK,
                ChangeKind.UNLOCK, ChangeKind.DELETE);
        assertThat(got).extracting(Change::usnBefore).containsExactly(null, 0L, 1L, 2L, 3L);
        assertThat(got).extracting(Change::usnAfter).containsExactly(0L, 1L, 2L, 3L, null);
        assertThat(got).allSatisfy(ch -> {
            assertThat(ch.objectId()).isEqualTo(o.getId());
            assertThat(ch.className()).isEqualTo(cls);
            assertThat(ch.user()).isEqualTo("alice");
            assertThat(ch.time()).isEqualTo(clock.instant());
        });
        assertThat(got.get(0).properties()).containsExactly(Map.entry("Title", new PropertyChange(null, "Draft")));
        assertThat(got.get(1).properties()).containsExactly(Map.entry("Pages", new PropertyChange(null, 12)),
                Map.entry("Title", new PropertyChange("Draft", "Final")));
        assertThat(got.get(2).properties()).isEmpty();
        assertThat(got.get(4).properties()).containsEntry("Title", new PropertyChange("Final", null));
        assertThat(got).extracting(Change::lastChangeId).isSorted().doesNotHaveDuplicates();
        assertThat(got).extracting(Change::position).isSorted().doesNotHaveDuplicates();
    }

    /** A lock taken by a fetchless instance (every attempt of Locking; one statement on PostgreSQL) is recorded as any lock. */
    @Test
    void aLockTakenWithoutALook_isRecordedAsALock() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        CustomObject o = create(alice, "Draft");
        CustomObject fetchless = bob.getCustomObject(cls, o.getId());
        fetchless.lock(60, "editing");
        fetchless.save(RefreshMode.REFRESH);

        List<Change> got = drain(c);
        assertThat(got).extracting(Change::kind).containsExactly(ChangeKind.CREATE, ChangeKind.LOCK);
        Change lock = got.get(1);
        assertThat(lock.user()).isEqualTo("bob");
        assertThat(lock.usnBefore()).isZero();
        assertThat(lock.usnAfter()).isEqualTo(1L);
        assertThat(lock.time()).isEqualTo(fetchless.getDateLastModified());
        assertThat(lock.properties()).isEmpty();
    }

    @Test
    void rolledBackSavesWriteNoChange() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        CustomObject o = create(alice, "v1");
        CustomObject stale = alice.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL);
        o.getProperties().putValue("Title", "v2");
        o.save(RefreshMode.REFRESH);
        stale.getProperties().putValue("Title", "lost");
        assertThat(failure(() -> stale.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);

        // A batch whose second save fails rolls back the first one's change as well.
        CustomObject fresh = alice.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL);
        CustomObject created = alice.createCustomObject(cls);
        created.getProperties().putValue("Title", "in batch");
        fresh.getProperties().putValue("Title", "batched");
        stale.getProperties().putValue("Title", "stale again");
        UpdatingBatch batch = alice.createUpdatingBatch(RefreshMode.REFRESH);
        batch.add(created, null);
        batch.add(stale, null);
        assertThat(failure(batch::updateBatch).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);

        // A preprocessor that refuses rolls the save back.
        alice.addChangePreprocessor(cls, change -> {
            if ("refused".equals(change.properties().getStringValue("Title"))) {
                throw new IllegalStateException("no");
            }
        });
        fresh.getProperties().putValue("Title", "refused");
        assertThat(failure(() -> fresh.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_PREPROCESSOR_FAILED);

        assertThat(drain(c)).extracting(Change::kind, ch -> ch.properties().get("Title").newValue())
                .containsExactly(org.assertj.core.groups.Tuple.tuple(ChangeKind.CREATE, "v1"),
                        org.assertj.core.groups.Tuple.tuple(ChangeKind.UPDATE, "v2"));
    }

    @Test
    void filtersByClassPropertyAndKind() {
        String docs = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        String pages = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls).withProperties("Pages"));
        String creations = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls, other).withKinds(ChangeKind.CREATE));
        CustomObject d = create(alice, "a");
        d.getProperties().putValue("Pages", 3);
        d.save(RefreshMode.REFRESH);
        CustomObject x = alice.createCustomObject(other);
        x.getProperties().putValue("Title", "x");
        x.save(RefreshMode.REFRESH);

        assertThat(drain(docs)).extracting(Change::objectId).containsExactly(d.getId(), d.getId());
        assertThat(drain(pages)).singleElement().satisfies(ch -> assertThat(ch.properties()).containsKey("Pages"));
        assertThat(drain(creations)).extracting(Change::objectId).containsExactly(d.getId(), x.getId());
    }

    @Test
    void coalescing_aRunByOneUserMerges_anotherUserAnInterleavedObjectOrAnotherKindBreaksIt() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        CustomObject a = create(alice, "a0");
        CustomObject b = create(alice, "b0");
        drain(c);
        for (int i = 1; i <= 3; i++) { // a run of three edits by alice
            a.getProperties().putValue("Title", "a" + i);
            a.save(RefreshMode.REFRESH);
        }
        CustomObject aByBob = bob.fetchCustomObject(cls, a.getId(), PropertyFilter.ALL);
        aByBob.getProperties().putValue("Title", "bob");      // another user breaks the run
        aByBob.save(RefreshMode.REFRESH);
        a = alice.fetchCustomObject(cls, a.getId(), PropertyFilter.ALL);
        a.getProperties().putValue("Title", "a4");
        a.save(RefreshMode.REFRESH);
        b.getProperties().putValue("Title", "b1");             // an interleaved object breaks it
        b.save(RefreshMode.REFRESH);
        a.getProperties().putValue("Title", "a5");
        a.save(RefreshMode.REFRESH);
        a.lock(30, "x");                                       // another kind breaks it
        a.save(RefreshMode.REFRESH);
        a.getProperties().putValue("Title", "a6");
        a.save(RefreshMode.REFRESH);

        List<Change> got = drain(c, DispatcherConfig.ofDefaults());
        assertThat(got).extracting(Change::user, Change::kind, ch -> ch.changeIds().size()).containsExactly(
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.UPDATE, 3),
                org.assertj.core.groups.Tuple.tuple("bob", ChangeKind.UPDATE, 1),
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.UPDATE, 1),
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.UPDATE, 1),
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.UPDATE, 1),
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.LOCK, 1),
                org.assertj.core.groups.Tuple.tuple("alice", ChangeKind.UPDATE, 1));
        Change run = got.get(0);
        assertThat(run.properties()).containsExactly(Map.entry("Title", new PropertyChange("a0", "a3")));
        assertThat(run.usnBefore()).isZero();
        assertThat(run.usnAfter()).isEqualTo(3L);
        assertThat(run.isCoalesced()).isTrue();
        assertThat(got.get(3).objectId()).isEqualTo(b.getId());
    }

    @Test
    void coalescing_anEditTheClientDoesNotSee_stillEndsTheRun_andNothingIsMisattributed() {
        String titles = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls).withProperties("Title"));
        CustomObject a = create(alice, "a0");
        drain(titles);
        CustomObject byBob = bob.fetchCustomObject(cls, a.getId(), PropertyFilter.ALL);
        byBob.getProperties().putValue("Title", "bot 1");
        byBob.save(RefreshMode.REFRESH);
        a = alice.fetchCustomObject(cls, a.getId(), PropertyFilter.ALL);
        a.getProperties().putValue("Pages", 7);                 // alice's edit, unseen by a Title client
        a.save(RefreshMode.REFRESH);
        byBob.refresh();
        byBob.getProperties().putValue("Title", "bot 2");
        byBob.save(RefreshMode.REFRESH);

        List<Change> got = drain(titles, DispatcherConfig.ofDefaults());
        assertThat(got).extracting(Change::user, Change::usnBefore, Change::usnAfter, ch -> ch.changeIds().size()).containsExactly(
                org.assertj.core.groups.Tuple.tuple("bob", 0L, 1L, 1),
                org.assertj.core.groups.Tuple.tuple("bob", 2L, 3L, 1));
    }

    @Test
    void callbackClient_getsBatchesInOrder_andAFailedDeliveryComesAgain() {
        String c = client(DeliveryMode.CALLBACK, ChangeFilter.classes(cls));
        List<Long> received = Collections.synchronizedList(new ArrayList<>());
        boolean[] fail = {true};
        feed.subscribe(c, (client, changes) -> {
            if (fail[0]) {
                fail[0] = false;
                throw new IllegalStateException("indexer down");
            }
            changes.forEach(ch -> received.addAll(ch.changeIds()));
        });
        for (int i = 0; i < 5; i++) {
            create(alice, "t" + i);
        }
        ChangeDispatcher d = feed.dispatcher(DispatcherConfig.builder().batchSize(3).build());
        DispatchReport failed = d.runOnce();
        assertThat(failed.client()).isEqualTo(c);
        assertThat(failed.delivered()).isZero();
        while (!d.runOnce().isIdle()) {
            // until caught up
        }
        assertThat(received).hasSize(5).isSorted();
        assertThat(feed.lag(c).pending()).isZero();
    }

    @Test
    void anIdleDispatcher_isWokenByANewChange_notAtTheEndOfItsIdleDelay() throws Exception {
        String c = client(DeliveryMode.CALLBACK, ChangeFilter.classes(cls));
        CompletableFuture<UUID> delivered = new CompletableFuture<>();
        feed.subscribe(c, (client, changes) -> delivered.complete(changes.get(0).objectId()));
        ChangeDispatcher d = feed.dispatcher(DispatcherConfig.builder().idleDelay(Duration.ofMinutes(5)).build());
        d.start();
        try {
            // Nothing to deliver yet: it begins its five-minute idle wait.
            org.awaitility.Awaitility.await("idle").atMost(Duration.ofMinutes(1))
                    .until(() -> ((DefaultChangeDispatcher) d).idleWaits > 0);
            UUID saved = create(alice, "news").getId();
            assertThat(delivered.get(1, TimeUnit.MINUTES)).isEqualTo(saved); // without the wake-up: 5 minutes
        } finally {
            d.stop();
        }
    }

    /** The client row's USN: every take, renewal and give-back moves it on. */
    private long clientUsn(String client) throws java.sql.SQLException {
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(database.jdbcUrl(), database.username(), database.password());
             java.sql.PreparedStatement s = c.prepareStatement("SELECT usn FROM ts_feed_client WHERE client_name = ?")) {
            s.setString(1, client);
            try (java.sql.ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        }
    }

    /**
     * A subscriber's call slower than the lease keeps its client: the lease is renewed while the call
     * runs (every third of a lease), so no other dispatcher calls beside it — before, a second
     * dispatcher took the client one lease in and delivered the batch again while the first call
     * still ran. A dispatcher that really stops (its process killed or paused) loses the client
     * after the lease ({@code AbstractMultiProcessChangeFeedTest}). Each batch carries its lease's
     * fencing token, which only grows from holder to holder.
     */
    @Test
    void aCallSlowerThanTheLease_keepsItsClient_noSecondCallBesideIt_andTokensOnlyGrow() throws Exception {
        String c = client(DeliveryMode.CALLBACK, ChangeFilter.classes(cls));
        create(alice, "one");
        create(alice, "two");
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch resume = new CountDownLatch(1);
        List<List<Long>> deliveries = Collections.synchronizedList(new ArrayList<>());
        List<Long> tokens = Collections.synchronizedList(new ArrayList<>());
        feed.subscribe(c, (client, changes, fencingToken) -> {
            deliveries.add(changes.stream().flatMap(ch -> ch.changeIds().stream()).toList());
            tokens.add(fencingToken);
            if (deliveries.size() == 1) {
                inside.countDown();
                resume.await(); // the first call runs on, past its lease
            }
        });
        Duration lease = Duration.ofSeconds(3);
        ChangeDispatcher slow = feed.dispatcher(DispatcherConfig.builder().name("slow").lease(lease).build());
        ChangeDispatcher other = feed.dispatcher(DispatcherConfig.builder().name("other").lease(lease).build());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<DispatchReport> first = pool.submit(slow::runOnce);
            assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
            assertThat(feed.lag(c).heldBy()).isEqualTo("slow");
            // Twice the lease passes by the clock, a step at a time, each step inside the lease the last renewal set.
            for (int step = 0; step < 3; step++) {
                long usn = clientUsn(c);
                clock.advance(lease.minusSeconds(1));
                Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> clientUsn(c) > usn); // renewed
            }
            assertThat(other.runOnce().isIdle()).as("no second call while the first runs").isTrue();
            assertThat(deliveries).hasSize(1);
            resume.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS).delivered()).as("the slow call's batch counts").isEqualTo(2);
            assertThat(feed.lag(c).pending()).isZero();
            create(alice, "three");
            assertThat(other.runOnce().delivered()).isEqualTo(1);
            assertThat(tokens).hasSize(2);
            assertThat(tokens.get(1)).as("the next holder's token").isGreaterThan(tokens.get(0));
        } finally {
            resume.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void lag_countsPendingChangesAndTheOldestAge() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        create(alice, "a");
        clock.advance(Duration.ofSeconds(5));
        create(alice, "b");
        create(alice, "elsewhere"); // same class: pending too
        ClientLag lag = feed.lag(c);
        assertThat(lag.pending()).isEqualTo(3);
        assertThat(lag.oldestPending()).isEqualTo(Duration.ofSeconds(5));
        drain(c);
        assertThat(feed.lag(c).pending()).isZero();
        assertThat(feed.lag(c).oldestPending()).isNull();
        assertThat(feed.lag()).extracting(ClientLag::client).contains(c);
    }

    @Test
    void lagOfEveryClient_isOneQueryForTheClientsAndOneForTheirCounts_eachByItsOwnFilter() {
        String all = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        String creations = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls).withKinds(ChangeKind.CREATE));
        String none = client(DeliveryMode.QUEUE, ChangeFilter.classes(other));
        create(alice, "a");
        create(alice, "b");
        EngineStatistics before = engine.statistics();
        List<ClientLag> lags = feed.lag();
        long statements = engine.statistics().since(before).statements();
        assertThat(statements).as("statements for %d clients (on the old code: one count each)", lags.size())
                .isLessThanOrEqualTo(1 + (lags.size() + 49) / 50);
        java.util.Map<String, Long> pending = new java.util.HashMap<>();
        lags.forEach(l -> pending.put(l.client(), l.pending()));
        assertThat(pending.get(all)).isEqualTo(2);
        assertThat(pending.get(creations)).isEqualTo(2);
        assertThat(pending.get(none)).isZero();
    }

    @Test
    void pruning_neverDeletesAChangeSomeClientHasNotPassed() {
        String ahead = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        String behind = client(DeliveryMode.CALLBACK, ChangeFilter.classes(cls)); // no subscriber yet: nobody serves it
        CustomObject a = create(alice, "a");
        CustomObject b = create(alice, "b");
        assertThat(drain(ahead)).hasSize(2);
        clock.advance(Duration.ofDays(30));
        feed.prune(Duration.ofDays(1), Duration.ZERO);

        List<java.util.UUID> received = Collections.synchronizedList(new ArrayList<>());
        feed.subscribe(behind, (client, changes) -> changes.forEach(ch -> received.add(ch.objectId())));
        ChangeDispatcher d = feed.dispatcher(DispatcherConfig.ofDefaults());
        while (!d.runOnce().isIdle()) {
            // until behind has caught up
        }
        assertThat(received).as("both changes survived the prune").containsExactly(a.getId(), b.getId());
        assertThat(feed.prune(Duration.ofDays(1), Duration.ZERO)).as("now every client has passed them").isGreaterThanOrEqualTo(2);
    }

    @Test
    void anEngineThatDoesNotRecordChanges_refusesClients_andItsSavesRecordNothing() {
        String c = client(DeliveryMode.QUEUE, ChangeFilter.classes(cls));
        try (ContentEngine quiet = ContentEngine.open(EngineConfig.from(database).clock(clock).build())) {
            EngineRuntimeException e = failure(() -> quiet.changes().registerClient(PREFIX + "quiet", ChangeFilter.ALL,
                    DeliveryMode.QUEUE));
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_CONFIG_INVALID);
            assertThat(e.getMessage()).contains("changes.enabled");
            CustomObject o = quiet.session("carol").objectStore().createCustomObject(cls);
            o.getProperties().putValue("Title", "unrecorded");
            o.save(RefreshMode.REFRESH);
        }
        assertThat(feed.lag(c).pending()).isZero();
        assertThat(drain(c)).isEmpty();
    }

    @Test
    void badInput_failsWithAClearError_andChangesNothing() {
        assertThat(failure(() -> feed.lag("nobody-" + UUID.randomUUID().toString().substring(0, 8))).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(failure(() -> feed.registerClient("bad name!", ChangeFilter.ALL, DeliveryMode.QUEUE)).getMessage())
                .contains("change feed client name").contains("bad name!");
        assertThat(failure(() -> feed.registerClient("x" + cls, ChangeFilter.classes("NoSuchClass"), DeliveryMode.QUEUE))
                .getExceptionCode()).isEqualTo(ExceptionCode.E_CLASS_NOT_FOUND);
        EngineRuntimeException prop = failure(() -> feed.registerClient("y" + cls, ChangeFilter.classes(cls).withProperties("Colour"),
                DeliveryMode.QUEUE));
        assertThat(prop.getExceptionCode()).isEqualTo(ExceptionCode.E_PROPERTY_NOT_DEFINED);
        assertThat(prop.getMessage()).contains("Colour").contains(cls);
        assertThat(feed.clients()).doesNotContain("x" + cls, "y" + cls);
        assertThat(failure(() -> DispatcherConfig.builder().batchSize(0)).getMessage())
                .isEqualTo("E_BAD_VALUE: Bad value for dispatcher batchSize: 0 [Integer] (from 1 to 10000)");
        assertThat(failure(() -> ChangeKind.parse("RENAME")).getMessage()).contains("RENAME");
        String q = client(DeliveryMode.QUEUE, ChangeFilter.ALL);
        assertThat(failure(() -> feed.subscribe(q, (c, ch) -> { })).getMessage()).contains("only a CALLBACK client");
        assertThat(failure(() -> feed.poll(q, 0)).getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
    }
}
