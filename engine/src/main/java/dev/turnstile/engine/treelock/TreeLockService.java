package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLockStatistics;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Notifications;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.retry.DefaultRetryPolicies;
import io.github.resilience4j.core.IntervalFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tree locks on the database, shared by every process on it. An attempt writes the request's
 * marks in one transaction ({@link TreeLockStore}); a refused attempt reaps lapsed leases, queues
 * the waiter at the head of its nodes (so later conflicting requests yield to it), and waits until
 * a release wakes it — in this process directly, from other processes by a database notification
 * where there is one (PostgreSQL) — or its retry policy's next wait has passed.
 */
public final class TreeLockService {
    private final LongAdder granted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder grantedNanos = new LongAdder();
    private final LongAdder refusedNanos = new LongAdder();
    private static final Logger log = LoggerFactory.getLogger(TreeLockService.class);
    /** Deadlock victims among releases go again; a handful of attempts is plenty (each victim wrote nothing). */
    private static final int RELEASE_ATTEMPTS = 10;
    public static final List<Class<?>> ENTITIES = List.of(TreeNodeRecord.class, TreeLeaseRecord.class);

    private final Database database;
    private final TreeLockStore store;
    private final Duration lease;
    private final DefaultRetryPolicies policies;
    private final String policy;
    /** This process's waiters, by the nodes they wait for ({@link NodeKeys}). */
    private final WakeUps waiters;
    private final AtomicLong lastTicket = new AtomicLong();

    public TreeLockService(Database database, DefaultRetryPolicies policies, EngineConfig config) {
        this.database = database;
        this.store = new TreeLockStore(database);
        this.lease = config.treeLocks().lease();
        this.policies = policies;
        this.policy = config.treeLocks().retryPolicy();
        this.waiters = new WakeUps(database.waiting(), NodeKeys::topic);
        // Releases in other processes wake this one's waiters at once where the database can say so.
        database.notifications().listen(TreeLockStore.CHANNEL, note -> {
            if (note.equals(Notifications.EVERYTHING)) {
                waiters.wakeAll(); // notes may have been missed: every waiter looks again
            } else {
                wake(note.lines().map(TreePath::parse).toList());
            }
        });
    }

    /** Wakes this process's waiters that a change of {@code nodes} may unblock. */
    private void wake(Collection<TreePath> nodes) {
        NodeKeys.changed(nodes).forEach(waiters::wake);
    }

    /** The waits of the tree-lock policy in force now: a reload changes them for the next wait. */
    private IntervalFunction intervals() {
        return policies.intervals(policy);
    }

    public Optional<TreeLockHandle> tryLock(TreeLockRequest request, String owner) {
        return acquire(request, owner, Duration.ZERO);
    }

    public Optional<TreeLockHandle> tryLock(TreeLockRequest request, String owner, Duration maxWait) {
        return acquire(request, owner, maxWait);
    }

    public TreeLockHandle lock(TreeLockRequest request, String owner, Duration maxWait) {
        return acquire(request, owner, maxWait).orElseThrow(() ->
                EngineRuntimeException.lockTimeout(request, maxWait, store.blockersOf(request)));
    }

    public List<TreeLockInfo> status(TreePath subtree) {
        if (subtree == null) {
            throw EngineRuntimeException.badArgument("tree path", null, "a subtree is required");
        }
        return store.status(subtree);
    }

    public List<TreeLockInfo> status() {
        return store.statusAll();
    }

    public TreeLockRequest parseRequest(String document) {
        return OperationDocuments.parse(document);
    }

    private Optional<TreeLockHandle> acquire(TreeLockRequest request, String owner, Duration maxWait) {
        long start = System.nanoTime();
        Optional<TreeLockHandle> got = attempt(request, owner, maxWait);
        (got.isPresent() ? granted : refused).increment();
        (got.isPresent() ? grantedNanos : refusedNanos).add(System.nanoTime() - start);
        return got;
    }

    /** Requests granted and refused (timed out, or busy for a tryLock) since the engine opened, and the time each took. */
    public TreeLockStatistics statistics() {
        return new TreeLockStatistics(granted.sum(), Duration.ofNanos(grantedNanos.sum()), refused.sum(),
                Duration.ofNanos(refusedNanos.sum()));
    }

