package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.EngineStatistics;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.retry.RetryMetrics;
import dev.turnstile.api.retry.RetryPoliciesConfig;
import dev.turnstile.api.retry.RetryPolicyConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreeLocksConfig;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.EngineInternals;
import dev.turnstile.engine.MutableClock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import static dev.turnstile.engine.Failures.failure;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Tree locks on every database: the seed's control-centre scenario step by step, Gray's modes,
 * leases on an injected clock, waiting, fairness and bad input. Each test works in its own site
 * (a random root), and must leave nothing held there.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractTreeLockContractTest {
    static final Duration LEASE = Duration.ofSeconds(30);
    private final MutableClock clock = new MutableClock(Instant.now().truncatedTo(ChronoUnit.MICROS));
    private ContentEngine engine;
    TreeLocks locks;
    TreePath site;

    protected abstract EngineConfig config();

    @BeforeAll
    void open() {
        engine = ContentEngine.open(EngineConfig.from(config()).clock(clock).treeLocks(TreeLocksConfig.builder().lease(LEASE).build()).build());
        locks = engine.treeLocks();
    }

    @AfterAll
    void close() {
        engine.close();
    }

    @BeforeEach
    void newSite() {
        site = TreePath.root("site", UUID.randomUUID().toString().substring(0, 8));
    }

    @AfterEach
    void nothingLeftHeld() {
        assertThat(locks.status(site)).as("locks left held in " + site).isEmpty();
    }

    TreePath workshop(String w) {
        return site.child("workshop", w);
    }

    TreePath bench(String w, String b) {
        return workshop(w).child("bench", b);
    }

    private Optional<TreeLockHandle> tryX(TreePath... nodes) {
        return as("test").tryLock(TreeLockRequest.exclusive(nodes));
    }

    private boolean free(TreePath... nodes) {
        Optional<TreeLockHandle> h = tryX(nodes);
        h.ifPresent(TreeLockHandle::unlock);
        return h.isPresent();
    }

    /** The tree locks as {@code user}. */
    private TreeLocks as(String user) {
        return engine.session(user).treeLocks();
    }

    @Test
    void everySessionUser_canHoldATreeLock_andIsItsHolder() {
        String longest = "u".repeat(120) + UUID.randomUUID().toString().substring(0, 8); // 128, the longest user name
        TreePath node = workshop("A").child("bench", "long-" + UUID.randomUUID().toString().substring(0, 8));
        try (TreeLockHandle h = as(longest).tryLock(TreeLockRequest.exclusive(node)).orElseThrow()) {
            assertThat(h.holder()).isEqualTo(longest);
            assertThat(engine.treeLocks().status(node)).extracting(TreeLockInfo::holder).containsExactly(longest);
        }
    }

    @Test
    void nodesNobodyHolds_goInTheSweep_andLockAgainAfterwards() throws Exception {
        TreePath bench = site.child("workshop", "A").child("bench", "1");
        as("o").lock(Set.of(bench), Duration.ZERO).unlock();
        assertThat(nodesWithRows()).as("the site, the workshop and the bench have rows").containsExactlyInAnyOrder(
                site.toString(), site.child("workshop", "A").toString(), bench.toString());
        TreeLockHandle held = as("o").lock(Set.of(site.child("workshop", "B")), Duration.ZERO);
        TreeLockService tree = ((DefaultTreeLocks) locks).service();
        while (tree.sweepIdleNodes() > 0) {
            // batches of 100 until no idle node is left (other classes' sites too)
        }
        assertThat(nodesWithRows()).as("only the held workshop B and the site above it are left")
                .containsExactlyInAnyOrder(site.toString(), site.child("workshop", "B").toString());
        held.unlock();
        as("o").lock(Set.of(bench), Duration.ZERO).unlock();
    }

    @Test
    void aSweep_skipsANodeRowAnotherTransactionHasLocked_insteadOfWaitingForIt() throws Exception {
        TreePath bench = site.child("workshop", "A").child("bench", "1");
        as("o").lock(Set.of(bench), Duration.ZERO).unlock(); // its rows are idle now
        TreeLockService tree = ((DefaultTreeLocks) locks).service();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (var c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             var s = c.createStatement()) {
            // Another transaction has the bench's row locked (a lock being taken, say): a sweep that
            // waited for it deadlocked with such transactions on PostgreSQL, a second each (issue 16).
            c.setAutoCommit(false);
            s.executeUpdate("UPDATE ts_tree_node SET usn = usn + 1 WHERE node_path = '" + bench + "'");
            Future<Integer> sweeping = pool.submit(() -> {
                int swept = 0;
                for (int n; (n = tree.sweepIdleNodes()) > 0; ) {
                    swept += n; // batches of 100 until nothing idle and unlocked is left
                }
                return swept;
            });
            assertThat(sweeping.get(30, TimeUnit.SECONDS)).as("rows swept around the locked one").isPositive();
            assertThat(nodesWithRows()).as("the locked row stays").containsExactly(bench.toString());
            c.rollback();
        } finally {
            pool.shutdownNow();
        }
        while (tree.sweepIdleNodes() > 0) {
            // once unlocked, it goes too
        }
        assertThat(nodesWithRows()).isEmpty();
    }

    @Test
    void aLockMakesOnlyTheNodeRowsItMarks_soAnotherTransactionOnASiblingStripeDoesNotHoldItUp() throws Exception {
        // A lease whose id puts its intentions on stripe 5 of the workshop and of the site; no row of the site exists.
        String leaseId = "05" + UUID.randomUUID().toString().substring(2);
        TreeLockRequest request = TreeLockRequest.exclusive(bench("A", "1"));
        TreeLockStore store = new TreeLockStore(EngineInternals.database(engine));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (var c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             var s = c.createStatement()) {
            // Another transaction makes the workshop's stripe 9 and keeps it (a lock of another bench on its way).
            // A lock that made every stripe of a node it marks waited for that row, out of write order: against a
            // waiter claiming the stripes in order, a deadlock (the waiter's queueing aborted 129 times in 10 s).
            c.setAutoCommit(false);
            insertIdleRow(s, workshop("A") + "/:9");
            Future<TreeLeaseRecord> acquiring = pool.submit(() -> store.acquire(leaseId, "o", request, GrayMode.marksOf(request),
                    "0000000000000001-" + leaseId, false, LEASE));
            assertThat(acquiring.get(30, TimeUnit.SECONDS).leaseId).as("granted while the sibling stripe is held").isEqualTo(leaseId);
            assertThat(rowsOfSite()).as("the rows it marked, and no other").containsExactlyInAnyOrder(
                    bench("A", "1").toString(), workshop("A") + "/:5", site + "/:5");
            c.rollback();
        } finally {
            pool.shutdownNow();
        }
        assertThat(store.release(leaseId, GrayMode.marksOf(request), request.nodes().keySet())).isTrue();
    }

    @Test
    void aWaitersPlaceOnAStripeCountsOnceClaimed_thoughAnotherStripeOfItsNodeIsHeldByATransactionInFlight() throws Exception {
        // One transaction that claimed all sixteen stripes of a workshop was aborted on H2 again and again
        // while bench locks changed the stripes it had yet to reach (up to 185 times in a run), and the
        // workshop waiter starved behind the stream of bench locks it was queueing to stop.
        TreeLockStore store = new TreeLockStore(EngineInternals.database(engine));
        String waiterLease = "00" + UUID.randomUUID().toString().substring(2);
        TreeLockRequest waiter = TreeLockRequest.exclusive(workshop("A"));
        String benchLease = "0c" + UUID.randomUUID().toString().substring(2); // its intention goes on the workshop's stripe 12
        TreeLockRequest benchLock = TreeLockRequest.exclusive(bench("A", "2"));
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try (var c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             var s = c.createStatement()) {
            // A bench lock on its way through the workshop's stripe 9 (the site is new: the waiter makes the other rows).
            insertIdleRow(s, workshop("A") + "/:9");
            c.setAutoCommit(false);
            assertThat(s.executeUpdate("UPDATE ts_tree_node SET usn = usn + 1 WHERE node_path = '" + workshop("A") + "/:9'")).isEqualTo(1);
            Future<?> queueing = pool.submit(() -> store.claimHeads(waiterLease, waiter, "0000000000000001-" + waiterLease, LEASE));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                    .untilAsserted(() -> assertThat(headsOf(waiterLease)).as("the waiter's places, committed").contains(workshop("A") + "/:12"));
            assertThatThrownBy(() -> store.acquire(benchLease, "bench", benchLock,
                            GrayMode.marksOf(benchLock), "9999999999999999-" + benchLease, false, LEASE))
                    .as("a later bench lock on stripe 12 yields to the waiter queued there").isSameAs(TreeLockStore.Blocked.INSTANCE);
            c.rollback();
            queueing.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
            store.release(benchLease, GrayMode.marksOf(benchLock), benchLock.nodes().keySet()); // granted, where the test failed
        }
        assertThat(headsOf(waiterLease)).as("once the stripe is free, the waiter's place on every row of its node")
                .containsExactlyInAnyOrderElementsOf(IntentionStripes.rows(workshop("A")));
        store.leaveQueue(waiterLease, waiter);
        assertThat(headsOf(waiterLease)).isEmpty();
    }

    /** The node rows where {@code leaseId} holds the head of the queue (a lease id is unique), read with plain JDBC. */
    private List<String> headsOf(String leaseId) throws Exception {
        return nodeRows("head_lease = ?", leaseId);
    }

    /** A node row as a lock makes it, idle, inserted by {@code s}'s connection (in its transaction, if one is open). */
    private static void insertIdleRow(java.sql.Statement s, String row) throws java.sql.SQLException {
        s.executeUpdate("INSERT INTO ts_tree_node (node_path, usn, is_count, ix_count, s_count, six_count, x_count)"
                + " VALUES ('" + row + "', 0, 0, 0, 0, 0, 0)");
    }

    /** How many rows of this test's site (its own and its stripes) hold an intention, read with plain JDBC. */
    private int siteStripesMarked() throws Exception {
        try (var c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             var s = c.prepareStatement("SELECT COUNT(*) FROM ts_tree_node WHERE (node_path = ? OR node_path LIKE ?)"
                     + " AND (is_count > 0 OR ix_count > 0)")) {
            s.setString(1, site.toString());
            s.setString(2, site + "/:%");
            try (var rs = s.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    /** The nodes of this test's site that have rows (their own or a stripe), read with plain JDBC. */
    private Set<String> nodesWithRows() throws Exception {
        Set<String> nodes = new java.util.HashSet<>();
        rowsOfSite().forEach(row -> nodes.add(row.replaceFirst("/:\\d+$", "")));
        return nodes;
    }

    /** The rows of this test's site in {@code ts_tree_node}, each stripe by its own name. */
    private Set<String> rowsOfSite() throws Exception {
        return Set.copyOf(nodeRows("node_path = ? OR node_path LIKE ?", site.toString(), site + "/%"));
    }

    /** The paths of the {@code ts_tree_node} rows where {@code condition} holds ({@code values} for its ?s), read with plain JDBC. */
    private List<String> nodeRows(String condition, String... values) throws Exception {
        try (var c = java.sql.DriverManager.getConnection(config().jdbcUrl(), config().username(), config().password());
             var s = c.prepareStatement("SELECT node_path FROM ts_tree_node WHERE " + condition)) {
            for (int i = 0; i < values.length; i++) {
                s.setString(i + 1, values[i]);
            }
            List<String> rows = new ArrayList<>();
            try (var rs = s.executeQuery()) {
                while (rs.next()) {
                    rows.add(rs.getString(1));
                }
            }
            return rows;
        }
    }

    @Test
    void benchLocksHeldAtOnce_markEveryStripeOfTheSiteInTurn_andEveryOneHoldsTheSiteBack() throws Exception {
        // As many bench locks as the site has stripes, held at once: successive leases of a process
        // take successive stripes, so each marks its own (by a hash of a random id, 16 threads of one
        // site waited on each other's rows).
        List<TreeLockHandle> held = new ArrayList<>();
        Set<Integer> stripes = new java.util.TreeSet<>();
        for (int b = 0; b < IntentionStripes.of(site); b++) {
            TreeLockHandle h = tryX(bench("W" + b % 4, "B" + b)).orElseThrow();
            held.add(h);
            stripes.add(IntentionStripes.stripe(h.lockToken(), site));
        }
        assertThat(stripes).as("stripes of the site marked").hasSize(IntentionStripes.of(site));
        assertThat(siteStripesMarked()).as("stripe rows of the site with an intention").isEqualTo(IntentionStripes.of(site));
        // Released in turn, the site stays refused to X and S until the last goes; IS (S lower down) passes.
        while (!held.isEmpty()) {
            assertThat(tryX(site)).as("X on the site with %d bench locks held", held.size()).isEmpty();
            assertThat(as("reader").tryLock(TreeLockRequest.shared(site))).as("S on the site").isEmpty();
            assertThat(as("reader").tryLock(TreeLockRequest.shared(workshop("Other")))).as("S on another workshop (IS on the site)")
                    .hasValueSatisfying(TreeLockHandle::unlock);
            held.remove(held.size() - 1).unlock();
        }
        assertThat(free(site)).as("X on the site once every bench is free").isTrue();
    }

    @Test
    void aSiteHeldExclusively_refusesEveryBenchUnderIt_whicheverStripeItsLeaseHas() {
        TreeLockHandle whole = tryX(site).orElseThrow();
        for (int b = 0; b < 40; b++) {
            assertThat(tryX(bench("W" + b % 4, "B" + b))).as("bench B%d under the held site", b).isEmpty();
        }
        whole.unlock();
        assertThat(free(bench("W0", "B0"))).isTrue();
    }

    @Test
    void seedScenario_benchesOfDifferentWorkshopsRunTogether_aSpanningOperationHoldsAllSixAndBlocksItsAncestors() {
        // Operations on different workshops run in parallel.
        TreeLockHandle a1 = tryX(bench("A", "1")).orElseThrow();
        TreeLockHandle b8 = tryX(bench("B", "8")).orElseThrow();
        // Operations on the same bench run one after another.
        assertThat(tryX(bench("A", "1"))).isEmpty();
        // An operation on a workshop waits for the operations running on its benches.
        assertThat(tryX(workshop("A"))).isEmpty();
        assertThat(tryX(site)).isEmpty();
        a1.unlock();
        b8.unlock();

        // One operation spanning benches 1, 2, 3 of A and 4, 5, 6 of B holds all six at once...
        TreeLockHandle span = as("upgrade").lock(Set.of(bench("A", "1"), bench("A", "2"), bench("A", "3"),
                bench("B", "4"), bench("B", "5"), bench("B", "6")), Duration.ofSeconds(5));
        assertThat(span.nodes()).hasSize(6).containsValue(TreeLockMode.EXCLUSIVE);
        for (String b : List.of("1", "2", "3")) {
            assertThat(tryX(bench("A", b))).as("bench A/" + b).isEmpty();
        }
        for (String b : List.of("4", "5", "6")) {
            assertThat(tryX(bench("B", b))).as("bench B/" + b).isEmpty();
        }
        // ...while bench 7 of A and bench 8 of B stay free...
        assertThat(free(bench("A", "7"))).isTrue();
        assertThat(free(bench("B", "8"))).isTrue();
        // ...and A, B and the site wait until it ends.
        assertThat(tryX(workshop("A"))).isEmpty();
        assertThat(tryX(workshop("B"))).isEmpty();
        assertThat(tryX(site)).isEmpty();
        assertThat(locks.status(site)).extracting(TreeLockInfo::lockToken).containsExactly(span.lockToken());

        assertThat(span.unlock()).isTrue();
        assertThat(free(workshop("A"), workshop("B"))).isTrue();
        assertThat(free(site)).isTrue();
    }

    @Test
    void aLockedWorkshopBlocksItsBenchesAndItsSite_butNotAnotherWorkshop() {
        TreeLockHandle a = tryX(workshop("A")).orElseThrow();
        assertThat(tryX(bench("A", "1"))).isEmpty();
        assertThat(tryX(bench("A", "1").child("operation", "op1"))).isEmpty();
        assertThat(tryX(site)).isEmpty();
        assertThat(free(workshop("B"), bench("B", "1"))).isTrue();
        a.unlock();
        assertThat(free(bench("A", "1"))).isTrue();
    }

    @Test
    void aRequestIsAllOrNothing_aRefusedOneHoldsNoneOfItsNodes() {
        TreeLockHandle b4 = tryX(bench("B", "4")).orElseThrow();
        assertThat(tryX(bench("A", "1"), bench("B", "4"))).isEmpty();
        assertThat(free(bench("A", "1"))).as("the refused request left A/1 free").isTrue();
        assertThat(free(workshop("A"))).as("and no intention mark on A").isTrue();
        b4.unlock();
    }

    @Test
    void sharedLocks_manyReadersOfAWorkshop_noWriterInsideIt() {
        TreeLockRequest readA = TreeLockRequest.shared(workshop("A"));
        TreeLockHandle r1 = as("reader 1").tryLock(readA).orElseThrow();
        TreeLockHandle r2 = as("reader 2").tryLock(readA).orElseThrow();
        TreeLockHandle benchReader = as("reader 3").tryLock(TreeLockRequest.shared(bench("A", "1"))).orElseThrow();
        TreeLockHandle siteReader = as("reader 4").tryLock(TreeLockRequest.shared(site)).orElseThrow();
        assertThat(tryX(bench("A", "2"))).as("a writer below a read workshop").isEmpty();
        assertThat(tryX(workshop("A"))).isEmpty();
        assertThat(tryX(site)).isEmpty();
        siteReader.unlock();
        assertThat(free(bench("B", "1"))).as("a writer in another workshop").isTrue();
        // A writer holding a bench keeps readers off the bench and its workshop, not off a sibling.
        r1.unlock();
        r2.unlock();
        benchReader.unlock();
        TreeLockHandle writer = tryX(bench("A", "2")).orElseThrow();
        assertThat(as("reader 5").tryLock(readA)).isEmpty();
        assertThat(as("reader 6").tryLock(TreeLockRequest.shared(bench("A", "2")))).isEmpty();
        Optional<TreeLockHandle> sibling = as("reader 7").tryLock(TreeLockRequest.shared(bench("A", "3")));
        assertThat(sibling).isPresent();
        sibling.get().unlock();
        writer.unlock();
    }

    @Test
    void oneRequestMixingModes_sharedWorkshopAndExclusiveBenchInside() {
        TreeLockRequest mixed = TreeLockRequest.builder().node(workshop("A"), TreeLockMode.SHARED)
                .node(bench("A", "1"), TreeLockMode.EXCLUSIVE).build();
        TreeLockHandle h = as("mixed").tryLock(mixed).orElseThrow();
        assertThat(as("reader").tryLock(TreeLockRequest.shared(bench("A", "2")))).as("IS under SIX").isPresent()
                .get().extracting(TreeLockHandle::unlock).isEqualTo(true);
        assertThat(as("reader").tryLock(TreeLockRequest.shared(workshop("A")))).as("S against SIX").isEmpty();
        assertThat(tryX(bench("A", "2"))).as("IX against SIX").isEmpty();
        h.unlock();
    }

    @Test
    void leaseLapsesAtItsExpiryByTheEngineClock_notBefore_andTheLoserLearnsItAtHeartbeat() {
        TreeLockHandle h = tryX(bench("A", "1")).orElseThrow();
        assertThat(h.expiresAt()).isEqualTo(h.lockedAt().plus(LEASE));
        clock.set(h.expiresAt());
        assertThat(tryX(bench("A", "1"))).as("at the expiry instant it still holds").isEmpty();
        clock.set(h.expiresAt().plusNanos(1000));
        TreeLockHandle taker = tryX(workshop("A")).orElseThrow();
        assertThat(locks.status(site)).extracting(TreeLockInfo::lockToken).containsExactly(taker.lockToken());

        EngineRuntimeException e = failure(h::heartbeat);
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(e.getMessage()).contains(h.lockToken()).contains("test");
        assertThat(h.unlock()).as("the lapsed holder no longer held it").isFalse();
        taker.unlock();
    }

    @Test
    void heartbeatExtendsTheLease() {
        TreeLockHandle h = tryX(bench("A", "1")).orElseThrow();
        clock.advance(LEASE.minusSeconds(1));
        Instant renewed = h.heartbeat();
        assertThat(renewed).isEqualTo(clock.instant().truncatedTo(ChronoUnit.MICROS).plus(LEASE)).isEqualTo(h.expiresAt());
        clock.advance(LEASE.minusSeconds(1));
        assertThat(tryX(bench("A", "1"))).isEmpty();
        assertThat(locks.status(site)).singleElement().satisfies(i -> assertThat(i.expired()).isFalse());
        assertThat(h.unlock()).isTrue();
        assertThat(h.unlock()).as("a second unlock").isFalse();
    }

    @Test
    void statusListsTheLocksInASubtree_withOwnerNodesAndExpiry() {
        TreeLockHandle a1 = as("op 17").tryLock(TreeLockRequest.exclusive(bench("A", "1"))).orElseThrow();
        TreeLockHandle b = as("audit").tryLock(TreeLockRequest.shared(workshop("B"))).orElseThrow();
        assertThat(locks.status(workshop("A"))).singleElement().satisfies(i -> {
            assertThat(i.holder()).isEqualTo("op 17");
            assertThat(i.nodes()).containsExactly(java.util.Map.entry(bench("A", "1"), TreeLockMode.EXCLUSIVE));
            assertThat(i.expiresAt()).isEqualTo(a1.expiresAt());
        });
        assertThat(locks.status(site)).extracting(TreeLockInfo::holder).containsExactlyInAnyOrder("op 17", "audit");
        assertThat(locks.status(bench("A", "2"))).isEmpty();
        assertThat(locks.status(LockQuery.first(10_000)).items()).extracting(TreeLockInfo::lockToken).contains(a1.lockToken(), b.lockToken());
        a1.unlock();
        b.unlock();
    }

    /** Issue 43: the console pages, filters and counts tree locks in the database, lapsed ones included and marked. */
    @Test
    void statusPages_filtersAndCountsTheLeases_lapsedOnesMarked() {
        List<TreeLockHandle> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            held.add(as("crew" + i % 2).tryLock(TreeLockRequest.exclusive(bench("A", String.valueOf(i)))).orElseThrow());
            clock.advance(Duration.ofSeconds(1));
        }
        LockQuery inSite = LockQuery.first(2).contains(site.toString());
        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 5; offset += 2) {
            LockPage<TreeLockInfo> page = locks.status(inSite.offset(offset));
            assertThat(page.total()).isEqualTo(5);
            page.items().forEach(i -> paged.add(i.lockToken()));
        }
        assertThat(paged).isEqualTo(held.stream().map(TreeLockHandle::lockToken).toList());
        assertThat(locks.status(inSite.order(LockQuery.Order.NEWEST)).items().get(0).lockToken()).isEqualTo(held.get(4).lockToken());
        LockPage<TreeLockInfo> crew1 = locks.status(LockQuery.first(10).contains(site.toString()).holder("crew1"));
        assertThat(crew1.items()).extracting(TreeLockInfo::lockToken).containsExactly(held.get(1).lockToken(), held.get(3).lockToken());
        assertThat(locks.status(LockQuery.first(10).lockToken(held.get(2).lockToken())).items()).singleElement()
                .satisfies(i -> assertThat(i.nodes()).containsOnlyKeys(bench("A", "2")));
        assertThat(locks.status(LockQuery.first(10).contains(bench("A", "3").toString())).total()).isEqualTo(1);

        clock.set(held.get(4).expiresAt().plusSeconds(1));
        assertThat(locks.status(inSite.order(LockQuery.Order.WHAT).offset(0)).items()).as("lapsed, not yet taken back: marked")
                .allSatisfy(i -> assertThat(i.expired()).isTrue());
        held.forEach(TreeLockHandle::unlock);
        assertThat(locks.status(inSite).total()).isZero();
    }

    @Test
    void acquireCost_isDepthTimesNodes_whateverIsHeldElsewhere() {
        TreePath target = bench("A", "1");
        List<TreeLockHandle> siblings = holdEveryStripeAbove(target);
        EngineStatistics quiet = cost(target);
        List<TreeLockHandle> held = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            held.add(tryX(bench("W" + i, "1")).orElseThrow());
        }
        EngineStatistics busy = cost(target);
        held.forEach(TreeLockHandle::unlock);
        siblings.forEach(TreeLockHandle::unlock);
        assertThat(busy).isEqualTo(quiet);
        if (locksInOneStatement()) {
            assertThat(quiet.statements()).as("one statement: every level's mark and the lease").isEqualTo(1);
            return;
        }
        assertThat(quiet.updates()).as("one conditional update per level").isEqualTo(target.depth());
        assertThat(quiet.inserts()).as("the lease").isEqualTo(1);
        assertThat(quiet.selects()).isZero();
    }

    /** Whether a lock and its release are each one statement that commits itself (PostgreSQL). */
    protected boolean locksInOneStatement() {
        return false;
    }

    @Test
    void aLockAndItsRelease_areOneStatementEachOnPostgres_aTransactionOfAStatementPerLevelElsewhere() {
        TreePath target = bench("A", "1");
        List<TreeLockHandle> siblings = holdEveryStripeAbove(target);
        EngineStatistics acquire = null;
        EngineStatistics release = null;
        for (int i = 0; i < 3; i++) { // the least of three: a release sweeps idle rows one time in 256
            EngineStatistics before = engine.statistics();
            TreeLockHandle h = tryX(target).orElseThrow();
            EngineStatistics acquired = engine.statistics().since(before);
            before = engine.statistics();
            h.unlock();
            EngineStatistics released = engine.statistics().since(before);
            acquire = acquire == null || acquired.statements() < acquire.statements() ? acquired : acquire;
            release = release == null || released.statements() < release.statements() ? released : release;
        }
        siblings.forEach(TreeLockHandle::unlock);
        int levels = target.depth();
        assertThat(acquire).as("the lock").isEqualTo(locksInOneStatement() ? new EngineStatistics(0, 1, 0, 0, 1, 0)
                : new EngineStatistics(1, levels + 1, 0, 1, levels, 0));
        assertThat(release).as("the release").isEqualTo(locksInOneStatement() ? new EngineStatistics(0, 1, 0, 0, 0, 1)
                : new EngineStatistics(1, levels + 1, 0, 0, levels, 1));
    }

    /**
     * Holds a lock on a sibling of {@code target} per stripe of the site (successive leases take
     * successive stripes), so every stripe above it has its row, and keeps it (a sweep deletes idle rows
     * only): a lock makes only the rows it marks, and one that makes its stripe's row costs more.
     */
    private List<TreeLockHandle> holdEveryStripeAbove(TreePath target) {
        List<TreeLockHandle> siblings = new ArrayList<>();
        for (int i = 0; i < IntentionStripes.of(site); i++) {
            siblings.add(tryX(target.parent().child("bench", "sibling-" + i)).orElseThrow());
        }
        return siblings;
    }

    /**
     * What one acquire costs: the least of three, since a release sweeps idle node rows one time in
     * 256 and the next acquire of a swept node makes the rows it marks again (CI once met it: 8 statements
     * instead of 4). A sweep only ever adds statements, so the least is the cost.
     */
    private EngineStatistics cost(TreePath target) {
        EngineStatistics least = null;
        for (int i = 0; i < 3; i++) {
            EngineStatistics before = engine.statistics();
            TreeLockHandle h = tryX(target).orElseThrow();
            EngineStatistics used = engine.statistics().since(before);
            h.unlock();
            least = least == null || used.statements() < least.statements() ? used : least;
        }
        return least;
    }

    @Test
    void aWaiterIsGrantedWhenTheHolderReleases() throws Exception {
        TreeLockHandle holder = tryX(workshop("A")).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<TreeLockHandle> waiter = pool.submit(() -> as("waiter").lock(Set.of(bench("A", "1")), Duration.ofSeconds(20)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queuedOn(bench("A", "1")));
            assertThat(waiter).isNotDone();
            holder.unlock();
            TreeLockHandle granted = waiter.get(10, TimeUnit.SECONDS);
            assertThat(granted.holder()).isEqualTo("waiter");
            granted.unlock();
        } finally {
            pool.shutdownNow();
        }
    }

    /** Issue 43: an operator breaks a tree lock whose holder hung while renewing it; the waiter goes on, the holder is told. */
    @Test
    void anOperatorBreaksATreeLock_theWaiterIsGranted_andTheHolderIsToldWhoAndWhyAtItsHeartbeat() throws Exception {
        TreeLockHandle hung = as("alice").tryLock(TreeLockRequest.exclusive(workshop("A"))).orElseThrow();
        String token = hung.lockToken();
        assertThat(failure(() -> as("bob").breakLock(token, "stuck")).getMessage())
                .isEqualTo("E_ACCESS_DENIED: bob may not break tree lock " + token + ": that needs the role lock-breaker");
        TreeLocks operator = engine.session("carol", Set.of("lock-breaker")).treeLocks();
        assertThat(failure(() -> operator.breakLock(token, "")).getMessage()).isEqualTo("E_BAD_VALUE: Bad value for reason for"
                + " breaking tree lock " + token + ": \"\" (1 to 200 characters: why, for its holder and the audit trail)");
        assertThat(failure(() -> operator.breakLock(null, "stuck")).getMessage())
                .isEqualTo("E_BAD_VALUE: Bad value for tree lock token: null (the lock's token, as status() lists it)");
        assertThat(locks.status(site)).extracting(TreeLockInfo::lockToken).as("refusals change nothing").containsExactly(token);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<TreeLockHandle> waiter = pool.submit(() -> as("waiter").lock(Set.of(bench("A", "1")), Duration.ofSeconds(20)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> queuedOn(bench("A", "1")));

            operator.breakLock(token, "the overnight job hung holding workshop A");
            TreeLockHandle granted = waiter.get(10, TimeUnit.SECONDS);
            assertThat(granted.holder()).isEqualTo("waiter");
            granted.unlock();
        } finally {
            pool.shutdownNow();
        }
        EngineRuntimeException told = failure(hung::heartbeat);
        assertThat(told.getExceptionCode()).isEqualTo(ExceptionCode.E_LEASE_LAPSED);
        assertThat(told.getMessage()).startsWith("E_LEASE_LAPSED: Tree lock " + token + " of alice on [X " + workshop("A")
                + "] was broken by carol at ").endsWith(": the overnight job hung holding workshop A");
        assertThat(hung.unlock()).as("nothing left to let go").isFalse();
        assertThat(engine.lockBreaks(100)).filteredOn(b -> b.lockToken().equals(token)).singleElement()
                .satisfies(b -> assertThat(told.getMessage()).isEqualTo("E_LEASE_LAPSED: " + b.message()));
        assertThat(failure(() -> operator.breakLock(token, "again")).getMessage()).isEqualTo("E_LEASE_LAPSED: Tree lock " + token
                + " is not held: released, lapsed, broken or never issued; there is nothing to break");

        TreeLockHandle lapsed = as("dave").tryLock(TreeLockRequest.exclusive(workshop("B"))).orElseThrow();
        clock.set(lapsed.expiresAt().plusSeconds(1));
        assertThat(failure(() -> operator.breakLock(lapsed.lockToken(), "too late")).getMessage()).as("a lapsed lease is the reaper's")
                .isEqualTo("E_LEASE_LAPSED: Tree lock " + lapsed.lockToken() + " is not held by dave: released, lapsed, broken or never"
                        + " issued; there is nothing to break");
        assertThat(free(workshop("B"))).as("taken back as lapsed").isTrue();
        assertThat(failure(lapsed::heartbeat).getMessage()).as("a lapse is not a break").contains("is no longer held");
    }

    /** True once a waiter has queued at the head of {@code node}: later conflicting requests yield to it. */
    private boolean queuedOn(TreePath node) {
        Optional<TreeLockHandle> h = as("probe").tryLock(TreeLockRequest.exclusive(node.child("probe", "p")));
        h.ifPresent(TreeLockHandle::unlock);
        return h.isEmpty();
    }

    @Test
    void lockTimesOut_namingWhoBlocksIt_andLeavesNothingQueued() {
        TreeLockHandle holder = as("nightly upgrade").tryLock(TreeLockRequest.exclusive(workshop("A"))).orElseThrow();
        EngineRuntimeException e = failure(() -> as("impatient").lock(Set.of(bench("A", "1")), Duration.ofMillis(50)));
        assertThat(e.getExceptionCode()).isEqualTo(ExceptionCode.E_LOCK_TIMEOUT);
        assertThat(e.getMessage()).contains("X " + bench("A", "1")).contains("nightly upgrade").contains(holder.lockToken());
        assertThat(as("x").tryLock(TreeLockRequest.exclusive(bench("A", "1")), Duration.ofMillis(20))).isEmpty();
        holder.unlock();
        assertThat(free(bench("A", "1"))).as("the timed-out waiter left the queue").isTrue();
    }

    @Test
    void aWaitIsOneCallOfTheTreeLockPolicy_endingAtItsMaxAttemptsAsAtMaxWait() {
        // The operator's tree-lock policy paces the waits and bounds them (maxAttempts, maxTotalWait), beside
        // the caller's maxWait; what a tree lock waits out is its own (a holder, an outage), whatever retryOn says.
        RetryPolicyConfig threeAttempts = RetryPolicyConfig.builder().maxAttempts(3).waitDuration(Duration.ofMillis(1))
                .retryCodes(EnumSet.of(ExceptionCode.E_OBJECT_MODIFIED)).build();
        try (ContentEngine strict = ContentEngine.open(EngineConfig.from(config()).clock(clock).treeLocks(TreeLocksConfig.builder().lease(LEASE).build())
                .retry(RetryPoliciesConfig.builder().policy(TreeLocksConfig.DEFAULT_RETRY_POLICY, threeAttempts).build()).build())) {
            TreeLockHandle holder = as("nightly upgrade").tryLock(TreeLockRequest.exclusive(workshop("A"))).orElseThrow();
            try {
                assertThat(strict.session("patient").treeLocks().tryLock(TreeLockRequest.exclusive(bench("A", "1")), Duration.ofSeconds(5)))
                        .as("refused three times").isEmpty();
                RetryMetrics calls = strict.retryPolicies().get(TreeLocksConfig.DEFAULT_RETRY_POLICY).metrics();
                assertThat(calls.attempts()).isEqualTo(3);
                assertThat(calls.failedWithRetry()).isEqualTo(1);
            } finally {
                holder.unlock();
            }
            try (TreeLockHandle h = strict.session("patient").treeLocks().lock(Set.of(bench("A", "1")), Duration.ofSeconds(5))) {
                assertThat(h.holder()).isEqualTo("patient");
            }
            assertThat(strict.retryPolicies().get(TreeLocksConfig.DEFAULT_RETRY_POLICY).metrics().successfulWithoutRetry())
                    .as("the grant and the release, each at its first attempt").isEqualTo(2);
        }
    }

    @Test
    void aWorkshopWaiterIsNotStarvedByAStreamOfBenchLocks() throws Exception {
        int benchThreads = 4;
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger benchGrants = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(benchThreads + 1);
        try {
            List<Future<?>> streams = new ArrayList<>();
            for (int t = 0; t < benchThreads; t++) {
                TreePath mine = bench("A", "" + t);
                streams.add(pool.submit(() -> {
                    while (!stop.get()) {
                        Optional<TreeLockHandle> h = as("bench").tryLock(TreeLockRequest.exclusive(mine), Duration.ofMillis(200));
                        if (h.isPresent()) {
                            benchGrants.incrementAndGet();
                            h.get().unlock();
                        }
                    }
                    return null;
                }));
            }
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> benchGrants.get() > 20);
            Future<TreeLockHandle> workshop = pool.submit(() -> as("workshop").lock(Set.of(workshop("A")), Duration.ofSeconds(30)));
            // From the moment the waiter holds its place, only bench locks already in flight may still be granted.
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(1))
                    .until(() -> ((DefaultTreeLocks) locks).service().hasQueue(workshop("A")) || workshop.isDone());
            int queuedAt = benchGrants.get();
            TreeLockHandle h = workshop.get(30, TimeUnit.SECONDS);
            int grantsWhileQueued = benchGrants.get() - queuedAt;
            h.unlock();
            assertThat(grantsWhileQueued).as("bench grants between the workshop waiter's queueing and its grant")
                    .isLessThanOrEqualTo(2 * benchThreads);
            stop.set(true);
            for (Future<?> f : streams) {
                f.get(10, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
        }
    }

    @Test
    void multiNodeRequestsInOppositeOrders_neverDeadlock() throws Exception {
        List<TreePath> nodes = List.of(bench("A", "1"), bench("B", "1"), workshop("C"), bench("A", "2"));
        int threads = 6;
        int rounds = 30;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                List<TreePath> order = new ArrayList<>(nodes);
                if (t % 2 == 1) {
                    java.util.Collections.reverse(order);
                }
                results.add(pool.submit(() -> {
                    start.await();
                    int done = 0;
                    for (int r = 0; r < rounds; r++) {
                        // Each thread asks for the nodes in its own order, two at a time, overlapping.
                        int i = r % (order.size() - 1);
                        Set<TreePath> pair = new java.util.LinkedHashSet<>(List.of(order.get(i), order.get(i + 1)));
                        try (TreeLockHandle h = as("t").lock(pair, Duration.ofSeconds(30))) {
                            done += h.nodes().size() > 0 ? 1 : 0;
                        }
                    }
                    return done;
                }));
            }
            start.countDown();
            for (Future<Integer> f : results) {
                assertThat(f.get(60, TimeUnit.SECONDS)).isEqualTo(rounds);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void badInput_failsNamingTheValue_andHoldsNothing() {
        assertThat(failure(() -> TreePath.parse("site:O/workshop")).getMessage())
                .isEqualTo("E_BAD_VALUE: Bad value for tree path: \"site:O/workshop\" (segment 'workshop' is not type:id (e.g. site:O/workshop:A))");
        assertThat(failure(() -> TreePath.parse("site:O//bench:1")).getExceptionCode()).isEqualTo(ExceptionCode.E_BAD_VALUE);
        assertThat(failure(() -> TreePath.parse("si te:O")).getMessage()).contains("\"si te:O\"").contains("a type is 1 to 64");
        assertThat(failure(() -> TreeLockRequest.exclusive(Set.of())).getMessage()).contains("name at least one node");
        assertThat(failure(() -> TreeLockMode.parse("W")).getMessage())
                .isEqualTo("E_BAD_VALUE: Bad value for tree lock mode: \"W\" (expected S, X, shared or exclusive)");
        assertThat(failure(() -> as("o").lock(TreeLockRequest.exclusive(workshop("A")), Duration.ofSeconds(-1))).getMessage())
                .contains("maxWait");
        String s = site.last().id();
        assertThat(failure(() -> locks.parseRequest("<site id=\"" + s + "\"><workshop id=\"A\"><bench/></workshop></site>")).getMessage())
                .contains("operation document at site:" + s + "/workshop:A/bench").contains("has no id attribute");
        assertThat(failure(() -> locks.parseRequest("<site id=\"" + s + "\"><bench id=\"1\" mode=\"W\"/></site>")).getMessage())
                .contains("site:" + s + "/bench:1").contains("expected S, X, shared or exclusive");
        assertThat(failure(() -> locks.parseRequest("<site id=\"" + s + "\" mode=\"S\"><bench id=\"1\"/></site>")).getMessage())
                .contains("mode is only allowed on a leaf");
        assertThat(failure(() -> locks.parseRequest("<site id=\"" + s + "\"><bench id=\"1\">")).getMessage())
                .contains("not well-formed XML");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\",\"id\":\"" + s + "\",\"kids\":[]}")).getMessage())
                .contains("unknown key 'kids'");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\",\"id\":\"" + s + "\",\"children\":[]}")).getMessage())
                .contains("children must be a non-empty array");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\"")).getMessage()).contains("not valid JSON");
        assertThat(failure(() -> locks.parseRequest("site:O")).getMessage()).contains("neither XML");
        assertThat(failure(() -> locks.parseRequest("<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><site id=\"&e;\"/>"))
                .getMessage()).contains("not well-formed XML");
        assertThat(locks.status(site)).isEmpty();
    }

    @Test
    void operationDocuments_refuseHiddenText_duplicateKeys_trailingDocuments_andNumericIds_namingEach() {
        String s = site.last().id();
        assertThat(failure(() -> locks.parseRequest("<site id=\"" + s + "\"><bench id=\"1\"><![CDATA[bench:9]]></bench></site>"))
                .getMessage()).contains("operation document at site:" + s + "/bench:1").contains("holds text 'bench:9'; only child elements");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\",\"id\":\"" + s + "\",\"id\":\"other\"}")).getMessage())
                .contains("operation document at (document)").contains("not valid JSON: Duplicate field 'id'");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\",\"id\":\"" + s + "\"} {\"type\":\"site\",\"id\":\"x\"}"))
                .getMessage()).contains("operation document at (document)").contains("a second document after the first");
        assertThat(failure(() -> locks.parseRequest("{\"type\":\"site\",\"id\":\"" + s
                + "\",\"children\":[{\"type\":\"bench\",\"id\":7}]}")).getMessage())
                .contains("operation document at site:" + s + "/(child)").contains("id = 7: must be text in quotes");
        assertThat(locks.status(site)).isEmpty();
    }

    @Test
    void operationDocuments_xmlAndJson_lockTheirLeaves() {
        String s = site.last().id();
        TreeLockRequest xml = locks.parseRequest("""
                <site id="%s">
                  <workshop id="A"><bench id="1"/><bench id="2"/><bench id="3"/></workshop>
                  <workshop id="B"><bench id="4"/><bench id="5" mode="S"/></workshop>
                </site>""".formatted(s));
        TreeLockRequest json = locks.parseRequest("""
                {"type": "site", "id": "%s", "children": [
                  {"type": "workshop", "id": "A", "children": [{"type": "bench", "id": "1"}, {"type": "bench", "id": "2"},
                                                             {"type": "bench", "id": "3"}]},
                  {"type": "workshop", "id": "B", "children": [{"type": "bench", "id": "4"},
                                                             {"type": "bench", "id": "5", "mode": "shared"}]}]}""".formatted(s));
        assertThat(xml).isEqualTo(json);
        assertThat(xml.nodes()).containsEntry(bench("A", "1"), TreeLockMode.EXCLUSIVE)
                .containsEntry(bench("B", "5"), TreeLockMode.SHARED).hasSize(5);
        TreeLockHandle h = as("from xml").tryLock(xml).orElseThrow();
        assertThat(free(bench("A", "7"))).isTrue();
        assertThat(tryX(workshop("B"))).isEmpty();
        h.unlock();
    }

    /** The rule as written: two requests conflict if some pair of their nodes is related and not both shared. */
    static boolean conflict(TreeLockRequest a, TreeLockRequest b) {
        for (var x : a.nodes().entrySet()) {
            for (var y : b.nodes().entrySet()) {
                boolean related = x.getKey().equals(y.getKey()) || x.getKey().isAncestorOf(y.getKey())
                        || y.getKey().isAncestorOf(x.getKey());
                if (related && !(x.getValue() == TreeLockMode.SHARED && y.getValue() == TreeLockMode.SHARED)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A random request of 1 to 3 nodes of a site with 3 workshops × 3 benches × 2 operations. */
    TreeLockRequest randomRequest(java.util.Random random) {
        TreeLockRequest.Builder b = TreeLockRequest.builder();
        int n = 1 + random.nextInt(3);
        for (int i = 0; i < n; i++) {
            TreePath p = site;
            int depth = random.nextInt(4);
            if (depth >= 1) {
                p = workshop("" + random.nextInt(3));
            }
            if (depth >= 2) {
                p = p.child("bench", "" + random.nextInt(3));
            }
            if (depth >= 3) {
                p = p.child("operation", "" + random.nextInt(2));
            }
            b.node(p, random.nextInt(3) == 0 ? TreeLockMode.SHARED : TreeLockMode.EXCLUSIVE);
        }
        return b.build();
    }

    @Test
    void property_everyTryLockAnswerMatchesTheRule_givenWhatIsHeld_withLapsesAndReleases() {
        long seed = System.nanoTime();
        java.util.Random random = new java.util.Random(seed);
        java.util.Map<TreeLockHandle, TreeLockRequest> held = new java.util.LinkedHashMap<>();
        for (int step = 0; step < 300; step++) {
            int action = random.nextInt(20);
            if (action < 12 || held.isEmpty()) {
                TreeLockRequest r = randomRequest(random);
                boolean expected = held.values().stream().noneMatch(h -> conflict(h, r));
                Optional<TreeLockHandle> got = as("p" + step).tryLock(r);
                assertThat(got.isPresent()).as("seed %d step %d: %s while holding %s", seed, step, r, held.values())
                        .isEqualTo(expected);
                got.ifPresent(h -> held.put(h, r));
            } else if (action < 19) {
                TreeLockHandle h = new ArrayList<>(held.keySet()).get(random.nextInt(held.size()));
                assertThat(h.unlock()).as("seed %d step %d", seed, step).isTrue();
                held.remove(h);
            } else {
                // Every holder goes silent past its lease: all lapse together, as a crashed process's would.
                clock.advance(LEASE.plusSeconds(1));
                held.keySet().forEach(h -> assertThat(failure(h::heartbeat).getExceptionCode())
                        .isEqualTo(ExceptionCode.E_LEASE_LAPSED));
                held.keySet().forEach(TreeLockHandle::unlock); // unreaped ones are released; reaped ones say false
                held.clear();
            }
        }
        held.keySet().forEach(TreeLockHandle::unlock);
    }

    @Test
    void fuzz_racingThreads_neverHoldConflictingSetsAtOnce() throws Exception {
        int threads = 6;
        int rounds = 40;
        List<TreeLockRequest> holding = new ArrayList<>();
        List<String> violations = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger grants = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                java.util.Random random = new java.util.Random(t * 7919L + System.nanoTime());
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < rounds; i++) {
                        TreeLockRequest r = randomRequest(random);
                        try (TreeLockHandle h = as("fuzz").lock(r, Duration.ofSeconds(60))) {
                            // Registered after the grant and removed before the release: inside the true hold.
                            synchronized (holding) {
                                holding.stream().filter(o -> conflict(o, r)).forEach(o -> violations.add(r + " granted while " + o + " held"));
                                holding.add(r);
                            }
                            grants.incrementAndGet();
                            Thread.onSpinWait();
                            synchronized (holding) {
                                holding.remove(r);
                            }
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) {
                f.get(120, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        assertThat(violations).isEmpty();
        assertThat(grants.get()).isEqualTo(threads * rounds);
    }
}
