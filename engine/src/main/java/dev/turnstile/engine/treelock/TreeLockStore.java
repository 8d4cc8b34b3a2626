package dev.turnstile.engine.treelock;

import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.LockBreak;
import dev.turnstile.api.LockPage;
import dev.turnstile.api.LockQuery;
import dev.turnstile.api.treelock.TreeLockInfo;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.breaks.LockBreaks;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Expiry;
import dev.turnstile.engine.db.Lease;
import dev.turnstile.engine.db.LockListing;
import dev.turnstile.engine.db.Sql;
import dev.turnstile.engine.db.Sweep;
import org.hibernate.StatelessSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;

/**
 * The tree lock tables. Every mark is one conditional UPDATE of a row of the node (its own, or one
 * of its {@link IntentionStripes}) whose WHERE clause is Gray's compatibility check (and the queue
 * rule), so the database settles each race: the first writer wins, an incompatible second one
 * updates nothing. A request's rows are written in one transaction in path order, so two requests
 * never wait on each other's rows in a cycle.
 */
final class TreeLockStore {
    private static final Logger log = LoggerFactory.getLogger(TreeLockStore.class);
    private static final int REAP_BATCH = 50;
    /** A granted request: a row per lease, live until its expiry. */
    private static final Lease LEASES = new Lease("ts_tree_lease", "lease_id", null, "expires_at");
    /** The place of the oldest waiter at the head of a node, itself a lease renewed while it waits. */
    private static final Lease HEADS = new Lease("ts_tree_node", "node_path", "head_lease", "head_expires");

    private final Database database;
    /** Each mode's mark and unmark; on PostgreSQL also an acquire and a release in one statement each. */
    private final TreeLockStatements statements;

    TreeLockStore(Database database) {
        this(database, Sql.isPostgres(database.productName()));
    }

    /** With {@code oneStatement} false, PostgreSQL too takes the transactions every database takes (the two-path tests). */
    TreeLockStore(Database database, boolean oneStatement) {
        this.database = database;
        this.statements = oneStatement ? new PostgresTreeLockStatements(database, HEADS) : new TreeLockStatements(HEADS);
    }

    /** An attempt was refused: some row's compatibility check or queue rule failed; the transaction rolls back. */
    static final class Blocked extends RuntimeException {
        static final Blocked INSTANCE = new Blocked();

        private Blocked() {
            super("tree lock request blocked", null, false, false);
        }
    }

    /** Grants the whole request in one transaction, or throws {@link Blocked} having written nothing. */
    TreeLeaseRecord acquire(String leaseId, String owner, TreeLockRequest request, SortedMap<TreePath, GrayMode> marks,
                            String ticket, boolean queued, Duration lease) {
        if (statements.inOneStatement()) {
            TreeLeaseRecord granted = statements.acquire(leaseId, owner, request, marks, ticket, lease);
            if (granted != null) {
                return granted;
            }
        }
        boolean[] ranBefore = {false};
        return database.inTransaction(() -> "locking " + request + " for " + owner, session -> {
            // Run again after an abort at commit: if that commit landed after all, its lease is here, and
            // marking again would count this request twice (or block it behind itself).
            TreeLeaseRecord committed = ranBefore[0] ? session.get(TreeLeaseRecord.class, leaseId) : null;
            if (committed != null) {
                return committed;
            }
            ranBefore[0] = true;
            Instant now = database.now();
            for (IntentionStripes.Mark mark : IntentionStripes.marks(marks, leaseId)) {
                if (!written(session, mark.row(), () -> mark(session, mark.row(), mark.mode(), leaseId, ticket, now))) {
                    throw Blocked.INSTANCE;
                }
            }
            if (queued) {
                clearHeads(session, leaseId, request);
            }
            TreeLeaseRecord record = new TreeLeaseRecord(leaseId, owner, encode(request), now, now.plus(lease));
            session.insert(record);
            return record;
        });
    }

    private boolean mark(StatelessSession session, String row, GrayMode mode, String leaseId, String ticket, Instant now) {
        return session.createNativeMutationQuery(statements.mark(mode)).setParameter("path", row).setParameter("lease", leaseId)
                .setParameter("ticket", ticket).setParameter("now", now).executeUpdate() == 1;
    }

