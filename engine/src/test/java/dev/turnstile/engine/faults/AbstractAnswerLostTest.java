package dev.turnstile.engine.faults;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.dispenser.Dispenser;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.dispenser.IssuedNumber;
import dev.turnstile.api.dispenser.NumberBlock;
import dev.turnstile.api.dispenser.RegisterReport;
import dev.turnstile.api.retry.Locking;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicy;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.Failures;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Commits whose answer is lost: the database commits, the engine hears a broken connection and
 * then nothing, until the database is reachable again ({@link AnswerCuttingProxy}, in front of a
 * real server). What a node killed mid-commit does by luck in the restart tests, here on purpose,
 * at one chosen commit: the engine must act on what may have committed, never on what it hopes.
 */
@Tag("faults")
abstract class AbstractAnswerLostTest {
    private static final Duration LONG = Duration.ofSeconds(60);
    /** Goes on through an outage, as a workflow calling the dispenser would be configured to. */
    private static final String THROUGH_OUTAGES = "through-outages";
    private AnswerCuttingProxy proxy;
    private ContentEngine direct;
    private ContentEngine throughProxy;
    private final ExecutorService executor = Executors.newCachedThreadPool();

    protected abstract EngineConfig config();

    /** The URL of the engine whose answer is cut: the proxy in front of the server. */
    protected String urlThrough(AnswerCuttingProxy proxy) {
        return proxy.url(config().jdbcUrl());
    }

    /** Whether the engine through the proxy stays cut off until {@link AnswerCuttingProxy#restore()}: not on a failover URL. */
    protected boolean cutOffUntilRestored() {
        return true;
    }

    @BeforeEach
    void open() throws Exception {
        proxy = new AnswerCuttingProxy(config().jdbcUrl());
        direct = ContentEngine.open(withOutagePolicy(config()).build());
        throughProxy = ContentEngine.open(withOutagePolicy(config()).jdbcUrl(urlThrough(proxy))
                .connectionTimeout(Duration.ofSeconds(1)).build());
    }