    private Optional<TreeLockHandle> attempt(TreeLockRequest request, String owner, Duration maxWait) {
        database.host().refuse("A tree lock");
        if (request == null) {
            throw EngineRuntimeException.badArgument("tree lock request", null, "a request is required");
        }
        if (maxWait == null || maxWait.isNegative()) {
            throw EngineRuntimeException.badArgument("maxWait", maxWait, "zero or a positive duration");
        }
        String leaseId = IntentionStripes.newLeaseId();
        SortedMap<TreePath, GrayMode> marks = GrayMode.marksOf(request);
        String ticket = ticket(database.now(), leaseId);
        long deadline = System.nanoTime() + maxWait.toNanos();
        // Registered before the first attempt, so a release between a refusal and the wait still wakes us.
        WakeUps.Ticket waiter = maxWait.isZero() ? null : waiters.register(NodeKeys.waitingFor(request.nodes().keySet()));
        boolean queued = false;
        long requeueAt = 0;
        boolean granted = false;
        try {
            boolean inDoubt = false;
            boolean wasInDoubt = false;
            for (int attempt = 1; ; attempt++) {
                long wait = -1; // this refusal's wait, drawn once (the policy's waits may be jittered)
                try {
                    TreeLeaseRecord record = inDoubt ? store.lease(leaseId) : null;
                    inDoubt = false;
                    if (record == null) {
                        record = store.acquire(leaseId, owner, request, marks, ticket, queued, lease);
                    }
                    granted = true;
                    return Optional.of(new DefaultTreeLockHandle(this, record, request, marks));
                } catch (TreeLockStore.Blocked blocked) {
                    if (waiter != null) {
                        database.notifications().startListening(); // releases elsewhere wake us from now on
                    }
                    try {
                        // An acquire whose answer an outage cut may have committed after all, and a
                        // look for its lease may have missed it: then it is this request that blocks
                        // itself, until its own lease lapses. Look again, by its id, while blocked.
                        TreeLeaseRecord mine = wasInDoubt ? store.lease(leaseId) : null;
                        if (mine != null) {
                            granted = true;
                            return Optional.of(new DefaultTreeLockHandle(this, mine, request, marks));
                        }
                        wait = nextWait(attempt, deadline);
                        if (waiter != null && waiter.announceFor(wait)) {
                            continue; // a release in another process between the refusal and now sent no note: look again
                        }
                        if (waiter != null && (!queued || System.nanoTime() - requeueAt > 0)) {
                            requeueAt = System.nanoTime() + lease.toNanos() / 2;
                            boolean placed = queued;
                            // Ours from here unless refused: an outage may cut the answer to a claim that
                            // committed, and a place not given up with the grant (or on leaving) would hold
                            // every later request back until it lapsed (AbstractAnswerLostTest).
                            queued = true;
                            if (!queue(leaseId, request, ticket)) { // first, so later arrivals yield as soon as possible
                                queued = placed;
                            }
                        }
                        List<TreeLockRequest> reaped = store.reapExpired();
                        if (!reaped.isEmpty()) {
                            reaped.forEach(r -> wake(r.nodes().keySet()));
                            continue;
                        }
                    } catch (EngineRuntimeException e) {
                        waitOutOutage(e, deadline);
                    }
                } catch (EngineRuntimeException e) {
                    if (isOutage(e)) {
                        // The commit may have landed before the answer was lost: look for our lease first.
                        waitOutOutage(e, deadline);
                        inDoubt = true;
                        wasInDoubt = true;
                    } else if (!Sql.isRace(e)) {
                        throw e;
                    }
                    // Two first inserts of one node row, or a deadlock victim: nothing was written; go again.
                }
                long remaining = deadline - System.nanoTime();
                if (remaining <= 0) {
                    return Optional.empty();
                }
                waiter.awaitWakeUp(wait >= 0 ? wait : nextWait(attempt, deadline));
                if (Thread.interrupted()) {
                    throw EngineRuntimeException.interrupted("waiting for tree lock " + request, new InterruptedException());
                }
            }
        } finally {
            if (waiter != null) {
                waiter.closeUsed();
            }
            if (queued && !granted) {
                leaveQueue(leaseId, request);
            }
            if (waiter != null) {
                waiter.withdraw(); // takes back a word said for a long wait, where no waiter here waits on its roots
            }
        }
    }