    /**
     * Runs a conditional update of {@code row}; if it updated nothing, makes the row (idle) if it
     * does not exist and, either way, runs it again: it may have found no row that another
     * transaction then committed. Taking "the row exists now" for "refused" left a waiter without its
     * place on that stripe (bench locks on it went past the waiter), and refused a lock that nothing
     * held back. Only this row is made, at its turn in the write order: making every stripe of its
     * node at once locked rows out of that order and deadlocked with a waiter claiming them in order
     * (its queueing aborted 129 times in 10 s on H2).
     */
    private static boolean written(StatelessSession session, String row, BooleanSupplier write) {
        if (write.getAsBoolean()) {
            return true;
        }
        if (session.get(TreeNodeRecord.class, row) == null) {
            Sql.insertIfAbsent(session, "INSERT INTO ts_tree_node (node_path, usn, is_count, ix_count, s_count, six_count, x_count)"
                    + " VALUES (?, 0, 0, 0, 0, 0, 0)", row);
        }
        return write.getAsBoolean();
    }

    /** The lease, if it exists: after an outage, whether an acquire whose answer was lost did commit. */
    TreeLeaseRecord lease(String leaseId) {
        return database.inTransaction(() -> "reading tree lock lease " + leaseId, session -> session.get(TreeLeaseRecord.class, leaseId));
    }

    /** Releases a lease; false if it was already gone (released, lapsed and reaped, or broken). */
    boolean release(String leaseId, SortedMap<TreePath, GrayMode> marks, java.util.Collection<TreePath> nodes) {
        if (statements.inOneStatement()) {
            boolean released = statements.release(leaseId, marks, CHANNEL, topics(nodes), paths(nodes));
            if (released && IDLE_NODES.due()) {
                sweepIdleNodes(); // its own transaction: a sweep reads the rows it deletes FOR UPDATE
            }
            return released;
        }
        return database.inTransaction(() -> "releasing tree lock lease " + leaseId, session -> {
            // No notes here: only PostgreSQL has them, and there the one statement above releases.
            boolean released = LEASES.release(leaseId, null).delete(session);
            if (released) {
                unmark(session, marks, leaseId);
                IDLE_NODES.nowAndThen(session, Map.of());
            }
            return released;
        });
    }

    /**
     * The topics a waiter on {@code nodes} waits on, and a release of them tells: one per root,
     * named by a hash of it (an id may be long and hold spaces; two roots that share a hash only
     * share their notes).
     */
    static List<String> topics(java.util.Collection<TreePath> nodes) {
        return nodes.stream().map(TreeLockStore::topic).distinct().sorted().toList();
    }

    /** The topic of {@code node}'s root ({@link #topics}). */
    static String topic(TreePath node) {
        return CHANNEL + " " + Integer.toHexString(node.segments().get(0).toString().hashCode());
    }

    /** The channel on which a release (or a waiter leaving its queue) tells the other processes' waiters. */
    static final String CHANNEL = "turnstile_tree_lock";

    /** Tells the waiters of every engine on the database, when this transaction commits, that {@code nodes} changed. */
    private void announce(StatelessSession session, java.util.Collection<TreePath> nodes) {
        database.notifications().publish(session, CHANNEL, paths(nodes));
    }

    /** A note's payload: the nodes, one per line. */
    private static String paths(java.util.Collection<TreePath> nodes) {
        return nodes.stream().map(TreePath::toString).collect(Collectors.joining("\n"));
    }

    /**
     * Node rows nobody holds or queues on: one release in 256 deletes up to 100 of them, so the
     * table holds about the nodes in use rather than every node ever locked. A lock makes a deleted
     * row again as it marks it (as the first lock of a node does).
     */
    private static final Sweep IDLE_NODES = new Sweep("ts_tree_node", "node_path", "is_count = 0 AND ix_count = 0"
            + " AND s_count = 0 AND six_count = 0 AND x_count = 0 AND head_lease IS NULL", 256, 100);

    /** One sweep of idle node rows at once (for tests: releases sweep by chance). */
    int sweepIdleNodes() {
        return database.inTransaction(() -> "deleting idle tree nodes", session -> IDLE_NODES.run(session, Map.of()));
    }

    /** Extends a lease that has not lapsed by {@code lease} from now; the new expiry, or null if it had lapsed. */
    Instant heartbeat(String leaseId, Duration lease) {
        return database.inTransaction(() -> "renewing tree lock lease " + leaseId, session -> {
            Instant now = database.now();
            Instant expiry = now.plus(lease);
            return LEASES.renew(leaseId, null, expiry, now).update(session) ? expiry : null;
        });
    }