    private static EngineConfig.Builder withOutagePolicy(EngineConfig config) {
        return EngineConfig.from(config).retry(RetryPoliciesConfig.builder().policy(THROUGH_OUTAGES, RetryPolicyConfig.builder().maxAttempts(1_000)
                .waitDuration(Duration.ofMillis(20)).maxTotalWait(LONG).retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_MODIFIED,
                        ExceptionCode.E_OBJECT_LOCKED, ExceptionCode.E_DATABASE_UNAVAILABLE)).build()).build());
    }

    @AfterEach
    void close() throws Exception {
        executor.shutdownNow();
        proxy.restore();
        throughProxy.close();
        direct.close();
        proxy.close();
    }

    @Test
    void aQueuePlaceWhoseAnswerWasLost_isGivenUpWithTheGrant_soLaterRequestsAreNotHeldBack() throws Exception {
        TreePath bench = TreePath.root("site", UUID.randomUUID().toString().substring(0, 8)).child("bench", "1");
        TreeLockHandle held = direct.session("holder").treeLocks().lock(Set.of(bench), LONG);
        // The waiter is refused, queues at the head of the node, and that commit's answer is lost.
        proxy.cutCommitAnswerAfter("SET head_lease");
        Future<TreeLockHandle> waiter = executor.submit(() -> throughProxy.session("waiter").treeLocks().lock(Set.of(bench), LONG));
        assertThat(proxy.awaitCut(LONG)).as("the waiter's queue place committed, its answer lost").isTrue();
        held.close();
        proxy.restore();
        waiter.get(LONG.toSeconds(), TimeUnit.SECONDS).close();

        assertThat(direct.session("later").treeLocks().tryLock(TreeLockRequest.exclusive(Set.of(bench))))
                .as("a later request, once the waiter had the node and let it go").hasValueSatisfying(TreeLockHandle::close);
    }

    /**
     * A lock request whose grant committed but whose answer was lost (a node killed mid-commit did
     * this in GaleraNodeKilledIT): the caller's retry is refused by nothing but its own lock, an
     * exclusive one, which then bound every caller, the requester too, until it expired.
     */
    @Test
    void aLockWhoseAnswerWasLost_isTheRequestersOnItsRetry_andNobodyElses() throws Exception {
        String cls = "LostLock" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        var directStore = direct.session("other").objectStore();
        directStore.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject created = directStore.createCustomObject(cls);
        created.save(RefreshMode.REFRESH);
        CustomObject mine = throughProxy.session("cut").objectStore().getCustomObject(cls, created.getId());
        RetryPolicy throughOutages = throughProxy.retryPolicies().get(THROUGH_OUTAGES);

        // Far longer than the policy's total wait: before, the retry waited out the policy, refused.
        int timeoutSeconds = 600;
        proxy.cutCommitAnswerAfter("UPDATE ts_object");
        Future<?> locking = executor.submit(() -> Locking.lockWithRetry(mine, timeoutSeconds, "cut", throughOutages));
        assertThat(proxy.awaitCut(LONG)).as("the lock's commit went through, its answer lost").isTrue();
        CustomObject theirs = directStore.getCustomObject(cls, created.getId());
        theirs.lockExclusively(timeoutSeconds, "other");
        assertThat(Failures.failure(() -> theirs.save(RefreshMode.REFRESH)).getExceptionCode())
                .as("another user while the answer is lost").isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        proxy.restore();
        locking.get(LONG.toSeconds(), TimeUnit.SECONDS);

        assertThat(mine.getLockHolder()).as("the lock, once the retry had its answer").isEqualTo("cut");
        theirs.clearPendingActions();
        theirs.lockExclusively(timeoutSeconds, "other");
        assertThat(Failures.failure(() -> theirs.save(RefreshMode.REFRESH)).getExceptionCode())
                .as("another user after the retry").isEqualTo(ExceptionCode.E_OBJECT_LOCKED);
        mine.unlock();
        mine.save(RefreshMode.REFRESH);
        theirs.clearPendingActions();
        theirs.setUpdateSequenceNumber(null);
        theirs.lockExclusively(timeoutSeconds, "other");
        theirs.save(RefreshMode.REFRESH);
        assertThat(theirs.getLockHolder()).as("another user once the requester unlocked").isEqualTo("other");
    }

    /**
     * The save of a {@code withLock}'s work with its unlock lost with the database, as a failover
     * loses commits its synchronous standby had not received (PostgresSyncFailoverIT saw it): the
     * lock stays in the database, and before it was left there — the call failed at once, its
     * fallback unlock too, and every caller, the holder's next call too, waited out the lock's timeout.
     */
    @Test
    void withLock_whoseSaveWasLostWithTheDatabase_savesTheWorkWithTheUnlockOnceItIsBack() throws Exception {
        CustomObject created = lockable();
        CustomObject mine = throughProxy.session("cut").objectStore().getCustomObject(created.getClassName(), created.getId());
        Future<String> working = withLockArmedAtItsSave(mine, () -> proxy.loseStatement("UPDATE ts_object"));
        assertThat(proxy.awaitCut(LONG)).as("the save with the unlock lost, the database gone").isTrue();
        proxy.restore();

        assertThat(working.get(LONG.toSeconds(), TimeUnit.SECONDS)).isEqualTo("worked");
        long lockedUsn = created.getUpdateSequenceNumber() + 1;
        CustomObject theirs = direct.session("other").objectStore().fetchCustomObject(created.getClassName(), created.getId(),
                PropertyFilter.ALL);
        assertThat(theirs.isLocked()).as("still locked, once the database was back").isFalse();
        assertThat(theirs.getProperties().getInteger32Value("Counter")).isEqualTo(7);
        assertThat(theirs.getUpdateSequenceNumber()).as("written once").isEqualTo(lockedUsn + 1);
    }

    /**
     * The save of a {@code withLock}'s work with its unlock committed, its answer lost: the retry
     * finds the row moved on — by that save, as the row shows (the USN one on, unlocked, the work
     * in it) — and the call returns, where it failed though its work was saved.
     */
    @Test
    void withLock_whoseSavesAnswerWasLost_findsItsSaveInTheRow_andReturns() throws Exception {
        CustomObject created = lockable();
        CustomObject mine = throughProxy.session("cut").objectStore().getCustomObject(created.getClassName(), created.getId());
        Future<String> working = withLockArmedAtItsSave(mine, () -> proxy.cutCommitAnswerAfter("UPDATE ts_object"));
        assertThat(proxy.awaitCut(LONG)).as("the save with the unlock committed, its answer lost").isTrue();
        CustomObject theirs = direct.session("other").objectStore().fetchCustomObject(created.getClassName(), created.getId(),
                PropertyFilter.ALL);
        assertThat(theirs.isLocked()).as("unlocked by the save whose answer was lost").isFalse();
        long savedUsn = theirs.getUpdateSequenceNumber();
        proxy.restore();

        assertThat(working.get(LONG.toSeconds(), TimeUnit.SECONDS)).isEqualTo("worked");
        assertThat(mine.getUpdateSequenceNumber()).as("the instance, as the save left the row").isEqualTo(savedUsn);
        theirs.refresh();
        assertThat(theirs.getUpdateSequenceNumber()).as("written once").isEqualTo(savedUsn);
        assertThat(theirs.getProperties().getInteger32Value("Counter")).isEqualTo(7);
    }

    /**
     * As above, but the same user's next request took the lock while the answer was lost: the call
     * cannot tell its save from the row, so it fails — and leaves that lock alone, where its fallback
     * unlocked any lock of its user whatever the request, and two requests held the lock.
     */
    @Test
    void withLock_whoseSavesAnswerWasLost_neverUnlocksTheSameUsersNextLock() throws Exception {
        assumeTrue(cutOffUntilRestored(), "the next lock must come while the call is cut off");
        CustomObject created = lockable();
        CustomObject mine = throughProxy.session("cut").objectStore().getCustomObject(created.getClassName(), created.getId());
        Future<String> working = withLockArmedAtItsSave(mine, () -> proxy.cutCommitAnswerAfter("UPDATE ts_object"));
        assertThat(proxy.awaitCut(LONG)).as("the save with the unlock committed, its answer lost").isTrue();
        CustomObject next = direct.session("cut").objectStore().getCustomObject(created.getClassName(), created.getId());
        Locking.lockWithRetry(next, 600, "next", throughOutages());
        proxy.restore();

        assertThatThrownBy(() -> working.get(LONG.toSeconds(), TimeUnit.SECONDS)).cause()
                .as("the call, its save not told apart from the next request's lock")
                .isInstanceOfSatisfying(EngineRuntimeException.class,
                        e -> assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_OBJECT_MODIFIED));
        next.refresh();
        assertThat(next.getLockOwner()).as("the next request's lock, still held").isEqualTo("next");
        assertThat(next.getLockToken()).isNotNull();
    }

    /** {@code mine}'s {@code withLock} setting Counter to 7, whose save of it with the unlock {@code arm} arms the proxy for. */
    private Future<String> withLockArmedAtItsSave(CustomObject mine, Runnable arm) {
        return executor.submit(() -> Locking.withLock(mine, 600, "cut", throughOutages(), locked -> {
            locked.getProperties().putValue("Counter", 7);
            arm.run();
            return "worked";
        }));
    }

    private CustomObject lockable() {
        String cls = "LostUnlock" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        var store = direct.session("admin").objectStore();
        store.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject created = store.createCustomObject(cls);
        created.getProperties().putValue("Counter", 0);
        created.save(RefreshMode.REFRESH);
        return created;
    }

    private RetryPolicy throughOutages() {
        return throughProxy.retryPolicies().get(THROUGH_OUTAGES);
    }

    @ParameterizedTest
    @EnumSource(DispenserStrategy.class)
    void numbersWhoseCommitsAnswerWasLost_areNeverIssuedAgain(DispenserStrategy strategy) throws Exception {
        String name = "lost-" + strategy.name().toLowerCase().replace('_', '-') + "-" + UUID.randomUUID().toString().substring(0, 6);
        var admin = direct.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers();
        admin.create(name, DispenserConfig.builder().register(true).build());
        DispenserConfig config = DispenserConfig.builder().strategy(strategy).retryPolicy(THROUGH_OUTAGES).build();
        Dispenser elsewhere = direct.session("elsewhere").dispensers().get(name, config);
        Dispenser cut = throughProxy.session("cut").dispensers().get(name, config);
        List<Long> issued = new ArrayList<>();
        issued.add(cut.next()); // the engine behind the proxy knows the counter now
        issued.add(elsewhere.next());

        // The commit that registers the next take's number: it commits, its answer is lost.
        proxy.cutCommitAnswerAfter("ts_dispenser_issue");
        Future<Long> taking = executor.submit(() -> cut.next());
        assertThat(proxy.awaitCut(LONG)).as("the take's commit went through, its answer lost").isTrue();
        for (int i = 0; i < 3; i++) {
            issued.add(elsewhere.next());
        }
        proxy.restore();
        issued.add(taking.get(LONG.toSeconds(), TimeUnit.SECONDS));
        issued.add(cut.next());
        issued.add(elsewhere.next());

        assertThat(issued).as("numbers issued, in the order they were").doesNotHaveDuplicates();
        long last = issued.stream().max(Long::compare).orElseThrow();
        assertThat(elsewhere.register().stream().map(IssuedNumber::number))
                .as("the register: every number up to the last, the lost answer's too (it was committed)")
                .containsExactlyElementsOf(LongStream.rangeClosed(1, last).boxed().toList());
        // That number never reached its caller (the retry took another): the register says so, apart.
        long lost = LongStream.rangeClosed(1, last).filter(n -> !issued.contains(n)).findFirst().orElseThrow();
        cut.report(); // each engine confirms what its callers have before its report: both, here
        RegisterReport report = elsewhere.report();
        assertThat(report.inDoubt()).as("numbers in doubt").isEqualTo(1);
        assertThat(report.numbersInDoubt()).singleElement().satisfies(entry -> {
            assertThat(entry.number()).isEqualTo(lost);
            assertThat(entry.issuedBy()).as("who took it").isEqualTo("cut");
            assertThat(entry.issuedAt()).as("when").isNotNull();
        });
        assertThat(report.isComplete()).as("nothing missing").isTrue();
        assertThat(report.isAccountedFor()).as("but one number in doubt").isFalse();
        assertThat(elsewhere.register()).filteredOn(IssuedNumber::inDoubt).extracting(IssuedNumber::number).containsExactly(lost);
        admin.get(name).voidNumber(lost, "answer lost in an outage; no invoice carries it");
        assertThat(elsewhere.report().isAccountedFor()).as("voided after the audit").isTrue();
    }

    @Test
    void aKeyedRequestWhoseAnswerWasLost_getsItsOwnNumbersOnItsRetry() throws Exception {
        String name = "lost-keyed-" + UUID.randomUUID().toString().substring(0, 6);
        direct.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(name, DispenserConfig.builder().register(true).build());
        DispenserConfig config = DispenserConfig.builder().retryPolicy(THROUGH_OUTAGES).build();
        Dispenser cut = throughProxy.session("cut").dispensers().get(name, config);
        Dispenser elsewhere = direct.session("elsewhere").dispensers().get(name, config);

        proxy.cutCommitAnswerAfter("ts_dispenser_request");
        Future<NumberBlock> taking = executor.submit(() -> cut.next(3, "invoice-run-7"));
        assertThat(proxy.awaitCut(LONG)).as("the keyed take's commit went through, its answer lost").isTrue();
        long between = elsewhere.next();
        proxy.restore();
        NumberBlock block = taking.get(LONG.toSeconds(), TimeUnit.SECONDS);

        assertThat(block.first()).as("the numbers the lost answer carried, found by the retry (taken before %d)", between)
                .isEqualTo(1);
        // The same request is the same user's (a key is its sender's: another user's same key is another request).
        Dispenser sameUserElsewhere = direct.session("cut").dispensers().get(name, config);
        assertThat(sameUserElsewhere.next(3, "invoice-run-7")).as("the same request again, from another engine").isEqualTo(block);
        assertThat(elsewhere.next()).as("the next number: nothing was taken twice for the key").isEqualTo(between + 1);
        assertThat(elsewhere.report().inDoubt()).as("a keyed request's numbers are never in doubt: the key gets them again").isZero();
    }
}