    /** How long a waiter refused at {@code attempt} waits before it looks again, at most until {@code deadline}. */
    private long nextWait(int attempt, long deadline) {
        return Math.max(0, Math.min(deadline - System.nanoTime(), Duration.ofMillis(intervals().apply(Math.min(attempt, 30))).toNanos()));
    }

    /**
     * Queues the waiter at the head of its nodes; the place is itself a lease, renewed while
     * waiting, so a dead waiter loses it. False if a race on a new node row stopped it this time.
     */
    private boolean queue(String leaseId, TreeLockRequest request, String ticket) {
        try {
            store.claimHeads(leaseId, request, ticket, lease);
            return true;
        } catch (EngineRuntimeException e) {
            if (!Sql.isRace(e)) {
                throw e;
            }
            return false;
        }
    }

    /** Best effort: a place left behind only holds others back until it expires (one lease). */
    private void leaveQueue(String leaseId, TreeLockRequest request) {
        try {
            store.leaveQueue(leaseId, request);
        } catch (EngineRuntimeException e) {
            log.warn("Could not leave the queue for {} (it lapses by itself within {}): {}", request, lease, e.getMessage());
        }
        wake(request.nodes().keySet());
    }

    /**
     * Arrival order for the queue: the engine clock's microseconds (same width for 300 years),
     * strictly increasing within this process even if the clock stands still, then the lease id
     * to break ties between processes.
     */
    private String ticket(Instant now, String leaseId) {
        long micros = now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
        return String.format("%016d-%s", lastTicket.accumulateAndGet(micros, (last, t) -> Math.max(last + 1, t)), leaseId);
    }

    /** For tests: one sweep of idle node rows (releases sweep by chance). */
    int sweepIdleNodes() {
        return store.sweepIdleNodes();
    }

    /** For tests: whether a waiter is queued at the head of {@code node}. */
    boolean hasQueue(TreePath node) {
        return store.hasQueue(node);
    }

    /** The new expiry, or null if the lease had lapsed. */
    Instant renew(String leaseId) {
        return store.heartbeat(leaseId, lease);
    }

    /**
     * Releases the lease, going again when the database chose this transaction as a deadlock
     * victim (it wrote nothing) or is out of reach (for at most one lease): giving up there would
     * leave the nodes held until the lease lapses while the holder believes them free.
     */
    boolean release(DefaultTreeLockHandle handle) {
        long givingUpAt = System.nanoTime() + lease.toNanos();
        int races = 1;
        for (int attempt = 1; ; attempt++) {
            try {
                boolean released = store.release(handle.lockToken(), handle.marks(), handle.nodes().keySet());
                wake(handle.nodes().keySet());
                return released;
            } catch (EngineRuntimeException e) {
                if (isOutage(e) && System.nanoTime() - givingUpAt < 0) {
                    // Until the lease would lapse by itself anyway: others wait for this release.
                    pause(intervals().apply(Math.min(attempt, 30)));
                    continue;
                }
                if (races++ == RELEASE_ATTEMPTS || !Sql.isRace(e)) {
                    throw e;
                }
            }
        }
    }

    /**
     * The database out of reach while waiting for a lock: wait on like a blocked waiter, until
     * {@code deadline}; anything else, or an outage at the deadline, goes to the caller.
     */
    private static void waitOutOutage(EngineRuntimeException e, long deadline) {
        if (!isOutage(e) || System.nanoTime() - deadline >= 0) {
            throw e;
        }
    }

    private static boolean isOutage(EngineRuntimeException e) {
        return e.getExceptionCode() == ExceptionCode.E_DATABASE_UNAVAILABLE;
    }

    private static void pause(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw EngineRuntimeException.interrupted("waiting for the database to release a tree lock", e);
        }
    }
}
