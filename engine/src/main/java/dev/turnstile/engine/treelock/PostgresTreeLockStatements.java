package dev.turnstile.engine.treelock;

import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.db.Database;
import dev.turnstile.engine.db.Jdbc;
import dev.turnstile.engine.db.Lease;
import dev.turnstile.engine.db.Notifications;

import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * PostgreSQL: a tree lock's acquire and its release, each one statement that commits itself
 * ({@link Database#alone}). A transaction of a conditional update per level, the lease and the
 * commit was about five round trips each way, and held the site's stripes while the client sent
 * the next statement: one site with 16 threads did 0.2× the plain-JDBC floor (issue 16, item 4).
 *
 * <p>The rules are {@link TreeLockStore}'s, row by row: the statement first locks the request's
 * rows in {@link IntentionStripes#marks} order ({@code ORDER BY … FOR UPDATE} locks in sorted order),
 * the order every writer of node rows keeps, so no two statements wait on each other in a cycle; a
 * row lock that waited for another writer returns the row as that writer left it. Then it decides
 * on those rows — Gray's matrix and the queue rule — and only if every row grants does it mark
 * them, give up this request's queue places and insert the lease; otherwise it writes nothing.
 */
final class PostgresTreeLockStatements extends TreeLockStatements {
    /** Statements per acquire when a node's rows are missing (new, or swept between two statements). */
    private static final int LOOKS = 3;

    private final Database database;
    /** Each statement with "%s" where the request's rows go ({@link #withRows}); the release's next "%s" is its roots' waiters. */
    private final String acquireSql;
    private final String releaseSql;
    private final Map<Integer, String> acquireByRows = new ConcurrentHashMap<>();
    /** The release's statement by its rows and its roots: a text of its own for each, planned once per connection. */
    private final Map<List<Integer>, String> releaseByShape = new ConcurrentHashMap<>();

    @Override
    boolean inOneStatement() {
        return true;
    }

    PostgresTreeLockStatements(Database database, Lease heads) {
        super(heads);
        this.database = database;
        String headFreeMineOrLapsed = heads.freeMineOrLapsed("a.lease", "a.now_at");
        StringBuilder grantable = new StringBuilder("CASE l.mode");
        StringBuilder mark = new StringBuilder();
        StringBuilder unmark = new StringBuilder();
        for (GrayMode mode : GrayMode.values()) {
            grantable.append(" WHEN '").append(mode.name()).append("' THEN ");
            for (GrayMode other : mode.incompatible()) {
                grantable.append("l.").append(other.column).append(" = 0 AND ");
            }
            grantable.append('(').append(headFreeMineOrLapsed).append(" OR l.head_ticket > a.ticket");
            if (mode.compatibleWith(GrayMode.S)) {
                grantable.append(" OR l.head_mode = 'S'");
            }
            grantable.append(')');
            mark.append(", ").append(mode.column).append(" = n.").append(mode.column)
                    .append(" + CASE WHEN w.mode = '").append(mode.name()).append("' THEN 1 ELSE 0 END");
            unmark.append(", ").append(mode.column).append(" = n.").append(mode.column)
                    .append(" - CASE WHEN w.mode = '").append(mode.name()).append("' AND n.").append(mode.column)
                    .append(" > 0 THEN 1 ELSE 0 END");
        }
        grantable.append(" END");
        this.acquireSql = """
                WITH a AS (SELECT CAST(? AS varchar) AS lease, CAST(? AS timestamptz) AS now_at, CAST(? AS varchar) AS ticket,
                    CAST(? AS varchar) AS owner_info, CAST(? AS varchar) AS lease_nodes, CAST(? AS timestamptz) AS expires_at),
                %s
                l AS MATERIALIZED (SELECT n.*, w.mode FROM ts_tree_node n JOIN w ON n.node_path = w.row_path
                    ORDER BY w.ord FOR UPDATE OF n),
                d AS (SELECT count(*) = (SELECT count(*) FROM w) AS found,
                    count(*) = (SELECT count(*) FROM w) AND COALESCE(bool_and(%s), FALSE) AS granted
                    FROM l CROSS JOIN a),
                marked AS (UPDATE ts_tree_node n SET usn = n.usn + 1%s,
                        head_mode = CASE WHEN n.head_lease = a.lease THEN NULL ELSE n.head_mode END,
                        head_ticket = CASE WHEN n.head_lease = a.lease THEN NULL ELSE n.head_ticket END,
                        head_expires = CASE WHEN n.head_lease = a.lease THEN NULL ELSE n.head_expires END,
                        head_lease = CASE WHEN n.head_lease = a.lease THEN NULL ELSE n.head_lease END
                    FROM w, a WHERE n.node_path = w.row_path AND (SELECT granted FROM d) RETURNING 1),
                leased AS (INSERT INTO ts_tree_lease (lease_id, owner_info, lease_nodes, acquired_at, expires_at, usn)
                    SELECT a.lease, a.owner_info, a.lease_nodes, a.now_at, a.expires_at, 0 FROM a WHERE (SELECT granted FROM d)
                    RETURNING 1)
                SELECT d.found, d.granted, (SELECT count(*) FROM marked) AS marked, (SELECT count(*) FROM leased) AS leased FROM d
                """.formatted("%s", grantable, mark);
        // The lease row first (a reaper deletes it first too), then the node rows in write order.
        this.releaseSql = """
                WITH a AS (SELECT CAST(? AS varchar) AS lease),
                %s
                gone AS (DELETE FROM ts_tree_lease WHERE lease_id = (SELECT lease FROM a) RETURNING 1),
                l AS MATERIALIZED (SELECT n.node_path FROM ts_tree_node n JOIN w ON n.node_path = w.row_path
                    WHERE EXISTS (SELECT 1 FROM gone) ORDER BY w.ord FOR UPDATE OF n),
                unmarked AS (UPDATE ts_tree_node n SET usn = n.usn + 1%s
                    FROM w WHERE n.node_path = w.row_path AND (SELECT count(*) FROM l) > 0 RETURNING 1)
                SELECT (SELECT count(*) FROM gone) AS released, (SELECT count(*) FROM unmarked) AS unmarked,
                    CASE WHEN EXISTS (SELECT 1 FROM gone) AND %s THEN pg_notify(?, ?) END IS NULL AS quiet
                """.formatted("%s", unmark, "%s");
    }

    /**
     * Grants the request, or throws {@link TreeLockStore.Blocked} having written nothing; null if its
     * rows kept going missing ({@link #LOOKS} statements), for the transaction that makes them.
     */
    @Override
    TreeLeaseRecord acquire(String leaseId, String owner, TreeLockRequest request, SortedMap<TreePath, GrayMode> marks,
                            String ticket, Duration lease) {
        List<IntentionStripes.Mark> rows = IntentionStripes.marks(marks, leaseId);
        String nodes = TreeLockStore.encode(request);
        for (int look = 1; look <= LOOKS; look++) {
            Instant now = database.now();
            Instant expiry = now.plus(lease);
            boolean[] found = new boolean[1];
            boolean granted = database.alone(() -> "locking " + request + " for " + owner, session ->
                    Jdbc.run(session,
                            acquireByRows.computeIfAbsent(rows.size(), n -> withRows(acquireSql, n)), s -> {
                        int i = bind(s, 1, leaseId, at(now), ticket, owner, nodes, at(expiry));
                        bindRows(s, i, rows);
                        try (ResultSet rs = s.executeQuery()) {
                            rs.next();
                            found[0] = rs.getBoolean("found");
                            boolean yes = rs.getBoolean("granted");
                            if (yes && (rs.getInt("marked") != rows.size() || rs.getInt("leased") != 1)) {
                                throw new IllegalStateException("A tree lock statement granted " + request + " but marked "
                                        + rs.getInt("marked") + " of " + rows.size() + " rows and inserted "
                                        + rs.getInt("leased") + " lease(s)");
                            }
                            return yes;
                        }
                    }));
            if (granted) {
                return new TreeLeaseRecord(leaseId, owner, nodes, now, expiry);
            }
            if (found[0]) {
                throw TreeLockStore.Blocked.INSTANCE;
            }
            createMissing(rows);
        }
        return null;
    }

    /**
     * The rows the request marks that no lock has made yet, or a sweep deleted — only those: another
     * stripe of a node may be another transaction's to make, and waiting for it held this one up —
     * each an idle row, committed by itself.
     */
    private void createMissing(List<IntentionStripes.Mark> marks) {
        String[] rows = marks.stream().map(IntentionStripes.Mark::row).toArray(String[]::new);
        database.alone(() -> "making tree node rows", session -> Jdbc.run(session, """
                INSERT INTO ts_tree_node (node_path, usn, is_count, ix_count, s_count, six_count, x_count)
                SELECT row_path, 0, 0, 0, 0, 0, 0 FROM unnest(CAST(? AS varchar[])) WITH ORDINALITY AS m(row_path, ord)
                ORDER BY ord ON CONFLICT (node_path) DO NOTHING""", s -> {
            s.setArray(1, s.getConnection().createArrayOf("varchar", rows));
            return s.executeUpdate();
        }));
    }

    /**
     * Releases the lease and its marks; false if it was already gone. Tells the waiters of other
     * processes, if one has said it has any on one of {@code topics}
     * ({@link Notifications#anotherProcessWaits}).
     */
    @Override
    boolean release(String leaseId, SortedMap<TreePath, GrayMode> marks, String channel, List<String> topics, String payload) {
        List<IntentionStripes.Mark> rows = IntentionStripes.marks(marks, leaseId);
        Object[] waiters = database.notifications().waiterParameters(topics);
        String sql = releaseByShape.computeIfAbsent(List.of(rows.size(), topics.size()), shape ->
                withRows(releaseSql.formatted("%s", Notifications.anotherProcessWaits(topics.size())), rows.size()));
        return database.alone(() -> "releasing tree lock lease " + leaseId, session -> Jdbc.run(session, sql, s -> {
            int i = bindRows(s, bind(s, 1, leaseId), rows);
            i = bind(s, i, waiters);
            bind(s, i, channel, Notifications.sendable(payload));
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return rs.getInt("released") == 1;
            }
        }));
    }

    private static int bind(PreparedStatement s, int first, Object... values) throws SQLException {
        int i = first;
        for (Object value : values) {
            s.setObject(i++, value);
        }
        return i;
    }

    /**
     * {@code sql} for a request of {@code rows} rows: a {@code VALUES} list of that many (row, mode,
     * order) triples. Not arrays: PostgreSQL planned a statement over an array parameter afresh at
     * every execution (0.3 ms, more than it ran), while one whose row count the text fixes is planned
     * once per connection and kept.
     */
    private static String withRows(String sql, int rows) {
        StringBuilder values = new StringBuilder("w(row_path, mode, ord) AS (VALUES ");
        for (int i = 1; i <= rows; i++) {
            values.append(i == 1 ? "" : ", ").append("(CAST(? AS varchar), CAST(? AS varchar), ").append(i).append(')');
        }
        return sql.formatted(values.append("),"));
    }

    /** The rows and their modes, in write order, from parameter {@code first}. */
    private static int bindRows(PreparedStatement s, int first, List<IntentionStripes.Mark> rows) throws SQLException {
        int i = first;
        for (IntentionStripes.Mark row : rows) {
            s.setString(i++, row.row());
            s.setString(i++, row.mode().name());
        }
        return i;
    }

    private static OffsetDateTime at(Instant instant) {
        return instant.atOffset(ZoneOffset.UTC);
    }
}
