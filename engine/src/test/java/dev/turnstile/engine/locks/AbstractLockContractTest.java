package dev.turnstile.engine.locks;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.IndependentObject;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.ObjectLockInfo;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.engine.MutableClock;
import dev.turnstile.engine.locks.LockPasses;
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
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * FileNet's cooperative-lock rules on every database. Time is an injected clock: expiry is tested
 * by moving it, never by sleeping.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractLockContractTest {
    private final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    private ContentEngine engine;
    private ObjectStore alice;
    private ObjectStore bob;
    private ObjectStore admin;
    private String cls;
    /** The engine's meters, bound once (its pool's can be bound only once). */

    /** A policy that waits five minutes between attempts: only a wake-up ends its wait sooner. */
    static final String SLOW_POLL = "slow-poll";
    /** One attempt, no retry. */
    static final String ONCE = "once";

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock)
                .retry(RetryPoliciesConfig.builder()
                        .policy(SLOW_POLL, RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMinutes(5)).build())
                        .policy(ONCE, RetryPolicyConfig.builder().maxAttempts(1).build())
                        .policy("fuzz", RetryPolicyConfig.builder().maxAttempts(100_000).waitDuration(Duration.ofMillis(1))
                                .enableRandomizedWait(true).randomizedWaitFactor(0.9).build()).build())
                .build());
        alice = engine.session("alice").objectStore();
        bob = engine.session("bob").objectStore();
        admin = engine.session("carol", Set.of(LockConfig.DEFAULT_BREAKER_ROLE)).objectStore();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    @BeforeEach
    void defineClass() {
        cls = "Lockable" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        alice.defineClass(cls, c -> c.integer32("Counter"));
    }

    private CustomObject created() {
        CustomObject o = alice.createCustomObject(cls);
        o.getProperties().putValue("Counter", 0);
        o.save(RefreshMode.REFRESH);
        return o;
    }

    private CustomObject fetch(ObjectStore os, UUID id) {
        return os.fetchCustomObject(cls, id, PropertyFilter.ALL);
    }

    @Test
    void dateLastModifiedNeverGoesBackwards_soASaveByABehindClockCannotShortenALock() {
        CustomObject o = created();
        Instant start = clock.instant();
        clock.set(start.plusSeconds(10));
        o.lock(60, "long job");
        o.save(RefreshMode.REFRESH);
        Instant expiry = o.getLockExpiry();
        assertThat(expiry).isEqualTo(start.plusSeconds(70));

        // A save whose time was read before the others' (a reading taken before a row-lock wait).
        clock.set(start);
        CustomObject unprotected = bob.getCustomObject(cls, o.getId());
        unprotected.getProperties().putValue("Counter", 5);
        unprotected.save(RefreshMode.REFRESH);
        assertThat(unprotected.getDateLastModified()).as("monotonic per object").isEqualTo(start.plusSeconds(10));
        assertThat(fetch(bob, o.getId()).getLockExpiry()).isEqualTo(expiry);

        clock.set(start.plusSeconds(65));
        CustomObject rival = fetch(bob, o.getId());
        rival.lock(30, "rival");
        assertThat(failure(() -> rival.save(RefreshMode.REFRESH)).getExceptionCode())
                .as("alice's lock still has 5 seconds to run").isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
    }

    @Test
    void lockRecordsHolderOwnerTokenAndTimeout_visibleToOthers() {
        CustomObject o = created();
        o.lock(60, "invoice run 7");
        o.save(RefreshMode.REFRESH);

        assertThat(o.isLocked()).isTrue();
        assertThat(o.getLockHolder()).isEqualTo("alice");
        assertThat(o.getLockOwner()).isEqualTo("invoice run 7");
        assertThat(o.getLockToken()).isNotNull();
        assertThat(o.getLockTimeout()).isEqualTo(60);
        assertThat(o.getLockExpiry()).isEqualTo(o.getDateLastModified().plusSeconds(60));
        CustomObject seen = fetch(bob, o.getId());
        assertThat(seen.isLocked()).isTrue();
        assertThat(seen.getLockHolder()).isEqualTo("alice");
        assertThat(seen.getLockToken()).isEqualTo(o.getLockToken());
        assertThat(seen.getUpdateSequenceNumber()).as("a lock is a save: the USN moves").isEqualTo(1L);
    }

    @Test
    void withLock_isRefusedWhileTheSameUserHoldsTheLockInAnotherSession() {
        // A service account on two nodes: the second node's withLock must wait for the first, not share
        // its lock (a plain re-lock by the holder refreshes it, FileNet's rule, and both would run).
        CustomObject o = created();
        ObjectStore aliceOnAnotherNode = engine.session("alice").objectStore();
        RetryPolicy once = engine.retryPolicies().get(ONCE);
        CustomObject first = fetch(alice, o.getId());

        Integer seen = Locking.withLock(first, 60, "node 1", once, locked -> {
            CustomObject second = aliceOnAnotherNode.getCustomObject(cls, o.getId());
            EngineRuntimeException e = failure(() -> Locking.withLock(second, 60, "node 2", once, alsoLocked -> 0));
            assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_RETRY_EXHAUSTED);
            EngineRuntimeException refusal = (EngineRuntimeException) e.getCause();
            assertThat(refusal.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
            assertThat(refusal.getMessage()).isEqualTo("E_OBJECT_LOCKED: The object " + cls + " {" + o.getId() + "} is"
                    + " locked by alice (owner \"node 1\") until " + first.getLockExpiry());
            locked.getProperties().putValue("Counter", 1);
            return 1;
        });

        CustomObject after = fetch(bob, o.getId());
        assertThat(seen).isEqualTo(1);
        assertThat(after.isLocked()).as("the first withLock let go of its own lock").isFalse();
        assertThat(after.getProperties().getInteger32Value("Counter")).isEqualTo(1);
        assertThat(after.getUpdateSequenceNumber()).as("create, lock, save with the unlock: the refusal wrote nothing")
                .isEqualTo(2L);
        Integer second = Locking.withLock(fetch(alice, o.getId()), 60, "node 2", once, locked -> 2);
        assertThat(second).as("free again: the second node's turn").isEqualTo(2);
    }

    @Test
    void foreignLockIsRefused_namingHolderOwnerAndExpiry() {
        CustomObject o = created();
        o.lock(60, "mine");
        o.save(RefreshMode.REFRESH);
        CustomObject b = bob.getCustomObject(cls, o.getId());
        b.lock(30, "theirs");

        EngineRuntimeException e = failure(() -> b.save(RefreshMode.REFRESH));

        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        assertThat(e.getMessage()).isEqualTo("E_OBJECT_LOCKED: The object " + cls + " {" + o.getId() + "} is locked by alice"
                + " (owner \"mine\") until " + o.getLockExpiry());
        assertThat(fetch(alice, o.getId()).getLockOwner()).isEqualTo("mine");
    }

    @Test
    void holderRelockRefreshesTheTimeout_andKeepsTheToken() {
        CustomObject o = created();
        o.lock(60, "first");
        o.save(RefreshMode.REFRESH);
        UUID token = o.getLockToken();
        clock.advance(Duration.ofSeconds(50));
        o.lock(120, "again");
        o.save(RefreshMode.REFRESH);
        assertThat(o.getLockToken()).isEqualTo(token);
        assertThat(o.getLockTimeout()).isEqualTo(120);
        assertThat(o.getLockExpiry()).isEqualTo(o.getDateLastModified().plusSeconds(120));
        clock.advance(Duration.ofSeconds(100));
        assertThat(fetch(bob, o.getId()).isLocked()).as("refreshed lock outlives the first timeout").isTrue();
    }

    @Test
    void expiredLockIsUnlockedForEveryPurpose_andCanBeTakenByAnother() {
        CustomObject o = created();
        o.lock(10, "short");
        o.save(RefreshMode.REFRESH);
        clock.advance(Duration.ofSeconds(10));
        assertThat(fetch(bob, o.getId()).isLocked()).as("at the expiry instant it is still held").isTrue();
        clock.advance(Duration.ofMillis(1));
        assertThat(o.isLocked()).isFalse();

        CustomObject b = fetch(bob, o.getId());
        assertThat(b.isLocked()).isFalse();
        assertThat(failure(() -> {
            CustomObject stale = fetch(alice, o.getId());
            stale.unlock();
            stale.save(RefreshMode.REFRESH);
        }).getExceptionCode()).as("unlocking an expired lock").isEqualTo(ExceptionCode.E_OBJECT_NOT_LOCKED);
        b.lock(10, "bob now");
        b.save(RefreshMode.REFRESH);
        assertThat(b.getLockHolder()).isEqualTo("bob");
        assertThat(b.getLockToken()).isNotEqualTo(o.getLockToken());
    }

    @Test
    void unlockRules_holderYes_othersDenied_breakerYes_unlockedNotLocked() {
        CustomObject o = created();
        CustomObject plain = fetch(alice, o.getId());
        plain.unlock();
        EngineRuntimeException notLocked = failure(() -> plain.save(RefreshMode.REFRESH));
        assertThat(notLocked.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_LOCKED);
        assertThat(notLocked.getMessage()).isEqualTo("E_OBJECT_NOT_LOCKED: The object " + cls + " {" + o.getId() + "} is not locked");

        o.lock(60, null);
        o.save(RefreshMode.REFRESH);
        CustomObject b = fetch(bob, o.getId());
        b.unlock();
        EngineRuntimeException denied = failure(() -> b.save(RefreshMode.REFRESH));
        assertThat(denied.getExceptionCode()).isEqualTo(ExceptionCode.E_ACCESS_DENIED);
        assertThat(denied.getMessage()).contains("bob may not unlock", "locked by alice", "lock-breaking role");
        assertThat(fetch(alice, o.getId()).isLocked()).isTrue();

        CustomObject c = fetch(admin, o.getId());
        c.unlock();
        c.save(RefreshMode.REFRESH);
        assertThat(c.isLocked()).isFalse();
        assertThat(c.getLockHolder()).isNull();

        o.refresh();
        o.lock(60, null);
        o.save(RefreshMode.REFRESH);
        o.unlock();
        o.save(RefreshMode.REFRESH);
        assertThat(fetch(bob, o.getId()).isLocked()).isFalse();
    }

    /** Issue 43: the console pages, filters and counts cooperative locks in the database; an expired lock is no lock. */
    @Test
    void lockedObjects_arePagedFilteredAndCountedByTheDatabase() {
        List<CustomObject> lockedOnes = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            CustomObject o = fetch(i % 2 == 0 ? alice : bob, created().getId());
            o.lock(i == 4 ? 10 : 600, "page " + i);
            o.save(RefreshMode.REFRESH);
            lockedOnes.add(o);
            clock.advance(Duration.ofSeconds(1));
        }
        created(); // never locked
        LockQuery ofClass = LockQuery.first(2).contains(cls);
        List<UUID> paged = new ArrayList<>();
        for (int offset = 0; offset < 5; offset += 2) {
            LockPage<ObjectLockInfo> page = alice.lockedObjects(ofClass.offset(offset));
            assertThat(page.total()).isEqualTo(5);
            page.items().forEach(l -> paged.add(l.id()));
        }
        assertThat(paged).as("by last save, oldest first").isEqualTo(lockedOnes.stream().map(CustomObject::getId).toList());
        assertThat(alice.lockedObjects(ofClass.order(LockQuery.Order.NEWEST)).items().get(0).id()).isEqualTo(lockedOnes.get(4).getId());
        assertThat(alice.lockedObjects(ofClass.holder("bob")).total()).isEqualTo(2);
        CustomObject third = lockedOnes.get(2);
        assertThat(alice.lockedObjects(LockQuery.first(5).lockToken(third.getLockToken().toString())).items()).singleElement()
                .satisfies(l -> assertThat(l.id()).isEqualTo(third.getId()));
        assertThat(alice.lockedObjects(LockQuery.first(5).contains(third.getId().toString())).items()).as("an object by its id")
                .extracting(ObjectLockInfo::id).containsExactly(third.getId());
        assertThat(alice.lockedObjects(LockQuery.first(5).lockToken("not-a-token")).total()).isZero();
        clock.set(lockedOnes.get(4).getLockExpiry().plusSeconds(1));
        assertThat(alice.lockedObjects(ofClass).total()).as("an expired lock is no lock").isEqualTo(4);
        for (CustomObject o : lockedOnes.subList(0, 4)) {
            o.unlock();
            o.save(RefreshMode.REFRESH);
        }
        assertThat(alice.lockedObjects(ofClass).total()).isZero();
    }

    /** Issue 43: an operator breaks an abandoned lock, saying why; the holder's next save is told who, when and why. */
    @Test
    void anOperatorBreaksAnAbandonedLock_theHoldersNextSaveIsToldWhoAndWhy_andALockTakenSinceIsLeftAlone() {
        CustomObject o = created();
        o.lock(600, "nightly import");
        o.save(RefreshMode.REFRESH);
        String object = cls + " {" + o.getId() + "}";
        assertThat(failure(() -> fetch(bob, o.getId()).breakLock("stuck")).getMessage())
                .isEqualTo("E_ACCESS_DENIED: bob may not break the cooperative lock of " + object + ": that needs the role lock-breaker");
        CustomObject stale = fetch(admin, o.getId());
        CustomObject c = fetch(admin, o.getId());
        assertThat(failure(() -> c.breakLock(" ")).getMessage()).isEqualTo("E_BAD_VALUE: Bad value for reason for breaking the"
                + " cooperative lock of " + object + ": \" \" (1 to 200 characters: why, for its holder and the audit trail)");
        assertThat(admin.lockedObjects(LockQuery.first(10_000)).items()).filteredOn(l -> l.id().equals(o.getId())).singleElement()
                .satisfies(l -> assertThat(l.lockToken()).as("the console breaks the lock it shows").isEqualTo(o.getLockToken()));

        c.breakLock("the import crashed and left its lock");
        c.save(RefreshMode.REFRESH);
        assertThat(c.isLocked()).isFalse();
        o.getProperties().putValue("Counter", 1);
        EngineRuntimeException told = failure(() -> o.save(RefreshMode.REFRESH));
        assertThat(told.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(told.getMessage()).contains(". Cooperative lock " + o.getLockToken() + " of alice on " + object
                + " was broken by carol at ").endsWith(": the import crashed and left its lock");
        assertThat(engine.lockBreaks(100)).filteredOn(b -> b.lockToken().equals(o.getLockToken().toString())).singleElement()
                .satisfies(b -> {
                    assertThat(b.kind()).isEqualTo(LockBreak.Kind.OBJECT);
                    assertThat(told.getMessage()).endsWith(". " + b.message());
                });
        assertThat(fetch(alice, o.getId()).getProperties().getInteger32Value("Counter")).as("nothing of the holder's save").isZero();

        CustomObject again = fetch(alice, o.getId());
        again.lock(600, "second run");
        again.save(RefreshMode.REFRESH);
        stale.breakLock("an old look at the console");
        assertThat(failure(() -> stale.save(RefreshMode.REFRESH)).getExceptionCode()).as("the object moved on since that look")
                .isEqualTo(ExceptionCode.E_OBJECT_MODIFIED);
        assertThat(fetch(alice, o.getId()).getLockToken()).as("a lock taken since is left alone").isEqualTo(again.getLockToken());
        again.unlock();
        again.save(RefreshMode.REFRESH);
    }

    /**
     * An unlock lets go of the lock its instance shows, not of the same user's lock taken since: a
     * stale instance's unprotected unlock (no USN), as Locking's fallback made after a save whose
     * answer was lost, let a request on another thread or node of that user lose its lock to a third.
     */
    @Test
    void anUnlockOfALockLetGoSince_leavesTheSameUsersNextLockAlone_namingTheToken() {
        CustomObject o = created();
        o.lockExclusively(60, "first");
        o.save(RefreshMode.REFRESH);
        UUID first = o.getLockToken();
        CustomObject elsewhere = fetch(alice, o.getId());
        elsewhere.unlock();
        elsewhere.save(RefreshMode.REFRESH);
        elsewhere.lockExclusively(60, "next");
        elsewhere.save(RefreshMode.REFRESH);

        o.setUpdateSequenceNumber(null);
        o.unlock();
        EngineRuntimeException refused = failure(() -> o.save(RefreshMode.REFRESH));
        assertThat(refused.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_LOCKED);
        assertThat(refused.getMessage()).isEqualTo("E_OBJECT_NOT_LOCKED: The object " + cls + " {" + o.getId()
                + "} no longer carries the lock this instance shows (token " + first + "): it was let go, lapsed or was"
                + " broken; refresh to see the lock it carries now");
        CustomObject now = fetch(bob, o.getId());
        assertThat(now.getLockOwner()).as("the next lock, still held").isEqualTo("next");
        assertThat(now.getUpdateSequenceNumber()).as("nothing written").isEqualTo(elsewhere.getUpdateSequenceNumber());

        o.refresh();
        o.unlock();
        o.save(RefreshMode.REFRESH);
        assertThat(fetch(bob, o.getId()).isLocked()).as("once refreshed, the lock it shows is let go").isFalse();
    }

    @Test
    void onlyCustomObjectDocumentAndFolderClassesAreLockable() {
        String linkClass = cls + "Link";
        alice.defineClass(linkClass, c -> c.superclass("Link"));
        IndependentObject link = alice.createObject(linkClass);
        link.save(RefreshMode.REFRESH);
        EngineRuntimeException e = failure(() -> link.lock(10, null));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_NOT_LOCKABLE);
        assertThat(e.getMessage()).contains(linkClass, "only CustomObject, Document and Folder classes are lockable");

        for (String base : List.of("Document", "Folder")) {
            String sub = cls + base;
            alice.defineClass(sub, c -> c.superclass(base));
            IndependentObject o = alice.createObject(sub);
            o.lock(10, base);
            o.save(RefreshMode.REFRESH);
            assertThat(o.isLocked()).isTrue();
        }
    }

    @Test
    void badLockArguments_areRefusedAtOnce() {
        CustomObject o = created();
        assertThat(failure(() -> o.lock(0, null)).getMessage()).contains("must be at least 1 second");
        assertThat(failure(() -> o.lock(10, "x".repeat(65))).getMessage()).contains("at most 64 characters");
        assertThat(o.isPendingSave()).isFalse();
    }

    @Test
    void advisoryLocks_stopOtherLockers_notOtherWriters() {
        CustomObject o = created();
        o.lock(60, null);
        o.save(RefreshMode.REFRESH);
        CustomObject b = fetch(bob, o.getId());
        b.getProperties().putValue("Counter", 5);
        b.save(RefreshMode.REFRESH);
        CustomObject after = fetch(alice, o.getId());
        assertThat(after.getProperties().getInteger32Value("Counter")).isEqualTo(5);
        assertThat(after.getLockHolder()).as("the lock survives another's save").isEqualTo("alice");
    }

    @Test
    void enforcementTurnedOnByAnotherNode_isObeyedByThisOne() {
        CustomObject o = created();
        fetch(bob, o.getId()); // this engine has the class cached: advisory locks
        try (ContentEngine otherNode = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            otherNode.session("admin").objectStore().defineClass(cls, c -> c.enforceLocks(true));
        }
        o.lock(60, "payroll");
        o.save(RefreshMode.REFRESH);

        CustomObject save = bob.getCustomObject(cls, o.getId());
        save.getProperties().putValue("Counter", 9);
        assertThat(failure(() -> save.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        CustomObject delete = bob.getCustomObject(cls, o.getId());
        delete.delete();
        assertThat(failure(() -> delete.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        assertThat(fetch(alice, o.getId()).getProperties().getInteger32Value("Counter")).isZero();
    }

    @Test
    void enforcedLocks_refuseOthersSavesAndDeletes_untilExpiry() {
        String enforced = cls + "Enforced";
        alice.defineClass(enforced, c -> c.integer32("Counter").enforceLocks(true));
        assertThat(alice.getClassDefinition(enforced).isLockEnforced()).isTrue();
        CustomObject o = alice.createCustomObject(enforced);
        o.lock(60, "editing");
        o.save(RefreshMode.REFRESH);

        CustomObject b = bob.fetchCustomObject(enforced, o.getId(), PropertyFilter.ALL);
        b.getProperties().putValue("Counter", 1);
        assertThat(failure(() -> b.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        CustomObject d = bob.fetchCustomObject(enforced, o.getId(), PropertyFilter.ALL);
        d.delete();
        assertThat(failure(() -> d.save(RefreshMode.REFRESH)).getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);

        o.getProperties().putValue("Counter", 2);
        o.save(RefreshMode.REFRESH);
        clock.advance(Duration.ofSeconds(61));
        CustomObject later = bob.fetchCustomObject(enforced, o.getId(), PropertyFilter.ALL);
        later.getProperties().putValue("Counter", 3);
        later.save(RefreshMode.REFRESH);
        assertThat(later.getProperties().getInteger32Value("Counter")).isEqualTo(3);
    }

    @Test
    void lockIsOneUpdate_andUpdateWithUnlockIsOneMore() {
        CustomObject o = fetch(alice, created().getId());
        EngineStatistics before = engine.statistics();
        o.lock(30, "counting");
        o.save(RefreshMode.REFRESH);
        o.getProperties().putValue("Counter", 1);
        o.unlock();
        o.save(RefreshMode.REFRESH);
        EngineStatistics used = engine.statistics().since(before);
        // The lock of a fetched instance is a transaction; the update with the unlock commits by itself.
        assertThat(used).isEqualTo(new EngineStatistics(1, 2, 0, 0, 2, 0));
        CustomObject stored = fetch(bob, o.getId());
        assertThat(stored.isLocked()).isFalse();
        assertThat(stored.getProperties().getInteger32Value("Counter")).isEqualTo(1);
    }

    /** Statements of a lock request that carries nothing but the lock (a fetchless instance, as every attempt of Locking). */
    protected long statementsOfALockRequest() {
        return 2; // a look, and an UPDATE guarded by the USN it read
    }

    /**
     * Lock requests that carry only the lock, made in another engine (which knows nothing of what
     * this one wrote): granted and refused by the rule to the instant — at the expiry a lock is still
     * held, a millisecond later it is free — the holder's own request keeps the token, a new
     * holder gets a new one, and a refusal names holder, owner and expiry as a look would.
     */
    @Test
    void lockRequestsCarryingOnlyTheLock_followTheRuleToTheInstant_inTheirOwnStatements() {
        UUID id = created().getId();
        try (ContentEngine elsewhere = ContentEngine.open(EngineConfig.from(config()).clock(clock).build())) {
            ObjectStore carol = elsewhere.session("carol").objectStore();
            CustomObject first = alice.getCustomObject(cls, id);
            first.lock(10, "short");
            EngineStatistics before = engine.statistics();
            first.save(RefreshMode.REFRESH);
            assertThat(engine.statistics().since(before).statements()).isEqualTo(statementsOfALockRequest());
            assertThat(first.getUpdateSequenceNumber()).isEqualTo(1L);
            assertThat(first.getProperties().getInteger32Value("Counter")).as("the row's values, refreshed").isZero();

            clock.advance(Duration.ofSeconds(10));
            CustomObject atExpiry = carol.getCustomObject(cls, id);
            atExpiry.lock(10, "carol's");
            EngineRuntimeException refused = failure(() -> atExpiry.save(RefreshMode.REFRESH));
            assertThat(refused.getMessage()).isEqualTo("E_OBJECT_LOCKED: The object " + cls + " {" + id + "} is locked by alice"
                    + " (owner \"short\") until " + first.getLockExpiry());

            CustomObject again = alice.getCustomObject(cls, id);
            again.lock(10, "short, again");
            again.save(RefreshMode.REFRESH);
            assertThat(again.getLockToken()).as("the holder's own request keeps the token").isEqualTo(first.getLockToken());
            assertThat(again.getDateLastModified()).isEqualTo(clock.instant());

            clock.advance(Duration.ofSeconds(10).plusMillis(1));
            CustomObject lapsed = carol.getCustomObject(cls, id);
            lapsed.lock(20, "carol's");
            lapsed.save(RefreshMode.REFRESH);
            assertThat(lapsed.getLockHolder()).isEqualTo("carol");
            assertThat(lapsed.getLockToken()).isNotEqualTo(first.getLockToken());
            assertThat(lapsed.getUpdateSequenceNumber()).isEqualTo(3L);
            assertThat(fetch(bob, id).getLockExpiry()).isEqualTo(clock.instant().plusSeconds(20));
        }
    }

    @Test
    void twoSessionsRacingToLock_exactlyOneWins_everyRound() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int round = 0; round < 40; round++) {
                UUID id = created().getId();
                CyclicBarrier ready = new CyclicBarrier(2);
                boolean fetchless = round % 2 == 0;
                List<Future<String>> results = new ArrayList<>();
                for (ObjectStore os : List.of(alice, bob)) {
                    results.add(pool.submit(lockAttempt(os, id, fetchless, ready)));
                }
                List<String> outcomes = new ArrayList<>();
                for (Future<String> f : results) {
                    outcomes.add(f.get(30, TimeUnit.SECONDS));
                }
                assertThat(outcomes).as("round " + round).containsOnlyOnce("won");
                CustomObject stored = fetch(alice, id);
                assertThat(stored.isLocked()).isTrue();
                assertThat(stored.getUpdateSequenceNumber()).isEqualTo(1L);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    private Callable<String> lockAttempt(ObjectStore os, UUID id, boolean fetchless, CyclicBarrier ready) {
        return () -> {
            CustomObject o = fetchless ? os.getCustomObject(cls, id) : fetch(os, id);
            o.lock(60, "race");
            ready.await(10, TimeUnit.SECONDS);
            try {
                o.save(RefreshMode.REFRESH);
                return "won";
            } catch (EngineRuntimeException e) {
                return e.getExceptionCode().name();
            }
        };
    }

    @Test
    void withLock_eightThreadsIncrementingUnderTheLock_loseNothing_andMetricsAddUp() throws Exception {
        UUID id = created().getId();
        RetryPolicy policy = engine.retryPolicies().get("fuzz");
        RetryMetrics before = policy.metrics();
        int threads = 8;
        int each = 200;
        int[] plainCounter = {0}; // not atomic, not volatile: only the lock protects it
        inTurnsUnderTheLock(id, threads, each, "worker", "fuzz", policy, locked -> {
            plainCounter[0]++;
            locked.getProperties().putValue("Counter", locked.getProperties().getInteger32Value("Counter") + 1);
        });
        CustomObject end = fetch(alice, id);
        assertThat(end.getProperties().getInteger32Value("Counter")).isEqualTo(threads * each);
        assertThat(plainCounter[0]).isEqualTo(threads * each);
        assertThat(end.isLocked()).isFalse();
        RetryMetrics m = policy.metrics();
        long calls = m.calls() - before.calls();
        long succeeded = (m.successfulWithoutRetry() + m.successfulWithRetry())
                - (before.successfulWithoutRetry() + before.successfulWithRetry());
        long attempts = m.attempts() - before.attempts();
        assertThat(calls).isEqualTo(threads * each);
        assertThat(succeeded).isEqualTo(threads * each);
        assertThat(attempts).isGreaterThanOrEqualTo(calls);
        assertThat(m.successfulWithRetry() - before.successfulWithRetry())
                .as("attempts beyond the first come from calls that retried")
                .isLessThanOrEqualTo(attempts - calls);
        System.out.printf("%s withLock: %d calls, %d attempts, waited %d ms%n", getClass().getSimpleName(), calls,
                attempts, m.totalWait().minus(before.totalWait()).toMillis());
    }

    /**
     * {@code threads} threads, each a session of its own ({@code userPrefix} + its number), starting
     * together and running {@code action} {@code each} times under {@code Locking.withLock} of {@code id}.
     */
    private void inTurnsUnderTheLock(UUID id, int threads, int each, String userPrefix, String owner, RetryPolicy policy,
                                     Consumer<IndependentObject> action) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CyclicBarrier start = new CyclicBarrier(threads);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                ObjectStore os = engine.session(userPrefix + t).objectStore();
                futures.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    CustomObject o = os.getCustomObject(cls, id);
                    for (int i = 0; i < each; i++) {
                        Locking.withLock(o, 30, owner, policy, locked -> {
                            action.accept(locked);
                            return null;
                        });
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get(5, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * Eight threads taking turns under a lock whose unlocks carry nothing, so that it is passed on
     * from thread to thread (LockPasses): never two inside at once, and no turn lost.
     */
    @Test
    void withLock_eightThreadsPassingTheLockOn_neverTwoInside() throws Exception {
        UUID id = created().getId();
        RetryPolicy policy = engine.retryPolicies().get("fuzz");
        int threads = 8;
        int each = 200;
        int[] turns = {0}; // not atomic, not volatile: only the lock protects it
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        long usnBefore = fetch(alice, id).getUpdateSequenceNumber();
        inTurnsUnderTheLock(id, threads, each, "passer", "passing", policy, locked -> {
            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
            turns[0]++;
            inside.decrementAndGet();
        });
        assertThat(mostInside.get()).isEqualTo(1);
        assertThat(turns[0]).isEqualTo(threads * each);
        CustomObject end = fetch(alice, id);
        assertThat(end.isLocked()).isFalse();
        long writes = end.getUpdateSequenceNumber() - usnBefore;
        System.out.printf("%s passing: %d turns in %d writes (%d passed on)%n", getClass().getSimpleName(),
                threads * each, writes, 2L * threads * each - writes);
    }

    @Test
    void aLockWithRetry_refusedOnce_isWokenByTheHoldersUnlock_notAtTheEndOfItsWait() throws Exception {
        CustomObject held = fetch(bob, created().getId());
        held.lock(30, "bob's");
        held.save(RefreshMode.REFRESH);
        long refusedBefore = lockRefusals();
        RetryPolicy slow = engine.retryPolicies().get(SLOW_POLL);
        long retriedBefore = slow.metrics().successfulWithRetry();
        CustomObject wanted = alice.getCustomObject(cls, held.getId());
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> waiting = pool.submit(() -> Locking.lockWithRetry(wanted, 30, "alice's", slow));
            Awaitility.await("alice refused once").atMost(Duration.ofMinutes(1)).until(() -> lockRefusals() > refusedBefore);
            held.unlock();
            held.save(RefreshMode.REFRESH);
            waiting.get(1, TimeUnit.MINUTES); // without the wake-up, the policy's next attempt is 5 minutes away
        } finally {
            pool.shutdownNow();
        }
        assertThat(slow.metrics().successfulWithRetry() - retriedBefore).isEqualTo(1);
        assertThat(fetch(bob, held.getId()).getLockOwner()).isEqualTo("alice's");
    }

    /** Lock saves this engine refused because another held the lock. */
    private long lockRefusals() {
        return engine.lockStatistics().refused();
    }

    /**
     * Two requests of this engine for one object's lock: the second waits here for the first's
     * answer, and after its grant is refused by what this engine wrote — not by a statement that
     * waited in the database for the grant's commit and then asked again (issue 16, item 5). The
     * first is held up in the database by a row lock taken around the engine.
     */
    @Test
    void aLockRequest_whileAnotherOfThisEngineIsInFlight_waitsForItsAnswer_thenIsRefusedWithoutAStatement() throws Exception {
        UUID id = created().getId();
        CustomObject first = alice.getCustomObject(cls, id);
        first.lock(30, "alice's");
        CustomObject second = bob.getCustomObject(cls, id);
        second.lock(30, "bob's");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (java.sql.Connection blocker = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(),
                config().password())) {
            blocker.setAutoCommit(false);
            int waitersBefore = dev.turnstile.engine.TestDatabases.lockWaiters(blocker);
            try (java.sql.PreparedStatement s = blocker.prepareStatement("SELECT usn FROM ts_object WHERE id = ? FOR UPDATE")) {
                s.setObject(1, id);
                s.executeQuery().close();
            }
            EngineStatistics before = engine.statistics();
            Future<?> granted = pool.submit(() -> first.save(RefreshMode.REFRESH));
            Awaitility.await("alice's request waits in the database").atMost(Duration.ofMinutes(1))
                    .until(() -> dev.turnstile.engine.TestDatabases.lockWaiters(blocker) == waitersBefore + 1);
            EngineRuntimeException[] refused = new EngineRuntimeException[1];
            Thread bobs = new Thread(() -> refused[0] = failure(() -> second.save(RefreshMode.REFRESH)));
            bobs.start();
            // Bob's request waits too: here (parked), or in the database beside alice's.
            Awaitility.await("bob's request waits").atMost(Duration.ofMinutes(1))
                    .until(() -> bobs.getState() == Thread.State.WAITING
                            || dev.turnstile.engine.TestDatabases.lockWaiters(blocker) == waitersBefore + 2);
            blocker.rollback();
            granted.get(1, TimeUnit.MINUTES);
            bobs.join(Duration.ofMinutes(1).toMillis());
            assertThat(refused[0].getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
            assertThat(refused[0].getMessage()).contains("is locked by alice");
            assertThat(engine.statistics().since(before).statements())
                    .as("alice's request alone went to the database").isEqualTo(statementsOfALockRequest());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aLockRequest_whileAnotherUserOfThisEngineHoldsIt_isRefusedWithoutAStatement_inTheDatabasesWords() {
        CustomObject held = fetch(bob, created().getId());
        held.lock(30, "bob's");
        held.save(RefreshMode.REFRESH);
        CustomObject fetched = fetch(alice, held.getId());
        fetched.lock(30, "alice's");
        EngineRuntimeException asStored = failure(() -> fetched.save(RefreshMode.REFRESH));
        CustomObject fetchless = alice.getCustomObject(cls, held.getId());
        fetchless.lock(30, "alice's");
        EngineStatistics before = engine.statistics();
        EngineRuntimeException refused = failure(() -> fetchless.save(RefreshMode.REFRESH));
        EngineStatistics used = engine.statistics().since(before);
        assertThat(refused.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        assertThat(refused.getMessage()).isEqualTo(asStored.getMessage());
        assertThat(used.statements()).as("refused by what this engine wrote, not by a look at the row").isZero();
        // Once bob has unlocked here, alice's request asks the database again, and gets the lock.
        held.unlock();
        held.save(RefreshMode.REFRESH);
        fetchless.save(RefreshMode.REFRESH);
        assertThat(fetch(bob, held.getId()).getLockOwner()).isEqualTo("alice's");
    }

    /**
     * An unlock while another request of this engine waits for the lock passes it on in the
     * unlock's one statement: the row goes from one holder to the next, USN one on, never free in
     * between (where a poller elsewhere could take it), and the waiter asks nothing more.
     */
    @Test
    void anUnlockWhileAnotherRequestOfThisEngineWaits_passesTheLockOnInItsOneStatement() throws Exception {
        CustomObject held = fetch(bob, created().getId());
        held.lock(30, "bob's");
        held.save(RefreshMode.REFRESH);
        long lockedAt = held.getUpdateSequenceNumber();
        long refusedBefore = lockRefusals();
        CustomObject wanted = alice.getCustomObject(cls, held.getId());
        Thread[] alices = new Thread[1];
        ExecutorService pool = Executors.newSingleThreadExecutor(r -> alices[0] = new Thread(r));
        try {
            Future<?> waiting = pool.submit(() -> Locking.lockWithRetry(wanted, 30, "alice's", engine.retryPolicies().get(SLOW_POLL)));
            Awaitility.await("alice refused once").atMost(Duration.ofMinutes(1)).until(() -> lockRefusals() > refusedBefore);
            // In her policy's wait: what she says before it (on PostgreSQL, that this process waits) is said.
            Awaitility.await("alice waits").atMost(Duration.ofMinutes(1)).until(() -> alices[0].getState() == Thread.State.TIMED_WAITING);
            EngineStatistics before = engine.statistics();
            held.unlock();
            held.save(RefreshMode.REFRESH);
            waiting.get(1, TimeUnit.MINUTES);
            EngineStatistics used = engine.statistics().since(before);
            // Besides it, on PostgreSQL, alice takes back her word that this process waits (said for a 5-minute wait): a DELETE.
            assertThat(used.updates()).as("bob's unlock and alice's lock: one UPDATE").isEqualTo(1);
            assertThat(used.selects() + used.inserts()).as("and nothing read or written besides").isZero();
        } finally {
            pool.shutdownNow();
        }
        assertThat(wanted.getUpdateSequenceNumber()).isEqualTo(lockedAt + 1);
        assertThat(held.getLockOwner()).as("bob's instance, refreshed: the row as the unlock left it").isEqualTo("alice's");
        CustomObject stored = fetch(admin, held.getId());
        assertThat(stored.getLockOwner()).isEqualTo("alice's");
        assertThat(stored.getLastModifier()).isEqualTo("alice");
        assertThat(stored.getUpdateSequenceNumber()).isEqualTo(lockedAt + 1);
        wanted.unlock();
        wanted.save(RefreshMode.REFRESH);
        assertThat(fetch(bob, held.getId()).isLocked()).isFalse();
    }

    /**
     * Passes in a row are bounded, so that waiters in other processes get turns: after
     * {@code LockPasses.IN_A_ROW} passes the next unlock lets the lock go (the waiter here then
     * takes it with its own statement, USN two on), and the passes start again.
     */
    @Test
    void passesInARow_areBounded_thenAnUnlockLetsTheLockGo() throws Exception {
        CustomObject holder = fetch(bob, created().getId());
        holder.lock(30, "turn 0");
        holder.save(RefreshMode.REFRESH);
        RetryPolicy slow = engine.retryPolicies().get(SLOW_POLL);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        List<Long> usnSteps = new ArrayList<>();
        try {
            for (int turn = 1; turn <= LockPasses.IN_A_ROW + 2; turn++) {
                long refusedBefore = lockRefusals();
                CustomObject next = engine.session("turn" + turn).objectStore().getCustomObject(cls, holder.getId());
                String owner = "turn " + turn;
                Future<?> waiting = pool.submit(() -> Locking.lockWithRetry(next, 30, owner, slow));
                Awaitility.await(owner + " refused once").atMost(Duration.ofMinutes(1)).until(() -> lockRefusals() > refusedBefore);
                long before = holder.getUpdateSequenceNumber();
                holder.unlock();
                holder.save(RefreshMode.REFRESH);
                waiting.get(1, TimeUnit.MINUTES);
                usnSteps.add(next.getUpdateSequenceNumber() - before);
                holder = next;
            }
        } finally {
            pool.shutdownNow();
        }
        List<Long> expected = new ArrayList<>();
        for (int turn = 1; turn <= LockPasses.IN_A_ROW; turn++) {
            expected.add(1L);
        }
        expected.add(2L); // let go, then taken
        expected.add(1L); // passed again
        assertThat(usnSteps).isEqualTo(expected);
        holder.unlock();
        holder.save(RefreshMode.REFRESH);
    }

    /**
     * A lock passed to a waiting request that then asks with another instance (a new request), or
     * whose call ends without asking again, is let go — never left held by nobody's request.
     */
    @Test
    void aLockPassedToARequestThatDoesNotAskAgain_isLetGo() throws Exception {
        UUID id = created().getId();
        RetryPolicy slow = engine.retryPolicies().get(SLOW_POLL);
        // Each attempt a new instance: the second is another request than the one the lock was passed to.
        CustomObject[] last = new CustomObject[1];
        Runnable freshEachAttempt = () -> slow.run(() -> {
            CustomObject fresh = alice.getCustomObject(cls, id);
            fresh.lockExclusively(30, "alice's");
            fresh.save(RefreshMode.REFRESH);
            last[0] = fresh;
        });
        long lockedAt = passedWhileWaiting(id, freshEachAttempt);
        assertThat(last[0].getUpdateSequenceNumber()).as("passed, let go, taken by the new request").isEqualTo(lockedAt + 3);
        assertThat(fetch(bob, id).getLockOwner()).isEqualTo("alice's");
        last[0].unlock();
        last[0].save(RefreshMode.REFRESH);

        // The call ends at its next attempt (a failure the policy does not retry): the passed lock is let go.
        int[] attempts = {0};
        CustomObject wanted = alice.getCustomObject(cls, id);
        Runnable givesUp = () -> assertThatThrownBy(() -> slow.run(() -> {
            if (attempts[0]++ > 0) {
                throw new IllegalStateException("given up");
            }
            wanted.lockExclusively(30, "alice's");
            wanted.save(RefreshMode.REFRESH);
        })).hasMessage("given up");
        long lockedAgainAt = passedWhileWaiting(id, givesUp);
        CustomObject end = fetch(bob, id);
        assertThat(end.isLocked()).isFalse();
        assertThat(end.getUpdateSequenceNumber()).as("passed, then let go").isEqualTo(lockedAgainAt + 2);
    }

    /** Bob locks {@code id}; {@code waiter} runs until refused; bob unlocks (passing it on); the USN bob locked at. */
    private long passedWhileWaiting(UUID id, Runnable waiter) throws Exception {
        CustomObject held = fetch(bob, id);
        held.lock(30, "bob's");
        held.save(RefreshMode.REFRESH);
        long lockedAt = held.getUpdateSequenceNumber();
        long refusedBefore = lockRefusals();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<?> waiting = pool.submit(waiter);
            Awaitility.await("refused once").atMost(Duration.ofMinutes(1)).until(() -> lockRefusals() > refusedBefore);
            held.unlock();
            held.save(RefreshMode.REFRESH);
            waiting.get(1, TimeUnit.MINUTES);
        } finally {
            pool.shutdownNow();
        }
        return lockedAt;
    }
}
