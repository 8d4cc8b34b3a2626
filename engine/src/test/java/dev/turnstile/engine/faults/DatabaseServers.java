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
        run(List.of("start-stop-daemon", "--start", "--oknodo", "--background", "--exec", "/usr/sbin/mariadbd", "--",
                "--user=mysql"));
        awaitConnection(config);
    }

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
