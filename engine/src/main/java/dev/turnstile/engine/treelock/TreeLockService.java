package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.retry.RetryExhaustedException;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLockStatistics;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Notifications;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.db.WakeUps;
import dev.turnstile.engine.retry.DefaultRetryPolicies;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Tree locks on the database, shared by every process on it. An attempt writes the request's
 * marks in one transaction ({@link TreeLockStore}); a refused attempt reaps lapsed leases, queues
 * the waiter at the head of its nodes (so later conflicting requests yield to it), and waits until
 * a release wakes it — in this process directly, from other processes by a database notification
 * where there is one (PostgreSQL) — or its retry policy's next wait has passed: the attempts of a
 * request run in one call of the tree-lock retry policy, which also ends at the request's maxWait.
 */
public final class TreeLockService {
    private final LongAdder granted = new LongAdder();
    private final LongAdder refused = new LongAdder();
    private final LongAdder grantedNanos = new LongAdder();
    private final LongAdder refusedNanos = new LongAdder();
    private static final Logger log = LoggerFactory.getLogger(TreeLockService.class);
    public static final List<Class<?>> ENTITIES = List.of(TreeNodeRecord.class, TreeLeaseRecord.class);

    private final Database database;
    private final TreeLockStore store;
    private final Duration lease;
    private final DefaultRetryPolicies policies;
    private final String policy;
    /** This process's waiters, by the nodes they wait for ({@link NodeKeys}). */
    private final WakeUps waiters;
    private final AtomicLong lastTicket = new AtomicLong();
    private final LockBreaks breaks;

