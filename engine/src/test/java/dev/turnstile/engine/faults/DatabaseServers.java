package dev.turnstile.engine.faults;

import dev.turnstile.api.EngineConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Restarts the local PostgreSQL and MariaDB servers for real, the way {@code .ci/run} starts them
 * (it runs as root): every session is cut, in-flight transactions are lost, and the server comes
 * back on the same port.
 */
final class DatabaseServers {
    private DatabaseServers() {
    }

    /** {@code pg_ctlcluster VERSION main restart} (a fast shutdown: sessions are terminated). */
    static void restartPostgres(EngineConfig config) throws Exception {
        String version;
        try (Stream<Path> versions = Files.list(Path.of("/etc/postgresql"))) {
            version = versions.map(p -> p.getFileName().toString()).sorted().findFirst().orElseThrow();
        }
        run(List.of("pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "restart"));
        awaitConnection(config);
    }

    /** {@code mariadb-admin shutdown}, then {@code mariadbd} started again as {@code .ci/run} starts it. */
    static void restartMariaDb(EngineConfig config) throws Exception {
        run(List.of("mariadb-admin", "-uroot", "shutdown"));
        // By its pid file: the Galera test nodes are mariadbd processes too, and matched by the
        // executable alone start-stop-daemon took one of them for this server and started nothing.
        run(List.of("start-stop-daemon", "--start", "--oknodo", "--background", "--pidfile", "/run/mysqld/mysqld.pid",
                "--exec", "/usr/sbin/mariadbd", "--", "--user=mysql"));
        awaitConnection(config);
    }

    /** SIGKILLs node {@code node} of the Galera cluster ({@code .ci/galera kill}); returns once the others form a cluster of two. */
    static void killGaleraNode(int node, EngineConfig survivor) throws Exception {
        run(List.of(GALERA.toString(), "kill", Integer.toString(node)));
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (galeraStatus(survivor, "wsrep_cluster_size") != 2) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("the cluster did not go on with two nodes");
            }
            Thread.sleep(50);
        }
    }

    /** Starts node {@code node} again ({@code .ci/galera start-node}): returns once it has rejoined and is Synced. */
    static void startGaleraNode(int node) throws Exception {
        run(List.of(GALERA.toString(), "start-node", Integer.toString(node)));
    }

    /** A numeric wsrep status variable of the node {@code config} points at. */
    static long galeraStatus(EngineConfig config, String variable) throws SQLException {
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
             var s = c.createStatement(); var rs = s.executeQuery("SHOW STATUS LIKE '" + variable + "'")) {
            return rs.next() ? Long.parseLong(rs.getString(2)) : -1;
        }
    }

    /**
     * {@code .ci/pg-failover ARGS}: {@code start sync|async} a new primary and standby, {@code pause}
     * the primary's WAL sender, {@code fail} the primary (SIGKILL) and promote the standby, {@code stop}.
     */
    static void pgFailover(String... args) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of(PG_FAILOVER.toString()));
        command.addAll(List.of(args));
        run(command);
    }

    /** Returns once a commit on {@code primary} waits for its synchronous standby (wait event SyncRep). */
    static void awaitCommitWaitingForStandby(EngineConfig primary) throws SQLException {
        awaitPositiveCount(primary, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
                "a commit waiting for the paused standby");
    }

    /**
     * Returns once the standby of {@code primary} has replayed everything the primary had written
     * when this was called: every commit before the call is on the standby.
     */
    static void awaitStandbyCaughtUp(EngineConfig primary) throws SQLException {
        String written;
        try (Connection c = DriverManager.getConnection(primary.jdbcUrl(), primary.username(), primary.password());
             var s = c.createStatement(); var rs = s.executeQuery("SELECT pg_current_wal_lsn()")) {
            rs.next();
            written = rs.getString(1);
        }
        awaitPositiveCount(primary, "SELECT count(*) FROM pg_stat_replication WHERE replay_lsn >= '" + written + "'",
                "the standby replaying up to " + written);
    }

    /** Returns once the count query {@code sql} on {@code server} is above zero (within a minute). */
    private static void awaitPositiveCount(EngineConfig server, String sql, String what) throws SQLException {
        try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
             var s = c.createStatement()) {
            org.awaitility.Awaitility.await(what).atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(20)).until(() -> {
                try (var rs = s.executeQuery(sql)) {
                    rs.next();
                    return rs.getInt(1) > 0;
                }
            });
        }
    }

    /** "state sync_state" of every standby {@code primary} streams to. */
    static List<String> replicationStates(EngineConfig primary) throws SQLException {
        try (Connection c = DriverManager.getConnection(primary.jdbcUrl(), primary.username(), primary.password());
             var s = c.createStatement(); var rs = s.executeQuery("SELECT state || ' ' || sync_state FROM pg_stat_replication")) {
            List<String> states = new java.util.ArrayList<>();
            while (rs.next()) {
                states.add(rs.getString(1));
            }
            return states;
        }
    }

    /** The scripts that run the test cluster and the failover pair, from the engine module's directory (where tests run). */
    private static final Path GALERA = Path.of("..", ".ci", "galera").toAbsolutePath().normalize();
    private static final Path PG_FAILOVER = Path.of("..", ".ci", "pg-failover").toAbsolutePath().normalize();

    private static void run(List<String> command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new AssertionError(String.join(" ", command) + " failed: " + output);
        }
    }

    /** Returns once the server accepts a connection again (within two minutes). */
    private static void awaitConnection(EngineConfig config) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (true) {
            try (Connection ignored = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password())) {
                return;
            } catch (SQLException e) {
                if (System.nanoTime() - deadline > 0) {
                    throw new AssertionError("the database did not come back: " + e.getMessage(), e);
                }
                Thread.sleep(50);
            }
        }
    }
}