    /**
     * Takes back the marks of leases that lapsed (their holders stopped renewing them: crashed,
     * hung or cut off). Each is claimed by a conditional delete, so two reapers never both take
     * one lease's marks back, and a heartbeat that arrives first keeps it.
     */
    List<TreeLockRequest> reapExpired() {
        List<Object[]> lapsed = database.inTransaction(() -> "finding lapsed tree locks", session ->
                session.createNativeQuery("SELECT lease_id, owner_info, lease_nodes, expires_at FROM ts_tree_lease"
                                + " WHERE " + Expiry.in("expires_at").lapsedAt(":now") + " ORDER BY expires_at", Object[].class)
                        .setParameter("now", database.now()).setMaxResults(REAP_BATCH).getResultList());
        List<TreeLockRequest> reaped = new ArrayList<>();
        for (Object[] row : lapsed) {
            String leaseId = (String) row[0];
            TreeLockRequest request = decode((String) row[2]);
            boolean taken = database.inTransaction(() -> "reaping tree lock lease " + leaseId, session -> {
                // Lapsed by the database clock now, in this statement: a heartbeat that came first keeps it.
                boolean expired = LEASES.expire(leaseId, database.now()).delete(session);
                if (expired) {
                    unmark(session, GrayMode.marksOf(request), leaseId);
                }
                return expired;
            });
            if (taken) {
                log.info("Took back lapsed tree lock lease {} of {} on {} (expired at {})", leaseId, row[1], request, row[3]);
                reaped.add(request);
            }
        }
        return reaped;
    }

    /**
     * Ends the live lease {@code leaseId} for an operator ({@code by}) and records the break, in one
     * transaction; the request it held. {@code E_LEASE_LAPSED} if it is not live: released, lapsed
     * (the reaper takes its marks back), broken, or never issued.
     */
    TreeLockRequest breakLease(String leaseId, String by, String reason, LockBreaks breaks) {
        return database.inTransaction(() -> by + " breaking tree lock " + leaseId, session -> {
            Instant now = database.now();
            TreeLeaseRecord row = session.get(TreeLeaseRecord.class, leaseId);
            if (row == null || !LEASES.breakLive(leaseId, now).delete(session)) {
                throw EngineRuntimeException.of(ExceptionCode.E_LEASE_LAPSED, "Tree lock " + leaseId + " is not held"
                        + (row == null ? "" : " by " + row.owner) + ": released, lapsed, broken or never issued; there is nothing to break");
            }
            TreeLockRequest request = decode(row.nodes);
            unmark(session, GrayMode.marksOf(request), leaseId);
            announce(session, request.nodes().keySet());
            breaks.record(session, new LockBreak(LockBreak.Kind.TREE, leaseId, row.owner, request.toString(), by, now, reason));
            return request;
        });
    }

    /**
     * Queues a waiter at the head of each node it asked for, for {@code lease}, unless an older live
     * waiter is there: each row's place in a transaction of its own, which counts as soon as it
     * commits. One transaction for a workshop's sixteen stripes held the places it had taken while it
     * waited for the next row, and on H2 was aborted again and again when bench locks changed the rows
     * it had yet to reach: the waiter starved behind the locks it was queueing to stop. The stripes go
     * before the node's own row, so a node that shows its waiter ({@link #hasQueue}) has it on every row.
     */
    void claimHeads(String leaseId, TreeLockRequest request, String ticket, Duration lease) {
        for (Map.Entry<TreePath, TreeLockMode> node : inWriteOrder(request).entrySet()) {
            List<String> rows = IntentionStripes.rows(node.getKey());
            for (int i = rows.size() - 1; i >= 0; i--) {
                String row = rows.get(i);
                database.inTransaction(() -> "queueing for " + request + " on " + row, session -> {
                    Instant now = database.now();
                    return written(session, row, () -> claimHead(session, row, node.getValue(), leaseId, ticket, now.plus(lease), now));
                });
            }
        }
    }

    /** Takes the head of a node's row: free, ours, lapsed, or held by a younger waiter (a later ticket). */
    private static boolean claimHead(StatelessSession session, String row, TreeLockMode mode, String leaseId, String ticket,
                                     Instant headExpiry, Instant now) {
        return HEADS.take(row, leaseId, headExpiry, now, "head_ticket > ?", ticket).set("head_mode", mode.letter())
                .set("head_ticket", ticket).update(session);
    }

    /** For tests: whether a live waiter is queued at the head of {@code node}. */
    boolean hasQueue(TreePath node) {
        Instant now = database.now();
        return database.inTransaction(() -> "reading the queue of " + node, session -> {
            TreeNodeRecord row = session.get(TreeNodeRecord.class, node.toString());
            return row != null && row.headLease != null && Expiry.isHeld(row.headExpires, now);
        });
    }

