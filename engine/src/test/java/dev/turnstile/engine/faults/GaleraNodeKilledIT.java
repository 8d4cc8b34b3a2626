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
        assertThat(contents(rejoined)).as("node %d holds what the others committed without it", KILLED)
                .isEqualTo(contents(config()));
    }

    /** Every Turnstile object's id and USN on one node, after it has applied what the cluster committed. */
    private static List<String> contents(EngineConfig node) throws Exception {
        try (Connection c = DriverManager.getConnection(node.jdbcUrl(), node.username(), node.password());
             Statement s = c.createStatement()) {
            s.execute("SET SESSION wsrep_sync_wait = 1");
            try (ResultSet rs = s.executeQuery("SELECT id, usn FROM ts_object ORDER BY id")) {
                List<String> rows = new ArrayList<>();
                while (rs.next()) {
                    rows.add(rs.getString(1) + " " + rs.getLong(2));
                }
                return rows;
            }
        }
    }
}