    public TreeLockService(Database database, DefaultRetryPolicies policies, LockBreaks breaks, EngineConfig config) {
        this.database = database;
        this.breaks = breaks;
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

    public LockPage<TreeLockInfo> status(LockQuery query) {
        return store.status(query);
    }

    /** Ends another user's live lease as an operator; see {@link dev.turnstile.api.treelock.TreeLocks#breakLock}. */
    public void breakLock(String user, Set<String> roles, String lockToken, String reason) {
        breaks.check(user, roles, "tree lock " + lockToken, reason);
        if (lockToken == null || lockToken.isBlank()) {
            throw EngineRuntimeException.badArgument("tree lock token", lockToken, "the lock's token, as status() lists it");
        }
        wake(store.breakLease(lockToken, user, reason, breaks).nodes().keySet());
    }

    /** What the holder of the lease {@code leaseId} that is gone is told: who broke it, when and why, or that it lapsed. */
    EngineRuntimeException notHeld(String leaseId, String owner, Instant expiresAt) {
        return LockBreaks.notHeld(breaks.find(leaseId), owner, () -> EngineRuntimeException.leaseLapsed("Tree lock", leaseId, owner, expiresAt));
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
        Acquisition acquisition = new Acquisition(request, owner, !maxWait.isZero());
        try {
            return Optional.of(policies.call(policy, maxWait, TreeLockService::waitedOut, acquisition::attempt));
        } catch (RetryExhaustedException e) {
            if (e.getCause() instanceof EngineRuntimeException cause && isOutage(cause)) {
                throw cause; // the database still out of reach when the wait ended
            }
            return Optional.empty();
        } finally {
            acquisition.end();
        }
    }

    /** What a tree lock waits out, within its wait: a conflicting holder, or a failure that may pass. */
    private static boolean waitedOut(Throwable failure) {
        return failure instanceof TreeLockStore.Blocked || mayPass(failure);
    }

    /** An outage, or a race that wrote nothing (a first insert of a node row, a deadlock victim): trying again may do. */
    private static boolean mayPass(Throwable failure) {
        return failure instanceof EngineRuntimeException e && (isOutage(e) || Sql.isRace(e));
    }

    /**
     * One request on its way to a grant, its attempts run in a call of the tree-lock retry policy:
     * a refused attempt reaps lapsed leases, queues the waiter at the head of its nodes, and arms its
     * wake-up ticket, so that the policy's wait ends at a release that may unblock it.
     */
    private final class Acquisition {
        private final TreeLockRequest request;
        private final String owner;
        private final boolean waits;
        private final String leaseId = IntentionStripes.newLeaseId();
        private final SortedMap<TreePath, GrayMode> marks;
        private final String ticket;
        private boolean queued;
        private long requeueAt;
        private boolean granted;
        /** An acquire's answer was cut by an outage: it may have committed. */
        private boolean inDoubt;
        private boolean wasInDoubt;

        Acquisition(TreeLockRequest request, String owner, boolean waits) {
            this.request = request;
            this.owner = owner;
            this.waits = waits;
            this.marks = GrayMode.marksOf(request);
            this.ticket = ticket(database.now(), leaseId);
        }

        /** One attempt: the grant, or {@link TreeLockStore.Blocked} (its wait armed to end at a release), an outage or a race. */
        TreeLockHandle attempt() {
            // Registered before the attempt reads, so a release between a refusal and the wait still wakes it.
            WakeUps.Ticket waiter = waits ? waiters.register(NodeKeys.waitingFor(request.nodes().keySet())) : null;
            try {
                TreeLockHandle handle = grantOrBlocked(waiter);
                if (waiter != null) {
                    waiter.closeUsed(); // a wake-up it holds was for a lock it now has
                    waiter = null;
                }
                return handle;
            } catch (TreeLockStore.Blocked blocked) {
                if (waiter != null && waiter.armFor(blocked)) {
                    waiter = null; // the policy's wait uses it, and closes it
                }
                throw blocked;
            } finally {
                if (waiter != null) {
                    waiter.close();
                }
            }
        }

        private TreeLockHandle grantOrBlocked(WakeUps.Ticket waiter) {
            while (true) {
                try {
                    return granted(acquired());
                } catch (TreeLockStore.Blocked blocked) {
                    // An acquire whose answer an outage cut may have committed after all, and a look for
                    // its lease may have missed it: then it is this request that blocks itself, until its
                    // own lease lapses. Look again, by its id, while blocked.
                    TreeLeaseRecord mine = wasInDoubt ? store.lease(leaseId) : null;
                    if (mine != null) {
                        return granted(mine);
                    }
                    if (waiter != null) {
                        database.notifications().startListening(); // releases elsewhere wake it from now on
                        if (waiter.announce()) {
                            continue; // a release in another process before it said it waits sent no note: look again
                        }
                        queueIfDue();
                    }
                    List<TreeLockRequest> reaped = store.reapExpired();
                    if (reaped.isEmpty()) {
                        throw blocked;
                    }
                    reaped.forEach(r -> wake(r.nodes().keySet()));
                }
            }
        }

        /** The lease of a grant, or Blocked; after an outage cut an answer, first the lease that may have been granted. */
        private TreeLeaseRecord acquired() {
            try {
                TreeLeaseRecord record = inDoubt ? store.lease(leaseId) : null;
                inDoubt = false;
                return record != null ? record : store.acquire(leaseId, owner, request, marks, ticket, queued, lease);
            } catch (EngineRuntimeException e) {
                if (isOutage(e)) {
                    inDoubt = true; // the commit may have landed before the answer was lost
                    wasInDoubt = true;
                }
                throw e;
            }
        }

        private TreeLockHandle granted(TreeLeaseRecord record) {
            granted = true;
            return new DefaultTreeLockHandle(TreeLockService.this, record, request, marks);
        }

        /** First, so later arrivals yield as soon as possible; the place is renewed every half lease while it waits. */
        private void queueIfDue() {
            if (queued && System.nanoTime() - requeueAt <= 0) {
                return;
            }
            // Ours from here: each row's place commits by itself, an outage may cut the answer to one that
            // did, and a place not given up with the grant (or on leaving) would hold every later request
            // back until it lapsed (AbstractAnswerLostTest). A claim a race stopped goes again next time.
            queued = true;
            requeueAt = System.nanoTime() + (queue(leaseId, request, ticket) ? lease.toNanos() / 2 : 0);
        }

        /** A request that waited and was not granted leaves its place in the queue. */
        void end() {
            if (queued && !granted) {
                leaveQueue(leaseId, request);
            }
        }
    }

    /**
     * Queues the waiter at the head of its nodes; the place is itself a lease, renewed while
     * waiting, so a dead waiter loses it. False if a race on a row stopped it this time (the places
     * it took before stay).
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
     * victim (it wrote nothing) or is out of reach, for at most one lease (by the tree-lock policy's
     * waits): giving up there would leave the nodes held until the lease lapses while the holder
     * believes them free.
     */
    boolean release(DefaultTreeLockHandle handle) {
        try {
            return policies.call(policy, lease, TreeLockService::mayPass, () -> {
                boolean released = store.release(handle.lockToken(), handle.marks(), handle.nodes().keySet());
                wake(handle.nodes().keySet());
                return released;
            });
        } catch (RetryExhaustedException e) {
            throw e.getCause() instanceof EngineRuntimeException cause ? cause : e;
        }
    }

    private static boolean isOutage(EngineRuntimeException e) {
        return e.getExceptionCode() == ExceptionCode.E_DATABASE_UNAVAILABLE;
    }
}