    void leaveQueue(String leaseId, TreeLockRequest request) {
        database.inTransaction(() -> "leaving the queue for " + request, session -> {
            clearHeads(session, leaseId, request);
            announce(session, request.nodes().keySet());
            return null;
        });
    }

    /** Leases holding nodes at or under {@code subtree}, oldest first. */
    List<TreeLockInfo> status(TreePath subtree) {
        return info(leases("%" + Sql.likeLiteral(subtree.toString()) + "%").stream()
                .filter(held -> held.request.nodes().keySet().stream().anyMatch(p -> p.equals(subtree) || subtree.isAncestorOf(p)))
                .toList());
    }

    /** Tree locks as a console lists them: by holder, nodes, lease id and grant. */
    private static final LockListing LISTING = new LockListing("ts_tree_lease", "owner_info", "lease_nodes", null, "lease_id", "acquired_at");

    LockPage<TreeLockInfo> status(LockQuery query) {
        return database.inTransaction(() -> "listing tree locks", session -> {
            Instant now = database.now();
            LockPage<TreeLeaseRecord> rows = LISTING.page(session, query, TreeLeaseRecord.class, LockListing.Held.ALL, t -> t);
            return new LockPage<>(info(rows.items().stream().map(r -> new Held(r, decode(r.nodes))).toList(), now), rows.total(),
                    rows.offset());
        });
    }

    private List<TreeLockInfo> info(List<Held> leases) {
        return info(leases, database.now());
    }

    private static List<TreeLockInfo> info(List<Held> leases, Instant now) {
        return leases.stream().map(held -> new TreeLockInfo(held.row.leaseId, held.row.owner, held.request.nodes(),
                held.row.acquiredAt, held.row.expiresAt, Expiry.isLapsed(held.row.expiresAt, now))).toList();
    }

    /** The leases whose nodes conflict with {@code request}, as text for a refusal message. */
    String blockersOf(TreeLockRequest request) {
        String blockers = leases("%").stream()
                .filter(held -> request.conflictsWith(held.request))
                .map(held -> held.row.owner + " (lease " + held.row.leaseId + ", " + held.request + ", since "
                        + held.row.acquiredAt + ")")
                .collect(Collectors.joining("; "));
        return blockers.isEmpty() ? "waiters queued ahead of it" : blockers;
    }

    private record Held(TreeLeaseRecord row, TreeLockRequest request) {
    }

    /** Leases whose node text matches a LIKE pattern, oldest first. */
    private List<Held> leases(String pattern) {
        List<TreeLeaseRecord> rows = database.inTransaction(() -> "reading tree locks", session ->
                session.createSelectionQuery("from TreeLeaseRecord l where l.nodes like :pattern escape '" + Sql.LIKE_ESCAPE + "'",
                                TreeLeaseRecord.class)
                        .setParameter("pattern", pattern).getResultList());
        return rows.stream().sorted(Comparator.comparing((TreeLeaseRecord r) -> r.acquiredAt).thenComparing(r -> r.leaseId))
                .map(r -> new Held(r, decode(r.nodes)))
                .toList();
    }

    private void unmark(StatelessSession session, SortedMap<TreePath, GrayMode> marks, String leaseId) {
        for (IntentionStripes.Mark mark : IntentionStripes.marks(marks, leaseId)) {
            session.createNativeMutationQuery(statements.unmark(mark.mode())).setParameter("path", mark.row()).executeUpdate();
        }
    }

    private static void clearHeads(StatelessSession session, String leaseId, TreeLockRequest request) {
        for (TreePath node : inWriteOrder(request).keySet()) {
            for (String row : IntentionStripes.rows(node)) {
                HEADS.release(row, leaseId).set("head_mode", null, String.class).set("head_ticket", null, String.class)
                        .update(session);
            }
        }
    }

    private static SortedMap<TreePath, TreeLockMode> inWriteOrder(TreeLockRequest request) {
        SortedMap<TreePath, TreeLockMode> sorted = new TreeMap<>(GrayMode.WRITE_ORDER);
        sorted.putAll(request.nodes());
        return sorted;
    }

    static String encode(TreeLockRequest request) {
        return request.nodes().entrySet().stream().map(e -> e.getValue().letter() + " " + e.getKey()).collect(Collectors.joining("\n"));
    }

    static TreeLockRequest decode(String text) {
        TreeLockRequest.Builder b = TreeLockRequest.builder();
        for (String line : text.split("\n")) {
            b.node(TreePath.parse(line.substring(2)), TreeLockMode.parse(line.substring(0, 1)));
        }
        return b.build();
    }
}
