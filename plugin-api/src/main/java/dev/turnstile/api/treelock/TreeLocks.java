package dev.turnstile.api.treelock;

import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.Session;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Locks on the nodes of a hierarchy (site → workshop → bench → operation), shared by every process
 * on the database. A held node blocks locks on itself, its ancestors and its descendants; nodes
 * with no such relation are independent. A request is granted whole or not at all, and requests
 * can never deadlock. Locks are leases: a holder that stops calling
 * {@link TreeLockHandle#heartbeat()} loses them after {@link TreeLocksConfig#lease()}, so a
 * crashed process never blocks a subtree for longer than that.
 *
 * <p>Get one from {@link Session#treeLocks()}: the session's user is the holder of what it locks.
 *
 * <p>A waiter keeps its place: once it has waited, later requests that would lock its nodes or
 * anything below them wait behind it, so a stream of bench locks cannot starve a workshop.
 */
public interface TreeLocks {

    /** Grants the request at once, or returns empty if anything conflicts now. Never waits. */
    Optional<TreeLockHandle> tryLock(TreeLockRequest request);

    /** Waits up to {@code maxWait} for the request; empty if it was not granted in that time. */
    Optional<TreeLockHandle> tryLock(TreeLockRequest request, Duration maxWait);

    /**
     * Waits up to {@code maxWait} for the request; fails with {@link ExceptionCode#E_LOCK_TIMEOUT},
     * naming who blocks it, if it was not granted in that time.
     */
    TreeLockHandle lock(TreeLockRequest request, Duration maxWait);

    /** Locks {@code nodes} exclusively; see {@link #lock(TreeLockRequest, Duration)}. */
    default TreeLockHandle lock(Set<TreePath> nodes, Duration maxWait) {
        return lock(TreeLockRequest.exclusive(nodes), maxWait);
    }

    /**
     * Ends another user's tree lock at once — a holder that hung while still renewing it — as a user
     * with the lock-breaking role ({@code locks.breakerRole}, {@code E_ACCESS_DENIED} without it),
     * saying why (1 to 200 characters); the nodes are free at once and waiters are woken. Recorded as
     * a {@link dev.turnstile.api.LockBreak}: the holder's next heartbeat fails with
     * {@code E_LEASE_LAPSED} naming who broke it, when and why; its unlock returns false. A lock no
     * longer held (released, lapsed, broken, or never issued): {@code E_LEASE_LAPSED}.
     */
    void breakLock(String lockToken, String reason);

    /** The locks held on {@code subtree}'s root or anywhere below it, oldest first; expired ones included, marked. */
    List<TreeLockInfo> status(TreePath subtree);

    /**
     * The leases {@code query} asks for — by holder, by node text (a site, a path), by lock token —
     * a page of them and how many there are; lapsed ones not yet taken back included (marked).
     */
    LockPage<TreeLockInfo> status(LockQuery query);

    /** Tree lock requests through this engine since it opened: granted, refused, and the time each took. */
    TreeLockStatistics statistics();

    /**
     * Reads an operation document: the tree of nodes from the root down to the nodes to lock, as
     * nested XML elements ({@code <site id="O"><workshop id="A"><bench id="1"/></workshop></site>})
     * or JSON objects ({@code {"type":"site","id":"O","children":[...]}}). Every leaf is locked,
     * exclusively unless it says {@code mode="S"}. Fails with {@link ExceptionCode#E_BAD_VALUE}
     * naming the element and the rule.
     */
    TreeLockRequest parseRequest(String document);
}
