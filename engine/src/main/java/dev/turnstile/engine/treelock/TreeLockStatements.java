package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.db.Lease;

import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * The tree lock's statements: a node row's mark and unmark per mode, which {@link TreeLockStore}'s
 * transactions run on every database, and those a database has of its own — none by default;
 * PostgreSQL acquires and releases in one statement each ({@link PostgresTreeLockStatements}).
 */
class TreeLockStatements {
    private final Map<GrayMode, String> markSql = new EnumMap<>(GrayMode.class);
    private final Map<GrayMode, String> unmarkSql = new EnumMap<>(GrayMode.class);

    /** {@code heads}: the lease on a node's queue head, whose holder an acquire yields to. */
    TreeLockStatements(Lease heads) {
        for (GrayMode mode : GrayMode.values()) {
            StringBuilder sql = new StringBuilder("UPDATE ts_tree_node SET usn = usn + 1, ").append(mode.column)
                    .append(" = ").append(mode.column).append(" + 1 WHERE node_path = :path");
            for (GrayMode other : mode.incompatible()) {
                sql.append(" AND ").append(other.column).append(" = 0");
            }
            // Yield to an older waiter queued on this node unless our mode is compatible with its own.
            sql.append(" AND (").append(heads.freeMineOrLapsed(":lease", ":now")).append(" OR head_ticket > :ticket");
            if (mode.compatibleWith(GrayMode.S)) {
                sql.append(" OR head_mode = 'S'");
            }
            markSql.put(mode, sql.append(')').toString());
            unmarkSql.put(mode, "UPDATE ts_tree_node SET usn = usn + 1, " + mode.column + " = " + mode.column
                    + " - 1 WHERE node_path = :path AND " + mode.column + " > 0");
        }
    }

    /** Marks a node row (:path) held in {@code mode} if no other mark or older waiter (:lease, :ticket, :now) forbids it. */
    String mark(GrayMode mode) {
        return markSql.get(mode);
    }

    /** Takes a mark in {@code mode} off a node row (:path). */
    String unmark(GrayMode mode) {
        return unmarkSql.get(mode);
    }

    /** Whether {@link #acquire} and {@link #release} are this database's way; else the store's transactions are. */
    boolean inOneStatement() {
        return false;
    }

    /**
     * The lease granted in one statement that commits itself, or null, nothing written, where the
     * statement cannot decide (the store's transaction then does).
     */
    TreeLeaseRecord acquire(String leaseId, String owner, TreeLockRequest request, SortedMap<TreePath, GrayMode> marks,
                            String ticket, Duration lease) {
        throw new UnsupportedOperationException("no tree lock statement on this database");
    }

    /** Releases the lease in one statement, telling {@code channel}'s waiters on {@code topics}; false if it was gone. */
    boolean release(String leaseId, SortedMap<TreePath, GrayMode> marks, String channel, List<String> topics, String payload) {
        throw new UnsupportedOperationException("no tree lock statement on this database");
    }
}
