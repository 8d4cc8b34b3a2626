package dev.turnstile.engine.treelock;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.treelock.TreeLockMode;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.engine.EngineInternals;
import dev.turnstile.engine.TestDatabases;
import dev.turnstile.engine.db.Database;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The tree lock's statements on PostgreSQL ({@link PostgresTreeLockStatements}: an acquire and a release
 * in one statement each) and the transactions every other database runs ({@link TreeLockStore}'s
 * conditional updates) play the same script — Gray's conflicts between intentions and S/X, a waiter
 * at the head of a node holding back a younger request, its own grant clearing its place, shared
 * with shared, a lock on a site's every stripe, a release twice — each under a site of its own, and
 * must answer alike and leave the same node rows (marks, heads) and lease rows after every step.
 */
class PostgresTwoPathTreeLockTest {
    private static final Duration LEASE = Duration.ofMinutes(5);

    /** A step: {@code verb} is acquire, queue or release; {@code nodes} as "X workshop:A/bench:1" under the site. */
    record Step(String verb, String lease, String ticket, String expected, String... nodes) {
    }

    private static final List<Step> SCRIPT = List.of(
            new Step("acquire", "L1", "t01", "granted", "X workshop:A/bench:1"),
            new Step("acquire", "L2", "t02", "blocked", "S workshop:A"),
            new Step("acquire", "L3", "t03", "granted", "X workshop:B"),
            new Step("queue", "L2", "t02", "queued", "S workshop:A"),
            new Step("acquire", "L4", "t04", "blocked", "X workshop:A/bench:2"),
            new Step("release", "L1", null, "released"),
            new Step("acquire", "L4", "t04", "blocked", "X workshop:A/bench:2"),
            new Step("acquire", "L2", "t02", "granted", "S workshop:A"),
            new Step("acquire", "L5", "t05", "granted", "S workshop:A/bench:3"),
            new Step("acquire", "L6", "t06", "blocked", "X"),
            new Step("release", "L2", null, "released"),
            new Step("release", "L5", null, "released"),
            new Step("acquire", "L4", "t04", "granted", "X workshop:A/bench:2"),
            new Step("release", "L3", null, "released"),
            new Step("release", "L4", null, "released"),
            new Step("acquire", "L6", "t06", "granted", "X"),
            new Step("release", "L6", null, "released"),
            new Step("release", "L6", null, "gone"));

    @Test
    void oneStatement_andTheTransactions_answerAlike_andLeaveTheSameRows_stepByStep() throws Exception {
        EngineConfig config = TestDatabases.postgres();
        try (ContentEngine engine = ContentEngine.open(config)) {
            Database database = EngineInternals.database(engine);
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> fast = play(new TreeLockStore(database, true), config, "site:fast" + run, run);
            List<String> generic = play(new TreeLockStore(database, false), config, "site:generic" + run, run);

            assertThat(fast).isEqualTo(generic);
            assertThat(fast.stream().filter(s -> s.startsWith("answer ")).toList()).as("the script's answers")
                    .containsExactlyElementsOf(SCRIPT.stream()
                            .map(s -> "answer " + s.verb() + " " + s.lease() + ": " + s.expected()).toList());
        }
    }

    /** Plays the script under {@code site}; after each step its answer, then the rows it left (the site's name and the run taken out). */
    private static List<String> play(TreeLockStore store, EngineConfig config, String site, String run) throws Exception {
        List<String> seen = new ArrayList<>();
        List<String> leases = new ArrayList<>();
        Map<String, TreeLockRequest> requests = new HashMap<>();
        for (Step step : SCRIPT) {
            // The same lease ids on both paths (a lease's stripe is its id's first two hex digits), apart by site.
            String leaseId = "0" + step.lease().charAt(1) + "-" + run + "-" + site;
            leases.add(leaseId);
            TreeLockRequest request = step.nodes().length == 0 ? null : request(site, step.nodes());
            String answer = switch (step.verb()) {
                case "acquire" -> {
                    try {
                        store.acquire(leaseId, "owner " + step.lease(), request, GrayMode.marksOf(request), step.ticket(), true, LEASE);
                        requests.put(step.lease(), request);
                        yield "granted";
                    } catch (TreeLockStore.Blocked blocked) {
                        yield "blocked";
                    }
                }
                case "queue" -> {
                    store.claimHeads(leaseId, request, step.ticket(), LEASE);
                    yield "queued";
                }
                case "release" -> {
                    // As a handle does: the marks of the request granted, whether or not the lease is still there.
                    TreeLockRequest granted = requests.get(step.lease());
                    yield store.release(leaseId, GrayMode.marksOf(granted), granted.nodes().keySet()) ? "released" : "gone";
                }
                default -> throw new IllegalArgumentException(step.verb());
            };
            seen.add("answer " + step.verb() + " " + step.lease() + ": " + answer);
            seen.addAll(rows(config, site, run, leases));
        }
        return seen;
    }

    private static TreeLockRequest request(String site, String... nodes) {
        TreeLockRequest.Builder b = TreeLockRequest.builder();
        for (String node : nodes) {
            String[] modeAndPath = node.split(" ", 2);
            b.node(TreePath.parse(modeAndPath.length == 1 ? site : site + "/" + modeAndPath[1]), TreeLockMode.parse(modeAndPath[0]));
        }
        return b.build();
    }

    /** The site's node rows with a mark or a head, and the script's lease rows, with the site and the run written as "SITE" and "RUN". */
    private static List<String> rows(EngineConfig config, String site, String run, List<String> leases) throws Exception {
        List<String> rows = new ArrayList<>();
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password())) {
            try (PreparedStatement q = c.prepareStatement("SELECT node_path, is_count, ix_count, s_count, six_count, x_count, head_mode,"
                    + " head_ticket, head_lease, head_expires IS NOT NULL FROM ts_tree_node WHERE node_path LIKE ?"
                    + " AND (is_count + ix_count + s_count + six_count + x_count > 0 OR head_lease IS NOT NULL) ORDER BY node_path")) {
                q.setString(1, site + "%");
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        StringBuilder row = new StringBuilder("node");
                        for (int i = 1; i <= 10; i++) {
                            row.append(' ').append(rs.getString(i));
                        }
                        rows.add(row.toString().replace(site, "SITE").replace(run, "RUN"));
                    }
                }
            }
            try (PreparedStatement q = c.prepareStatement("SELECT lease_id, owner_info, lease_nodes FROM ts_tree_lease"
                    + " WHERE lease_id = ANY (?) ORDER BY lease_id")) {
                q.setArray(1, c.createArrayOf("varchar", leases.toArray()));
                try (ResultSet rs = q.executeQuery()) {
                    while (rs.next()) {
                        rows.add(("lease " + rs.getString(1) + " " + rs.getString(2) + " " + rs.getString(3).replace('\n', ';'))
                                .replace(site, "SITE").replace(run, "RUN"));
                    }
                }
            }
        }
        return rows;
    }
}
