package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.engine.TestDatabases;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The restart test on the 3-node Galera cluster, every process on a node of its own, and the
 * "restart" is node 3 SIGKILLed mid-run: the processes on nodes 1 and 2 go on, the one on node 3
 * goes on through the next host of its failover URL, nothing is issued twice; then node 3 starts
 * again, rejoins by incremental state transfer and holds what the others committed without it.
 */
class GaleraNodeKilledIT extends AbstractDatabaseRestartTest {
    private static final int KILLED = 3;

    @Override
    protected EngineConfig config() {
        return TestDatabases.galera(1);
    }

    @Override
    protected EngineConfig config(int process) {
        return TestDatabases.galeraFailoverForProcess(process);
    }

    @Override
    protected void restartDatabase() throws Exception {
        DatabaseServers.killGaleraNode(KILLED, config());
    }

    @Override
    protected void afterTheRun() throws Exception {
        DatabaseServers.startGaleraNode(KILLED);
        EngineConfig rejoined = TestDatabases.galera(KILLED);
        assertThat(DatabaseServers.galeraStatus(rejoined, "wsrep_cluster_size")).as("cluster size after the rejoin").isEqualTo(3);
        // The register too: a commit node 3 answered but the cluster never got would stay on node 3
        // alone (IST brings only what came after), and its numbers would be issued again by the others.
        for (String query : List.of(OBJECTS, REGISTER)) {
            assertThat(rows(rejoined, query)).as("node %d holds what the others committed without it: %s", KILLED, query)
                    .containsExactlyElementsOf(rows(config(), query));
        }
    }

    private static final String OBJECTS = "SELECT id, usn FROM ts_object ORDER BY id";
    private static final String REGISTER = "SELECT dispenser, period, number, issued_by FROM ts_dispenser_issue"
            + " ORDER BY dispenser, period, number";

    /** The rows of {@code query} on one node, after it has applied what the cluster committed, a line each. */
    private static List<String> rows(EngineConfig node, String query) throws Exception {
        try (Connection c = DriverManager.getConnection(node.jdbcUrl(), node.username(), node.password());
             Statement s = c.createStatement()) {
            s.execute("SET SESSION wsrep_sync_wait = 7");
            try (ResultSet rs = s.executeQuery(query)) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    StringBuilder row = new StringBuilder();
                    for (int i = 1; i <= rs.getMetaData().getColumnCount(); i++) {
                        row.append(i == 1 ? "" : " ").append(rs.getString(i));
                    }
                    rows.add(row.toString());
                }
                return rows;
            }
        }
    }
}
