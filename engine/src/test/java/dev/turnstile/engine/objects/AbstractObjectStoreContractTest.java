package dev.turnstile.engine.objects;

import dev.turnstile.api.ChangeContext;
import dev.turnstile.api.ChangePreprocessor;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.Document;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyDefinition;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.PropertyType;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.UpdatingBatch;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The object store contract, run against every database by a small subclass that only supplies
 * the configuration. Each test works on classes with fresh random names, so tests share one engine
 * and one schema without colliding.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractObjectStoreContractTest {
    protected ContentEngine engine;
    protected ObjectStore alice;
    protected ObjectStore bob;
    protected String counterClass;

    protected abstract EngineConfig config();

    @BeforeAll
    void openEngine() {
        engine = ContentEngine.open(config());
    }

    @AfterAll
    void closeEngine() {
        if (engine != null) {
            engine.close();
        }
    }

    @BeforeEach
    void defineCounterClass() {
        alice = engine.session("alice").objectStore();
        bob = engine.session("bob").objectStore();
        counterClass = uniqueName("Counter");
        alice.defineClass(counterClass, c -> c.integer32("Counter").string("Note", 20));
    }

    static String uniqueName(String prefix) {
        return prefix + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
    }

    protected CustomObject newCounter(int value) {
        CustomObject o = alice.createCustomObject(counterClass);
        o.getProperties().putValue("Counter", value);
        o.getProperties().putValue("Note", "start");
        o.save(RefreshMode.REFRESH);
        return o;
    }

    /**
     * A connection of carol's, its transaction still open, that has written her lock on the row of
     * {@code id} (600 s from the database's time): the grant a request of the engine's waits for.
     */
    protected java.sql.Connection carolsGrantInFlight(UUID id) throws java.sql.SQLException {
        EngineConfig db = config();
        java.sql.Connection carol = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
        carol.setAutoCommit(false);
        try (java.sql.PreparedStatement grant = carol.prepareStatement("UPDATE ts_object SET usn = usn + 1,"
                + " lock_holder = 'carol', lock_timeout = 600, date_last_modified = CURRENT_TIMESTAMP WHERE id = ?")) {
            grant.setObject(1, id);
            assertThat(grant.executeUpdate()).isOne();
        }
        return carol;
    }

    protected CustomObject fetch(ObjectStore os, UUID id) {
        return os.fetchCustomObject(counterClass, id, PropertyFilter.ALL);
    }

    // --- first writer wins ---

    @Test
    void staleUsnSaveFails_andKeepsFirstWritersValues() {
        CustomObject created = newCounter(0);
        CustomObject a = fetch(alice, created.getId());
        CustomObject b = fetch(bob, created.getId());
        a.getProperties().putValue("Counter", 1);
        a.save(RefreshMode.REFRESH);
        b.getProperties().putValue("Counter", 2);

        EngineRuntimeException e = failure(() -> b.save(RefreshMode.REFRESH));

        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(e.getMessage()).isEqualTo("E_OBJECT_MODIFIED: The object " + counterClass + " {" + created.getId()
                + "} has been modified since it was retrieved; requested USN = 0, database USN = 1");
        assertThat(e.getRequestedUsn()).isZero();
        assertThat(e.getDatabaseUsn()).isEqualTo(1L);
        CustomObject stored = fetch(bob, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(1);
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(1L);
        assertThat(stored.getLastModifier()).isEqualTo("alice");
        assertThat(stored.getCreator()).isEqualTo("alice");
    }

    /** A lock request states its USN as a save does: a stale one is refused, whichever way the lock is taken. */
    @Test
    void aLockRequestWithAStaleUsn_isRefusedAsModified_andTakesNoLock() {
        CustomObject created = newCounter(0);
        CustomObject a = fetch(alice, created.getId());
        a.getProperties().putValue("Counter", 1);
        a.save(RefreshMode.REFRESH);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        ref.setUpdateSequenceNumber(0L);
        ref.lock(30, "bob's edit");

        EngineRuntimeException e = failure(() -> ref.save(RefreshMode.REFRESH));

        assertThat(e.getMessage()).isEqualTo("E_OBJECT_MODIFIED: The object " + counterClass + " {" + created.getId()
                + "} has been modified since it was retrieved; requested USN = 0, database USN = 1");
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getLockHolder()).isNull();
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(1L);
    }

    @Test
    void usnPast32Bits_keepsIncreasing_andMessagesShowItWhole() throws Exception {
        CustomObject o = newCounter(0);
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(),
                config().password());
             java.sql.PreparedStatement s = c.prepareStatement("UPDATE ts_object SET usn = ? WHERE id = ?")) {
            s.setLong(1, Integer.MAX_VALUE);
            s.setObject(2, o.getId());
            assertThat(s.executeUpdate()).isEqualTo(1);
            if (!c.getAutoCommit()) {
                c.commit();
            }
        }
        CustomObject b = fetch(bob, o.getId());
        assertThat(b.getUpdateSequenceNumber()).isEqualTo(2147483647L);
        b.getProperties().putValue("Counter", 1);
        b.save(RefreshMode.REFRESH);
        assertThat(b.getUpdateSequenceNumber()).isEqualTo(2147483648L);

        CustomObject stale = fetch(alice, o.getId());
        b.getProperties().putValue("Counter", 2);
        b.save(RefreshMode.REFRESH);
        stale.getProperties().putValue("Counter", 3);
        EngineRuntimeException e = failure(() -> stale.save(RefreshMode.REFRESH));
        assertThat(e.getRequestedUsn()).isEqualTo(2147483648L);
        assertThat(e.getDatabaseUsn()).isEqualTo(2147483649L);
        assertThat(e.getMessage()).contains("requested USN = 2147483648, database USN = 2147483649");
    }

    @Test
    void usnIncreasesByOneWithEverySave_andRefreshBringsItBack() {
        CustomObject o = newCounter(0);
        assertThat(o.getUpdateSequenceNumber()).isZero();
        for (int i = 1; i <= 3; i++) {
            o.getProperties().putValue("Counter", i);
            o.save(RefreshMode.REFRESH);
            assertThat(o.getUpdateSequenceNumber()).isEqualTo((long) i);
        }
        CustomObject stored = fetch(bob, o.getId());
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(3L);
        assertThat(stored.getDateLastModified()).as("what REFRESH brought back is what was stored")
                .isEqualTo(o.getDateLastModified()).isAfterOrEqualTo(stored.getDateCreated());
        assertThat(stored.getDateCreated()).isEqualTo(o.getDateCreated());
    }

    @Test
    void nullUsnSaveOverwrites_lastWriterWins() {
        CustomObject created = newCounter(0);
        CustomObject a = fetch(alice, created.getId());
        CustomObject b = fetch(bob, created.getId());
        a.getProperties().putValue("Counter", 1);
        a.save(RefreshMode.REFRESH);

        b.setUpdateSequenceNumber(null);
        b.getProperties().putValue("Counter", 2);
        b.save(RefreshMode.REFRESH);

        assertThat(b.getUpdateSequenceNumber()).isEqualTo(2L);
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(2);
        assertThat(stored.getLastModifier()).isEqualTo("bob");
    }

    @Test
    void fetchlessUpdate_changesOnlyItsPropertiesAndIsUnprotected() {
        CustomObject created = newCounter(5);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        assertThat(ref.getUpdateSequenceNumber()).isNull();
        ref.getProperties().putValue("Note", "fetchless");
        ref.save(RefreshMode.REFRESH);

        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(5);
        assertThat(stored.getProperties().getStringValue("Note")).isEqualTo("fetchless");
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(1L);
        assertThat(ref.getUpdateSequenceNumber()).isEqualTo(1L);
    }

    @Test
    void fetchlessUpdateOfNonexistentObjectFails_notFound() {
        UUID missing = UUID.randomUUID();
        CustomObject ref = alice.getCustomObject(counterClass, missing);
        ref.getProperties().putValue("Counter", 1);

        EngineRuntimeException e = failure(() -> ref.save(RefreshMode.REFRESH));

        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(e.getMessage()).contains(counterClass, missing.toString());
    }

    @Test
    void fetchlessInstanceWithExplicitUsn_isCheckedAgainstTheStoredOne() {
        CustomObject created = newCounter(0);
        created.getProperties().putValue("Counter", 1);
        created.save(RefreshMode.REFRESH);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        ref.setUpdateSequenceNumber(0L);
        ref.getProperties().putValue("Counter", 9);

        assertThat(failure(() -> ref.save(RefreshMode.REFRESH)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        ref.setUpdateSequenceNumber(1L);
        ref.save(RefreshMode.REFRESH);
        assertThat(fetch(alice, created.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(9);
    }

    @Test
    void fetchPropertiesWithStaleUsnFails_withNullUsnSucceeds() {
        CustomObject created = newCounter(0);
        CustomObject b = fetch(bob, created.getId());
        created.getProperties().putValue("Counter", 7);
        created.save(RefreshMode.REFRESH);

        EngineRuntimeException e = failure(() -> b.fetchProperties(PropertyFilter.of("Counter")));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(b.getProperties().getInteger32Value("Counter")).isZero();

        b.setUpdateSequenceNumber(null);
        b.fetchProperties(PropertyFilter.of("Counter"));
        assertThat(b.getProperties().getInteger32Value("Counter")).isEqualTo(7);
        assertThat(b.getUpdateSequenceNumber()).isEqualTo(1L);
    }

    @Test
    void aRefusedLockAttempt_takesNoRowLock_soPollersNeverQueueTheHoldersUnlock() throws Exception {
        CustomObject o = newCounter(0);
        CustomObject held = alice.getCustomObject(counterClass, o.getId());
        held.lock(60, "holding");
        held.save(RefreshMode.REFRESH);
        try (java.sql.Connection c = connect()) {
            c.setAutoCommit(false);
            // Another transaction holds the row lock, as the holder's unlock does mid-transaction.
            try (java.sql.PreparedStatement s = c.prepareStatement("SELECT usn FROM ts_object WHERE id = ? FOR UPDATE")) {
                s.setObject(1, o.getId());
                s.executeQuery().close();
            }
            ExecutorService pool = Executors.newSingleThreadExecutor();
            try {
                // Before: the attempt read the row FOR UPDATE and waited here until the other transaction ended.
                Future<EngineRuntimeException> attempt = pool.submit(() -> failure(() -> {
                    CustomObject b = bob.getCustomObject(counterClass, o.getId());
                    b.lock(60, "polling");
                    b.save(RefreshMode.REFRESH);
                }));
                EngineRuntimeException refused = attempt.get(30, TimeUnit.SECONDS);
                assertThat(refused.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
                assertThat(refused.getMessage()).contains("alice");
            } finally {
                c.rollback();
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aLockTakenOnAPlainLook_thatLosesItsRace_looksAgain_andMergesOntoTheLatestState() throws Exception {
        CustomObject o = newCounter(5);
        long usn = o.getUpdateSequenceNumber();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (java.sql.Connection writer = connect(); java.sql.Connection watch = connect()) {
            writer.setAutoCommit(false);
            // Another writer changes the row and holds it uncommitted: bob's look sees the old state.
            try (java.sql.PreparedStatement s = writer.prepareStatement("UPDATE ts_object SET usn = usn + 1 WHERE id = ?")) {
                s.setObject(1, o.getId());
                assertThat(s.executeUpdate()).isEqualTo(1);
            }
            int before = dev.turnstile.engine.TestDatabases.lockWaiters(watch);
            EngineStatistics start = engine.statistics();
            Future<?> lock = pool.submit(() -> {
                CustomObject b = bob.getCustomObject(counterClass, o.getId()); // fetchless: USN null
                b.getProperties().putValue("Note", "bob's");
                b.lock(60, "after the race");
                b.save(RefreshMode.REFRESH);
                return null;
            });
            org.awaitility.Awaitility.await("bob's guarded write waits for the writer's row").atMost(java.time.Duration.ofSeconds(30))
                    .until(() -> lock.isDone() || dev.turnstile.engine.TestDatabases.lockWaiters(watch) > before);
            writer.commit(); // bob's write, guarded by the USN it looked at, now matches no row
            lock.get(30, TimeUnit.SECONDS);
            assertThat(engine.statistics().since(start).transactions()).as("the first look's, rolled back, then the second's")
                    .isEqualTo(2);
        } finally {
            pool.shutdownNow();
        }
        CustomObject stored = fetch(alice, o.getId());
        assertThat(stored.getLockHolder()).isEqualTo("bob");
        assertThat(stored.getProperties().getStringValue("Note")).isEqualTo("bob's");
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(5);
        assertThat(stored.getUpdateSequenceNumber()).as("the writer's update, then bob's").isEqualTo(usn + 2);
    }

    /**
     * A lock and an unlock change no value: their UPDATE leaves the stored values as they are, where
     * it re-encoded and rewrote every property (a document's worth of JSON sent, and logged, twice a
     * pair for nothing). Seen by storing the values in an equivalent form the engine never writes; a
     * save that changes a value writes them all, as before.
     */
    @Test
    void aLockAndAnUnlock_leaveTheStoredValuesAsTheyAre_andASaveOfAChange_writesThem() throws Exception {
        CustomObject o = newCounter(3);
        String asStored = " { \"Note\" : \"start\" , \"Counter\" : 3 } ";
        try (java.sql.Connection c = connect();
             java.sql.PreparedStatement s = c.prepareStatement("UPDATE ts_object SET prop_values = ? WHERE id = ?")) {
            s.setString(1, asStored);
            s.setObject(2, o.getId());
            assertThat(s.executeUpdate()).isEqualTo(1);
        }
        CustomObject b = fetch(bob, o.getId());
        b.lock(60, "reading");
        b.save(RefreshMode.REFRESH);
        b.unlock();
        b.save(RefreshMode.REFRESH);
        assertThat(storedValues(o.getId())).isEqualTo(asStored);
        CustomObject stored = fetch(alice, o.getId());
        assertThat(stored.getUpdateSequenceNumber()).as("the lock's and the unlock's").isEqualTo(o.getUpdateSequenceNumber() + 2);
        assertThat(stored.getLockHolder()).isNull();
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(3);

        stored.getProperties().putValue("Counter", 4);
        stored.save(RefreshMode.REFRESH);
        assertThat(storedValues(o.getId())).isNotEqualTo(asStored).contains("4");
        assertThat(fetch(bob, o.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(4);
    }

    private String storedValues(UUID id) throws java.sql.SQLException {
        try (java.sql.Connection c = connect();
             java.sql.PreparedStatement s = c.prepareStatement("SELECT prop_values FROM ts_object WHERE id = ?")) {
            s.setObject(1, id);
            try (java.sql.ResultSet rs = s.executeQuery()) {
                assertThat(rs.next()).isTrue();
                return rs.getString(1);
            }
        }
    }

    private java.sql.Connection connect() throws java.sql.SQLException {
        return java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
    }

    @Test
    void lockedObjects_listsUnexpiredCooperativeLocks_withHolderOwnerAndExpiry() {
        CustomObject locked = newCounter(0);
        CustomObject o = fetch(bob, locked.getId());
        o.lock(600, "console test");
        o.save(RefreshMode.REFRESH);
        CustomObject free = newCounter(0);
        assertThat(alice.lockedObjects(LockQuery.first(10_000)).items()).filteredOn(l -> l.id().equals(locked.getId())).singleElement().satisfies(l -> {
            assertThat(l.holder()).isEqualTo("bob");
            assertThat(l.owner()).isEqualTo("console test");
            assertThat(l.className()).isEqualTo(counterClass);
            assertThat(l.expiresAt()).isEqualTo(o.getDateLastModified().plusSeconds(600));
        });
        assertThat(alice.lockedObjects(LockQuery.first(10_000)).items()).extracting(l -> l.id()).doesNotContain(free.getId());
        o.unlock();
        o.save(RefreshMode.REFRESH);
        assertThat(alice.lockedObjects(LockQuery.first(10_000)).items()).extracting(l -> l.id()).doesNotContain(locked.getId());
    }

    @Test
    void fetchReplacesTheFetchedValues_andDropsTheirPendingChanges_keepingTheOthers() {
        CustomObject created = newCounter(0);
        CustomObject b = fetch(bob, created.getId());
        created.getProperties().putValue("Counter", 5);
        created.save(RefreshMode.REFRESH);
        // b lost the race with a value computed from Counter = 0 (the article's Listing 3).
        b.getProperties().putValue("Counter", 1);
        b.getProperties().putValue("Note", "mine");
        b.lock(30, "listing");
        assertThat(failure(() -> b.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(b.isPendingSave()).as("a refused save keeps its pending changes").isTrue();

        b.setUpdateSequenceNumber(null);
        b.fetchProperties(PropertyFilter.of("Counter"));
        assertThat(b.getProperties().getInteger32Value("Counter")).as("the fetched value, not the pending one").isEqualTo(5);
        assertThat(b.getUpdateSequenceNumber()).isEqualTo(1L);
        b.save(RefreshMode.REFRESH);
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(5);
        assertThat(stored.getProperties().getStringValue("Note")).as("an unfetched property's pending value is kept").isEqualTo("mine");
        assertThat(stored.getLockHolder()).as("a pending lock is kept").isEqualTo("bob");

        b.getProperties().putValue("Note", "dropped");
        b.fetchProperties(PropertyFilter.ALL);
        assertThat(b.isPendingSave()).isFalse();
        assertThat(b.getProperties().getStringValue("Note")).isEqualTo("mine");
    }

    @Test
    void refreshDiscardsPendingChangesAndTakesTheStoredState() {
        CustomObject created = newCounter(0);
        CustomObject b = fetch(bob, created.getId());
        created.getProperties().putValue("Counter", 3);
        created.save(RefreshMode.REFRESH);
        b.getProperties().putValue("Note", "dropped");
        b.refresh();
        assertThat(b.isPendingSave()).isFalse();
        assertThat(b.getProperties().getInteger32Value("Counter")).isEqualTo(3);
        assertThat(b.getProperties().getStringValue("Note")).isEqualTo("start");
        assertThat(b.getUpdateSequenceNumber()).isEqualTo(1L);
    }

    @Test
    void noRefreshSave_leavesTheInstanceStale_soItsNextSaveFails() {
        CustomObject o = newCounter(0);
        o.getProperties().putValue("Counter", 1);
        o.save(RefreshMode.NO_REFRESH);
        assertThat(o.getUpdateSequenceNumber()).isZero();
        o.getProperties().putValue("Counter", 2);

        assertThat(failure(() -> o.save(RefreshMode.REFRESH)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(fetch(bob, o.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(1);
    }

    @Test
    void createdWithNoRefresh_nextSaveIsStillConditional() {
        CustomObject o = alice.createCustomObject(counterClass);
        o.getProperties().putValue("Counter", 1);
        o.save(RefreshMode.NO_REFRESH);
        assertThat(o.getUpdateSequenceNumber()).isZero();
        CustomObject b = fetch(bob, o.getId());
        b.getProperties().putValue("Counter", 2);
        b.save(RefreshMode.REFRESH);

        o.getProperties().putValue("Counter", 3);
        assertThat(failure(() -> o.save(RefreshMode.REFRESH)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
    }

    // --- filters ---

    @Test
    void unfetchedPropertyIsNotInCache_butSurvivesAConditionalSave() {
        CustomObject created = newCounter(4);
        CustomObject partial = bob.fetchCustomObject(counterClass, created.getId(), PropertyFilter.of("Counter"));

        EngineRuntimeException e = failure(() -> partial.getProperties().getStringValue("Note"));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.API_PROPERTY_NOT_IN_CACHE);
        assertThat(e.getMessage()).contains("Note", counterClass);
        assertThat(partial.getProperties().names()).containsExactly("Counter");

        partial.getProperties().putValue("Counter", 5);
        partial.save(RefreshMode.REFRESH);
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getStringValue("Note")).isEqualTo("start");
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(5);
    }

    @Test
    void aNullPropertyFilter_fetchesEveryProperty_asFileNetsDoes() {
        CustomObject created = newCounter(4);
        CustomObject fetched = bob.fetchCustomObject(counterClass, created.getId(), null);
        assertThat(fetched.getProperties().getStringValue("Note")).isEqualTo("start");
        assertThat(fetched.getProperties().getInteger32Value("Counter")).isEqualTo(4);
        CustomObject fetchless = bob.getCustomObject(counterClass, created.getId());
        fetchless.fetchProperties(null);
        assertThat(fetchless.getProperties().getInteger32Value("Counter")).isEqualTo(4);
        fetchless.refresh(null);
        assertThat(fetchless.getProperties().getStringValue("Note")).isEqualTo("start");
    }

    // --- delete ---

    @Test
    void deleteIsPendingUntilSave_andUsnChecked() {
        CustomObject created = newCounter(0);
        CustomObject stale = fetch(bob, created.getId());
        created.getProperties().putValue("Counter", 1);
        created.save(RefreshMode.REFRESH);

        stale.delete();
        assertThat(fetch(alice, created.getId())).isNotNull();
        assertThat(failure(() -> stale.save(RefreshMode.REFRESH)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);

        created.delete();
        created.save(RefreshMode.REFRESH);
        assertThat(created.isDeleted()).isTrue();
        assertThat(failure(() -> fetch(alice, created.getId())).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
    }

    // --- batches ---

    @Test
    void batchWithOneStaleObject_leavesEveryObjectUnchanged() {
        CustomObject o1 = newCounter(1);
        CustomObject o2 = newCounter(2);
        CustomObject o3 = newCounter(3);
        CustomObject stale2 = fetch(bob, o2.getId());
        o2.getProperties().putValue("Note", "moved on");
        o2.save(RefreshMode.REFRESH);

        UpdatingBatch batch = bob.createUpdatingBatch(RefreshMode.REFRESH);
        CustomObject b1 = fetch(bob, o1.getId());
        CustomObject b3 = fetch(bob, o3.getId());
        for (CustomObject o : List.of(b1, stale2, b3)) {
            o.getProperties().putValue("Counter", 100);
            batch.add(o, null);
        }
        EngineRuntimeException e = failure(batch::updateBatch);

        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(e.getObjectId()).isEqualTo(o2.getId());
        assertThat(fetch(alice, o1.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(1);
        assertThat(fetch(alice, o2.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(2);
        assertThat(fetch(alice, o3.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(3);
        assertThat(fetch(alice, o1.getId()).getUpdateSequenceNumber()).isZero();
        assertThat(b1.isPendingSave()).isTrue();
    }

    @Test
    void batchCommitsEveryObjectInOneTransaction() {
        CustomObject o1 = newCounter(1);
        CustomObject o2 = newCounter(2);
        CustomObject fresh = alice.createCustomObject(counterClass);
        fresh.getProperties().putValue("Counter", 9);
        o1.getProperties().putValue("Counter", 10);
        o2.delete();
        UpdatingBatch batch = alice.createUpdatingBatch(RefreshMode.REFRESH);
        batch.add(o1, null);
        batch.add(o2, null);
        batch.add(fresh, null);

        EngineStatistics before = engine.statistics();
        batch.updateBatch();
        EngineStatistics used = engine.statistics().since(before);

        assertThat(used.transactions()).isEqualTo(1);
        assertThat(used.selects()).isZero();
        assertThat(batch.hasPendingExecute()).isFalse();
        assertThat(o1.getUpdateSequenceNumber()).isEqualTo(1L);
        assertThat(fetch(bob, fresh.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(9);
        assertThat(failure(() -> fetch(bob, o2.getId())).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
    }

    // --- preprocessors ---

    @Test
    void preprocessorChangesValues_insideTheSave() {
        String cls = uniqueName("Stamped");
        alice.defineClass(cls, c -> c.string("Title").string("Stamp"));
        List<ChangeContext.Action> seen = new ArrayList<>();
        alice.addChangePreprocessor(cls, change -> {
            seen.add(change.action());
            change.properties().putValue("Stamp", change.user() + ":" + change.properties().getStringValue("Title")
                    + ":" + change.originalValue("Title"));
        });
        IndependentObject o = alice.createObject(cls);
        o.getProperties().putValue("Title", "a");
        o.save(RefreshMode.REFRESH);
        assertThat(o.getProperties().getStringValue("Stamp")).isEqualTo("alice:a:null");

        IndependentObject b = bob.fetchObject(cls, o.getId(), PropertyFilter.ALL);
        b.getProperties().putValue("Title", "b");
        b.save(RefreshMode.REFRESH);
        assertThat(alice.fetchObject(cls, o.getId(), PropertyFilter.ALL).getProperties().getStringValue("Stamp"))
                .isEqualTo("bob:b:a");
        assertThat(seen).containsExactly(ChangeContext.Action.CREATE, ChangeContext.Action.UPDATE);
    }

    @Test
    void preprocessorOfSuperclass_runsForSubclasses() {
        String base = uniqueName("Base");
        String sub = uniqueName("Sub");
        alice.defineClass(base, c -> c.string("Title"));
        alice.defineClass(sub, c -> c.superclass(base).integer32("Extra"));
        alice.addChangePreprocessor(base, change -> change.properties().putValue("Title", "from base"));
        IndependentObject o = alice.createObject(sub);
        o.save(RefreshMode.REFRESH);
        assertThat(o.getProperties().getStringValue("Title")).isEqualTo("from base");
    }

    @Test
    void preprocessorFailure_rollsBackTheSave_andWritesNothing() {
        String cls = uniqueName("Guarded");
        alice.defineClass(cls, c -> c.integer32("Amount"));
        ChangePreprocessor refuse = change -> {
            if (change.properties().getInteger32Value("Amount") > 100) {
                throw new IllegalStateException("amount over limit");
            }
        };
        alice.addChangePreprocessor(cls, refuse);
        try {
            IndependentObject big = alice.createObject(cls);
            big.getProperties().putValue("Amount", 500);
            EngineRuntimeException e = failure(() -> big.save(RefreshMode.REFRESH));
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_PREPROCESSOR_FAILED);
            assertThat(e.getMessage()).contains("amount over limit", cls, big.getId().toString());
            assertThat(big.isNew()).isTrue();
            assertThat(failure(() -> alice.fetchObject(cls, big.getId(), PropertyFilter.ALL)).getExceptionCode())
                    .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);

            IndependentObject ok = alice.createObject(cls);
            ok.getProperties().putValue("Amount", 10);
            ok.save(RefreshMode.REFRESH);
            ok.getProperties().putValue("Amount", 200);
            assertThat(failure(() -> ok.save(RefreshMode.REFRESH)).getExceptionCode())
                    .isEqualTo(ExceptionCode.E_PREPROCESSOR_FAILED);
            IndependentObject stored = bob.fetchObject(cls, ok.getId(), PropertyFilter.ALL);
            assertThat(stored.getProperties().getInteger32Value("Amount")).isEqualTo(10);
            assertThat(stored.getUpdateSequenceNumber()).isZero();
        } finally {
            alice.removeChangePreprocessor(cls, refuse);
        }
    }

    // --- round trips ---

    @Test
    void roundTrips_fetchIsOneSelect_conditionalSaveIsOneUpdate_fetchlessIsNone() {
        CustomObject created = newCounter(0);

        EngineStatistics before = engine.statistics();
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());
        assertThat(engine.statistics().since(before)).isEqualTo(new EngineStatistics(0, 0, 0, 0, 0, 0));

        before = engine.statistics();
        CustomObject fetched = fetch(bob, created.getId());
        assertThat(engine.statistics().since(before)).isEqualTo(new EngineStatistics(1, 1, 1, 0, 0, 0));

        before = engine.statistics();
        fetched.getProperties().putValue("Counter", 1);
        fetched.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before)).as("one guarded UPDATE, committing itself")
                .isEqualTo(new EngineStatistics(0, 1, 0, 0, 1, 0));

        before = engine.statistics();
        fetched.getProperties().putValue("Counter", 2);
        fetched.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before))
                .as("a remembered USN saves again with no fetch")
                .isEqualTo(new EngineStatistics(0, 1, 0, 0, 1, 0));

        before = engine.statistics();
        CustomObject fresh = alice.createCustomObject(counterClass);
        fresh.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before)).isEqualTo(new EngineStatistics(1, 1, 0, 1, 0, 0));

        before = engine.statistics();
        ref.getProperties().putValue("Note", "blind");
        ref.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before))
                .as("an unprotected fetchless save reads the row for update, then updates")
                .isEqualTo(new EngineStatistics(1, 2, 1, 0, 1, 0));
        assertThat(ref.getUpdateSequenceNumber()).isEqualTo(3L);
    }

    /** Whether a lock request that carries nothing else is one statement here (PostgreSQL's UPDATE … RETURNING). */
    protected boolean locksInOneStatement() {
        return false;
    }

    /**
     * A lock and its unlock that carry nothing else (as every pair of {@code Locking.withLock}) commit
     * by themselves, with no transaction round trip: the unlock's guarded UPDATE on every database,
     * the lock where it is one statement (issue 16, item 5). Each is seen at once by another user.
     */
    @Test
    void aLockAndItsUnlockCarryingNothingElse_commitByThemselves() {
        CustomObject created = newCounter(0);
        CustomObject ref = bob.getCustomObject(counterClass, created.getId());

        EngineStatistics before = engine.statistics();
        ref.lock(30, "bob's edit");
        ref.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before)).as("the lock").isEqualTo(locksInOneStatement()
                ? new EngineStatistics(0, 1, 0, 0, 1, 0) : new EngineStatistics(1, 2, 1, 0, 1, 0));
        assertThat(fetch(alice, created.getId()).getLockHolder()).isEqualTo("bob");

        before = engine.statistics();
        ref.unlock();
        ref.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before)).as("the unlock").isEqualTo(new EngineStatistics(0, 1, 0, 0, 1, 0));
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getLockHolder()).isNull();
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(2L);
    }

    /**
     * The article's pattern (lock, change, save with the unlock) ends in one statement that commits
     * itself, as an unlock alone does: the guarded UPDATE is the save's only write. Stale, it writes
     * nothing and keeps the lock.
     */
    @Test
    void anUnlockSavedWithTheValuesItGuarded_commitsByItself_orWritesNothing() {
        CustomObject created = newCounter(0);
        CustomObject held = bob.fetchCustomObject(counterClass, created.getId(), PropertyFilter.ALL);
        held.lock(30, "bob's edit");
        held.save(RefreshMode.REFRESH);

        EngineStatistics before = engine.statistics();
        held.getProperties().putValue("Counter", 1);
        held.unlock();
        held.save(RefreshMode.REFRESH);
        assertThat(engine.statistics().since(before)).as("the save with the unlock").isEqualTo(new EngineStatistics(0, 1, 0, 0, 1, 0));
        CustomObject stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(1);
        assertThat(stored.getLockHolder()).isNull();
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(2L);

        held.lock(30, "bob's edit");
        held.save(RefreshMode.REFRESH);
        CustomObject other = fetch(alice, created.getId());
        other.getProperties().putValue("Note", "alice"); // the lock is not enforced: alice's save moves the USN
        other.save(RefreshMode.REFRESH);
        held.getProperties().putValue("Counter", 2);
        held.unlock();
        assertThatThrownBy(() -> held.save(RefreshMode.REFRESH))
                .isInstanceOfSatisfying(EngineRuntimeException.class,
                        e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED));
        stored = fetch(alice, created.getId());
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(1);
        assertThat(stored.getProperties().getStringValue("Note")).isEqualTo("alice");
        assertThat(stored.getLockHolder()).isEqualTo("bob");
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(4L);
    }

    // --- types and classes ---

    @Test
    void everyPropertyTypeRoundTrips() {
        String cls = uniqueName("Typed");
        alice.defineClass(cls, c -> c.string("S").integer32("I").int64("L").float64("F").bool("B").dateTime("D").id("U"));
        Instant when = Instant.parse("2026-03-04T05:06:07.123456Z");
        UUID ref = UUID.randomUUID();
        IndependentObject o = alice.createObject(cls);
        o.getProperties().putValue("S", "héllo \"quoted\" ✓");
        o.getProperties().putValue("I", Integer.MIN_VALUE);
        o.getProperties().putValue("L", Long.MAX_VALUE);
        o.getProperties().putValue("F", 0.1 + 0.2);
        o.getProperties().putValue("B", true);
        o.getProperties().putValue("D", when);
        o.getProperties().putValue("U", ref);
        o.save(RefreshMode.NO_REFRESH);

        IndependentObject f = bob.fetchObject(cls, o.getId(), PropertyFilter.ALL);
        assertThat(f.getProperties().getStringValue("S")).isEqualTo("héllo \"quoted\" ✓");
        assertThat(f.getProperties().getInteger32Value("I")).isEqualTo(Integer.MIN_VALUE);
        assertThat(f.getProperties().getInt64Value("L")).isEqualTo(Long.MAX_VALUE);
        assertThat(f.getProperties().getFloat64Value("F")).isEqualTo(0.1 + 0.2);
        assertThat(f.getProperties().getBooleanValue("B")).isTrue();
        assertThat(f.getProperties().getDateTimeValue("D")).isEqualTo(when);
        assertThat(f.getProperties().getIdValue("U")).isEqualTo(ref);
        assertThat(f.getProperties().getObjectValue("Id")).isEqualTo(o.getId());
        assertThat(f.getProperties().getObjectValue("UpdateSequenceNumber")).isEqualTo(0L);
        assertThat(f.getDateCreated()).isNotNull().isEqualTo(f.getDateLastModified());
    }

    @Test
    void defaultsAreAppliedOnCreate() {
        String cls = uniqueName("Defaults");
        alice.defineClass(cls, c -> c.property(new PropertyDefinition("Status", PropertyType.STRING, true, "open", 10)));
        IndependentObject o = alice.createObject(cls);
        assertThat(o.getProperties().getStringValue("Status")).isEqualTo("open");
        o.save(RefreshMode.REFRESH);
        assertThat(bob.fetchObject(cls, o.getId(), PropertyFilter.ALL).getProperties().getStringValue("Status"))
                .isEqualTo("open");
    }

    @Test
    void subclassObjects_areFoundThroughTheirSuperclass_withTheRightType() {
        String docClass = uniqueName("Invoice");
        alice.defineClass(docClass, c -> c.superclass("Document").string("Customer"));
        Document d = alice.createDocument(docClass);
        d.getProperties().putValue("DocumentTitle", "March");
        d.getProperties().putValue("Customer", "ACME");
        d.save(RefreshMode.REFRESH);

        IndependentObject viaBase = bob.fetchObject("Document", d.getId(), PropertyFilter.ALL);
        assertThat(viaBase).isInstanceOf(Document.class);
        assertThat(viaBase.getClassName()).isEqualTo(docClass);
        assertThat(viaBase.getProperties().getStringValue("Customer")).isEqualTo("ACME");

        EngineRuntimeException wrongKind = failure(() -> bob.fetchCustomObject(docClass, d.getId(), PropertyFilter.ALL));
        assertThat(wrongKind.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(wrongKind.getMessage()).contains(docClass, "is a Document class, not a CustomObject class");
        assertThat(failure(() -> bob.fetchObject(counterClass, d.getId(), PropertyFilter.ALL)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
    }

    @Test
    void classesGainProperties_andAnotherEngineSeesThem() {
        String cls = uniqueName("Growing");
        alice.defineClass(cls, c -> c.string("A"));
        IndependentObject o = alice.createObject(cls);
        o.getProperties().putValue("A", "a");
        o.save(RefreshMode.REFRESH);
        try (ContentEngine other = ContentEngine.open(config())) {
            ObjectStore otherStore = other.session("carol").objectStore();
            otherStore.fetchObject(cls, o.getId(), PropertyFilter.ALL); // caches the old definition
            alice.defineClass(cls, c -> c.integer32("B"));
            o.getProperties().putValue("B", 2);
            o.save(RefreshMode.REFRESH);

            IndependentObject seen = otherStore.fetchObject(cls, o.getId(), PropertyFilter.ALL);
            assertThat(seen.getProperties().getInteger32Value("B")).isEqualTo(2);
            seen.getProperties().putValue("B", 3);
            seen.save(RefreshMode.REFRESH);
        }
        assertThat(alice.getClassDefinition(cls).getPropertyDefinitions()).extracting(PropertyDefinition::name)
                .containsExactly("A", "B");
    }

    // --- bad input: a clear error, and nothing written ---

    @Test
    void wrongType_isRefusedWithClassPropertyAndValue() {
        CustomObject stored = newCounter(1);
        CustomObject o = fetch(bob, stored.getId());
        o.getProperties().putValue("Counter", "twelve");
        EngineRuntimeException e = failure(() -> o.save(RefreshMode.REFRESH));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(e.getMessage()).isEqualTo("E_BAD_VALUE: Bad value for " + counterClass + " {" + o.getId()
                + "}.Counter: \"twelve\" (expected Integer32 (Integer))");
        assertThat(fetch(alice, stored.getId()).getUpdateSequenceNumber()).isZero();
    }

    @Test
    void overLongString_undefinedProperty_longForInteger32_areRefused() {
        CustomObject stored = newCounter(1);
        Supplier<CustomObject> fresh = () -> fetch(bob, stored.getId());

        CustomObject tooLong = fresh.get();
        tooLong.getProperties().putValue("Note", "x".repeat(21));
        EngineRuntimeException e1 = failure(() -> tooLong.save(RefreshMode.REFRESH));
        assertThat(e1.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(e1.getMessage()).contains(counterClass, "Note", "longer than the maximum length 20");

        CustomObject undefined = fresh.get();
        undefined.getProperties().putValue("Colour", "red");
        EngineRuntimeException e2 = failure(() -> undefined.save(RefreshMode.REFRESH));
        assertThat(e2.getExceptionCode()).isEqualTo(ExceptionCode.E_PROPERTY_NOT_DEFINED);
        assertThat(e2.getMessage()).isEqualTo("E_PROPERTY_NOT_DEFINED: The class " + counterClass + " has no property Colour");

        CustomObject wide = fresh.get();
        wide.getProperties().putValue("Counter", 5_000_000_000L);
        assertThat(failure(() -> wide.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);

        CustomObject after = fetch(alice, stored.getId());
        assertThat(after.getUpdateSequenceNumber()).isZero();
        assertThat(after.getProperties().toMap()).isEqualTo(stored.getProperties().toMap());
    }

    @Test
    void valuesTooLargeForTheRow_areRefused() {
        String cls = uniqueName("Big");
        alice.defineClass(cls, c -> c.string("Text", 2_000_000));
        IndependentObject o = alice.createObject(cls);
        o.getProperties().putValue("Text", "x".repeat(1_000_001));
        EngineRuntimeException e = failure(() -> o.save(RefreshMode.REFRESH));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(e.getMessage()).contains(cls, "more than 1000000 characters in all");
    }

    @Test
    void fetchlessDeleteOfAnotherClassesObject_isNotFound_andDeletesNothing() {
        CustomObject counter = newCounter(1);
        String other = uniqueName("Other");
        alice.defineClass(other, c -> c.string("X"));
        IndependentObject wrong = bob.getObject(other, counter.getId());
        wrong.delete();
        assertThat(failure(() -> wrong.save(RefreshMode.REFRESH)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
        assertThat(fetch(alice, counter.getId()).getProperties().getInteger32Value("Counter")).isEqualTo(1);

        CustomObject right = bob.getCustomObject(counterClass, counter.getId());
        right.delete();
        right.save(RefreshMode.REFRESH);
        assertThat(failure(() -> fetch(alice, counter.getId())).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
    }

    @Test
    void missingRequiredValue_refusesTheCreate() {
        String cls = uniqueName("Required");
        alice.defineClass(cls, c -> c.required("CaseNumber", PropertyType.INT64));
        IndependentObject o = alice.createObject(cls);
        EngineRuntimeException e = failure(() -> o.save(RefreshMode.REFRESH));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(e.getMessage()).contains(cls, "CaseNumber", "a value is required");
        assertThat(failure(() -> alice.fetchObject(cls, o.getId(), PropertyFilter.ALL)).getExceptionCode())
                .isEqualTo(ExceptionCode.E_OBJECT_NOT_FOUND);
    }

    @Test
    void systemPropertiesAreReadOnly() {
        CustomObject o = newCounter(0);
        EngineRuntimeException e = failure(() -> o.getProperties().putValue("UpdateSequenceNumber", 99));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(e.getMessage()).contains("UpdateSequenceNumber", "a read-only system property");
    }

    @Test
    void classDefinitionErrors_nameTheClassAndProperty() {
        EngineRuntimeException unknown = failure(() -> alice.createObject("NoSuchClass" + counterClass));
        assertThat(unknown.getExceptionCode()).isEqualTo(ExceptionCode.E_CLASS_NOT_FOUND);
        assertThat(unknown.getMessage()).contains("NoSuchClass" + counterClass);

        EngineRuntimeException retype = failure(() -> alice.defineClass(counterClass, c -> c.string("Counter")));
        assertThat(retype.getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(retype.getMessage()).contains(counterClass, "Counter", "already defined as");

        EngineRuntimeException badName = failure(() -> alice.defineClass("bad name", c -> { }));
        assertThat(badName.getMessage()).contains("\"bad name\"");

        EngineRuntimeException builtIn = failure(() -> alice.defineClass("Document", c -> c.string("X")));
        assertThat(builtIn.getMessage()).contains("built-in classes cannot be redefined");

        EngineRuntimeException system = failure(() -> alice.defineClass(uniqueName("Sys"), c -> c.string("Creator")));
        assertThat(system.getMessage()).contains("a system property name");
    }

    // --- race ---

    @Test
    void racingIncrements_loseNoUpdate() throws Exception {
        int threads = 8;
        int incrementsEach = 200;
        UUID id = newCounter(0).getId();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Increments>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                ObjectStore os = engine.session("worker" + t).objectStore();
                results.add(pool.submit(() -> {
                    start.await();
                    return incrementLoop(os, id, incrementsEach);
                }));
            }
            start.countDown();
            List<Increments> done = new ArrayList<>();
            for (Future<Increments> f : results) {
                done.add(f.get(5, TimeUnit.MINUTES));
            }
            int successes = done.stream().mapToInt(i -> i.saved().size()).sum();
            int conflicts = done.stream().mapToInt(Increments::conflicts).sum();
            CustomObject end = fetch(alice, id);
            assertThat(successes).isEqualTo(threads * incrementsEach);
            // Both at once, so a loss tells its kind: a USN one ahead of the counter means a save let
            // through over a USN another had moved; both one short, two saves that wrote the same USN.
            // And what each save said it wrote, where that departs from one save per USN 1..n.
            assertThat(List.of((long) end.getProperties().getInteger32Value("Counter"), end.getUpdateSequenceNumber()))
                    .as(() -> "the counter and the USN after %d saves that succeeded (%d conflicts)%s%s"
                            .formatted(successes, conflicts, Increments.oddities(done), TestDatabases.serverLog(config())))
                    .containsExactly((long) successes, (long) successes);
            System.out.printf("%s: %d increments, %d conflicts%n", getClass().getSimpleName(), successes, conflicts);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * One worker's successful saves, as the saved instance saw them (USN → counter written), its lost
     * races, and what it did when (saves and refreshes, with the USN each ended on and the times it
     * began and ended), so a lost update can be told apart: two saves of one USN that overlapped in
     * time mean the database let both through; one that began after the other had returned means
     * the first's commit was undone after it was answered (its refresh read the USN before it).
     */
    private record Increments(String worker, java.util.Map<Long, Integer> saved, int conflicts, List<Step> steps) {
        /** Saves that claimed the same USN, USNs no save claimed, saves whose counter is not their USN; and their timeline. */
        static String oddities(List<Increments> all) {
            java.util.TreeMap<Long, List<String>> byUsn = new java.util.TreeMap<>();
            for (Increments i : all) {
                i.saved().forEach((usn, counter) -> byUsn.computeIfAbsent(usn, k -> new ArrayList<>())
                        .add(i.worker() + " wrote " + counter));
            }
            List<String> odd = new ArrayList<>();
            java.util.Set<Long> oddUsns = new java.util.TreeSet<>();
            long last = byUsn.isEmpty() ? 0 : byUsn.lastKey();
            for (long usn = 1; usn <= last && odd.size() < 20; usn++) {
                List<String> claims = byUsn.getOrDefault(usn, List.of());
                if (claims.size() != 1 || !claims.get(0).endsWith(" wrote " + usn)) {
                    odd.add("USN " + usn + ": " + (claims.isEmpty() ? "no save" : claims));
                    oddUsns.add(usn);
                }
            }
            if (odd.isEmpty()) {
                return "";
            }
            List<String> timeline = all.stream()
                    .flatMap(i -> i.steps().stream()
                            .filter(s -> oddUsns.stream().anyMatch(u -> Math.abs(s.usn() - u) <= 1))
                            .map(s -> java.util.Map.entry(s.began(), i.worker() + " " + s)))
                    .sorted(java.util.Map.Entry.comparingByKey())
                    .map(java.util.Map.Entry::getValue)
                    .limit(60)
                    .toList();
            return "; the saves: " + String.join(", ", odd) + "; around them, by start:\n  " + String.join("\n  ", timeline);
        }
    }

    /** A save or a refresh of one worker: the USN its instance held after it, and when it began and ended (ns). */
    private record Step(String what, long usn, long began, long ended) {
        @Override
        public String toString() {
            return what + " -> USN " + usn + " [" + began + " .. " + ended + "]";
        }
    }

    /** Fetch-modify-save until {@code count} saves succeeded, each recorded with the USN it reported. */
    private Increments incrementLoop(ObjectStore os, UUID id, int count) {
        CustomObject o = os.fetchCustomObject(counterClass, id, PropertyFilter.of("Counter"));
        java.util.Map<Long, Integer> saved = new java.util.HashMap<>();
        List<Step> steps = new ArrayList<>();
        int conflicts = 0;
        while (saved.size() < count) {
            int next = o.getProperties().getInteger32Value("Counter") + 1;
            o.getProperties().putValue("Counter", next);
            long began = System.nanoTime();
            try {
                o.save(RefreshMode.REFRESH);
                steps.add(new Step("saved " + next, o.getUpdateSequenceNumber(), began, System.nanoTime()));
                Integer before = saved.put(o.getUpdateSequenceNumber(), next);
                if (before != null) {
                    throw new AssertionError("two saves of " + Thread.currentThread().getName() + " reported USN "
                            + o.getUpdateSequenceNumber() + " (counter " + before + ", then " + next + ")");
                }
            } catch (EngineRuntimeException e) {
                if (e.getExceptionCode() != ExceptionCode.E_OBJECT_MODIFIED) {
                    throw e;
                }
                conflicts++;
                long lost = System.nanoTime();
                o.refresh(PropertyFilter.of("Counter"));
                steps.add(new Step("lost " + next + ", refreshed", o.getUpdateSequenceNumber(), lost, System.nanoTime()));
            }
        }
        return new Increments(Thread.currentThread().getName(), saved, conflicts, steps);
    }
}
