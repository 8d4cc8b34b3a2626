package dev.turnstile.engine.db;

import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.engine.TestDatabases;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a failover URL the driver moves a connection whose node went away to the next node, inside
 * the pool's connection, on a new session: what the pool ran when it opened the connection is not
 * set there. The engine's reads must still wait for the cluster on that session.
 */
@Tag("galera")
class GaleraFailoverTest {
    /** A user of this test's own, so that killing its sessions touches no other test's. */
    private static final String USER = "ts_failover";

    @Test
    void aConnectionTheDriverMovedToTheNextNode_stillReadsWaitingForTheCluster() throws Exception {
        EngineConfig node2 = TestDatabases.galera(2);
        String database = TestDatabases.databaseName(node2);
        admin(node2, "CREATE USER IF NOT EXISTS '" + USER + "'@'127.0.0.1'", "GRANT ALL ON " + database + ".* TO '" + USER + "'@'127.0.0.1'");
        EngineConfig failover = EngineConfig.from(node2)
                .jdbcUrl("jdbc:mariadb:sequential://" + hostAndPort(node2) + "," + hostAndPort(TestDatabases.galera(3)) + "/" + database)
                .username(USER).password("").maxPoolSize(1).build();
        try (Database db = new Database(failover, List.of())) {
            assertThat(session(db)).as("node and wsrep_sync_wait of the engine's connection").isEqualTo("node2 7");

            admin(node2, "KILL USER " + USER); // as a node that died does to its sessions

            assertThat(afterTheDriverMovedIt(db)).as("node and wsrep_sync_wait once the driver moved the connection")
                    .isEqualTo("node3 7");
        }
    }

    /**
     * The session's node and setting, read through the engine. The first use after the kill may
     * fail (the driver reconnected but does not run a statement again that it cannot tell is safe
     * to repeat, and says so): the next runs on the moved connection.
     */
    private static String afterTheDriverMovedIt(Database db) {
        for (int attempt = 1; ; attempt++) {
            try {
                return session(db);
            } catch (EngineRuntimeException e) {
                if (attempt == 3) {
                    throw e;
                }
            }
        }
    }

    private static String session(Database db) {
        return db.inTransaction(() -> "reading the session", s -> s.createNativeQuery(
                "SELECT CONCAT(@@wsrep_node_name, ' ', @@SESSION.wsrep_sync_wait)", String.class).getSingleResult());
    }

    private static String hostAndPort(EngineConfig node) {
        String url = node.jdbcUrl();
        return url.substring("jdbc:mariadb://".length(), url.lastIndexOf('/'));
    }

    private static void admin(EngineConfig node, String... statements) throws SQLException {
        try (Connection c = DriverManager.getConnection(node.jdbcUrl(), node.username(), node.password());
             Statement s = c.createStatement()) {
            for (String sql : statements) {
                s.execute(sql);
            }
        }
    }
}
