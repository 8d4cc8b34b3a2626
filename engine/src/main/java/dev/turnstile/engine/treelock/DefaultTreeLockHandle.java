package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;

import java.time.Instant;
import java.util.Map;
import java.util.SortedMap;

final class DefaultTreeLockHandle implements TreeLockHandle {
    private final TreeLockService locks;
    private final String leaseId;
    private final String owner;
    private final TreeLockRequest request;
    private final SortedMap<TreePath, GrayMode> marks;
    private final Instant acquiredAt;
    private volatile Instant expiresAt;
    private volatile boolean released;

    DefaultTreeLockHandle(TreeLockService locks, TreeLeaseRecord record, TreeLockRequest request,
                          SortedMap<TreePath, GrayMode> marks) {
        this.locks = locks;
        this.leaseId = record.leaseId;
        this.owner = record.owner;
        this.request = request;
        this.marks = marks;
        this.acquiredAt = record.acquiredAt;
        this.expiresAt = record.expiresAt;
    }

    @Override
    public String lockToken() {
        return leaseId;
    }

    @Override
    public String holder() {
        return owner;
    }

    @Override
    public Map<TreePath, TreeLockMode> nodes() {
        return request.nodes();
    }

    SortedMap<TreePath, GrayMode> marks() {
        return marks;
    }

    @Override
    public Instant lockedAt() {
        return acquiredAt;
    }

    @Override
    public Instant expiresAt() {
        return expiresAt;
    }

    @Override
    public synchronized Instant heartbeat() {
        Instant renewed = released ? null : locks.renew(leaseId);
        if (renewed == null) {
            throw locks.notHeld(leaseId, owner, expiresAt);
        }
        expiresAt = renewed;
        return renewed;
    }

    @Override
    public synchronized boolean unlock() {
        if (released) {
            return false;
        }
        boolean wasHeld = locks.release(this); // if it throws, the handle still holds and may try again
        released = true;
        return wasHeld;
    }

    @Override
    public String toString() {
        return "TreeLockHandle[" + leaseId + ", " + owner + ", " + request + ", expires " + expiresAt + "]";
    }
}
