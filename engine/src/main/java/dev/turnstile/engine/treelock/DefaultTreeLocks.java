package dev.turnstile.engine.treelock;

import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreeLockStatistics;
import dev.turnstile.api.treelock.TreeLocks;
import dev.turnstile.api.treelock.TreePath;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/** The tree locks as one session's user sees them: every lock is held by that user, through the engine's one {@link TreeLockService}. */
public record DefaultTreeLocks(TreeLockService service, String user, Set<String> roles) implements TreeLocks {

    @Override
    public Optional<TreeLockHandle> tryLock(TreeLockRequest request) {
        return service.tryLock(request, user);
    }

    @Override
    public Optional<TreeLockHandle> tryLock(TreeLockRequest request, Duration maxWait) {
        return service.tryLock(request, user, maxWait);
    }

    @Override
    public TreeLockHandle lock(TreeLockRequest request, Duration maxWait) {
        return service.lock(request, user, maxWait);
    }

    @Override
    public void breakLock(String lockToken, String reason) {
        service.breakLock(user, roles, lockToken, reason);
    }

    @Override
    public List<TreeLockInfo> status(TreePath subtree) {
        return service.status(subtree);
    }

    @Override
    public LockPage<TreeLockInfo> status(LockQuery query) {
        return service.status(query);
    }

    @Override
    public TreeLockStatistics statistics() {
        return service.statistics();
    }

    @Override
    public TreeLockRequest parseRequest(String document) {
        return service.parseRequest(document);
    }
}
