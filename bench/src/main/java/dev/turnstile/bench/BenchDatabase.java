package dev.turnstile.bench;

import dev.turnstile.api.EngineConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;

/** Which database a benchmark runs on; the same one serves the engine and the JDBC baselines. */
final class BenchDatabase {
    @Option(names = "--db", defaultValue = "h2", description = "h2 (file), postgres, mariadb (local test servers) or galera"
            + " (the 3-node cluster of .ci/galera: this process on node 1, child processes one per node); default ${DEFAULT-VALUE}")
    String db;

    @Option(names = "--url", description = "JDBC URL overriding --db")
    String url;

    @Option(names = "--user", description = "database user overriding --db")
    String user;

    @Option(names = "--password", description = "database password overriding --db")
    String password;

    String url() {
        if (url != null) {
            return url;
        }
        return switch (db) {
            case "postgres" -> "jdbc:postgresql://127.0.0.1:5432/test";
            case "mariadb" -> "jdbc:mariadb://127.0.0.1:3306/test";
            case "galera" -> galeraNode(1);
            case "h2" -> "jdbc:h2:file:" + Path.of("turnstile-data", "bench").toAbsolutePath()
                    + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000";
            default -> throw new IllegalArgumentException("--db must be h2, postgres, mariadb or galera, not " + db);
        };
    }

    /** The URL child process {@code process} works on: on Galera nodes 1, 2, 3 in turn; else {@link #url()}. */
    String url(int process) {
        return url == null && db.equals("galera") ? galeraNode(process % 3 + 1) : url();
    }

    private static String galeraNode(int node) {
        return "jdbc:mariadb://127.0.0.1:" + (3306 + node) + "/test";
    }

    String user() {
        return user != null ? user : switch (db) {
            case "postgres" -> "postgres";
            case "mariadb", "galera" -> "root";
            default -> "sa";
        };
    }

    String password() {
        return password != null ? password : "";
    }

    EngineConfig engineConfig(int poolSize) {
        return EngineConfig.builder().jdbcUrl(url()).username(user()).password(password()).maxPoolSize(poolSize).build();
    }

    /** A raw connection in manual-commit, READ COMMITTED mode, as the engine's pool hands out. */
    Connection connect() throws SQLException {
        Connection c = DriverManager.getConnection(url(), user(), password());
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }
}
