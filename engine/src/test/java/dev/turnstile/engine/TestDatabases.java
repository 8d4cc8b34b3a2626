package dev.turnstile.engine;

import dev.turnstile.api.EngineConfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;

/**
 * The three databases every contract suite runs on. PostgreSQL and MariaDB are the local servers
 * that {@code .ci/run} starts; override with TURNSTILE_PG_URL / TURNSTILE_MARIADB_URL (and _USER,
 * _PASSWORD) to point elsewhere.
 *
 * <p>Test JVMs run side by side (Maven's forks), so each works in a database of its own on every
 * server: {@code test} alone, {@code test_fork<N>} in fork N (the system property
 * {@code tests.fork}), made at first use. A suite that counts what waits in its database,
 * or prunes a whole feed, then sees only its own fork's work.
 */
public final class TestDatabases {
    private TestDatabases() {
    }

    /**
     * For a failure's message: what the H2 file server of {@code config}'s shared file logged (a
     * server started twice during a run shows there: issue 16's lost update); empty for any other database.
     */
    public static String serverLog(EngineConfig config) {
        String url = config.jdbcUrl();
        if (!url.startsWith("jdbc:h2:file:") || !url.contains(";AUTO_SERVER=TRUE")) {
            return "";
        }
        Path log = Path.of(url.substring("jdbc:h2:file:".length(), url.indexOf(';')) + ".server.log");
        try {
            return "; " + log + ":\n" + Files.readString(log);
        } catch (IOException e) {
            return "; no " + log + ": " + e;
        }
    }

    /**
     * An H2 file database under target/, in AUTO_SERVER mode so child processes can share it; its
     * server writes each commit before answering it ({@code WRITE_DELAY=0}), as every shared file's.
     */
    public static EngineConfig h2(String name) {
        Path file = Path.of("target", "h2", name).toAbsolutePath();
        return EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + file + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000")
                .build();
    }

    public static EngineConfig postgres() {
        return forkDatabase(EngineConfig.builder()
                .jdbcUrl(env("TURNSTILE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test"))
                .username(env("TURNSTILE_PG_USER", "postgres"))
                .password(env("TURNSTILE_PG_PASSWORD", ""))
                .build());
    }

    public static EngineConfig mariadb() {
        return forkDatabase(EngineConfig.builder()
                .jdbcUrl(env("TURNSTILE_MARIADB_URL", "jdbc:mariadb://127.0.0.1:3306/test"))
                .username(env("TURNSTILE_MARIADB_USER", "root"))
                .password(env("TURNSTILE_MARIADB_PASSWORD", ""))
                .build());
    }

    private static final java.util.Set<String> FORK_DATABASES_MADE = new java.util.HashSet<>();

    /** {@code server}'s database for this JVM: the one its URL names, or that name with this fork's number, made if missing. */
    private static synchronized EngineConfig forkDatabase(EngineConfig server) {
        String fork = System.getProperty("tests.fork", "");
        if (fork.isBlank()) {
            return server;
        }
        String name = databaseName(server) + "_fork" + fork;
        EngineConfig own = onDatabase(server, name);
        if (FORK_DATABASES_MADE.add(own.jdbcUrl())) {
            try (Connection c = DriverManager.getConnection(server.jdbcUrl(), server.username(), server.password());
                 Statement s = c.createStatement()) {
                if (!server.jdbcUrl().startsWith("jdbc:postgresql:")) {
                    s.execute("CREATE DATABASE IF NOT EXISTS " + name);
                } else if (!s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + name + "'").next()) {
                    s.execute("CREATE DATABASE " + name);
                }
            } catch (SQLException e) {
                FORK_DATABASES_MADE.remove(own.jdbcUrl());
                throw new IllegalStateException("cannot make this fork's database " + name + " on " + server.jdbcUrl(), e);
            }
        }
        return own;
    }

    /** The database {@code config}'s URL names: its last part. */
    public static String databaseName(EngineConfig config) {
        return config.jdbcUrl().substring(config.jdbcUrl().lastIndexOf('/') + 1);
    }

    /** {@code config} on the database {@code name} of the same server. */
    private static EngineConfig onDatabase(EngineConfig config, String name) {
        return EngineConfig.from(config).jdbcUrl(config.jdbcUrl().substring(0, config.jdbcUrl().lastIndexOf('/') + 1) + name).build();
    }

    /**
     * Node {@code node} (1–3) of the MariaDB Galera cluster that {@code .ci/galera} runs on ports
     * 3307–3309; override with TURNSTILE_GALERA_HOST. Several writer nodes allowed: suites open
     * engines on two nodes on purpose (causal reads, edit-lock races) in a database their fork
     * shares; {@code GaleraWriterNodesTest} tests the refusal, on a database of its own.
     */
    public static EngineConfig galera(int node) {
        if (node < 1 || node > GALERA_NODES) {
            throw new IllegalArgumentException("Galera node " + node + ": the cluster has nodes 1.." + GALERA_NODES);
        }
        return forkDatabase(EngineConfig.builder()
                .jdbcUrl("jdbc:mariadb://" + env("TURNSTILE_GALERA_HOST", "127.0.0.1") + ":" + (3306 + node) + "/test")
                .username("root")
                .password("")
                .severalGaleraWriters(true)
                .build());
    }

    public static final int GALERA_NODES = 3;

    /**
     * The cluster as a single writer uses it: every process with the same failover URL (MariaDB
     * Connector/J's {@code sequential}), nodes 1, 2, 3, so all of them write through node 1 and,
     * when it dies, all through node 2. Writes to one row from several nodes can be lost by Galera
     * itself (README, "A MariaDB Galera cluster").
     */
    public static EngineConfig galeraSingleWriter() {
        StringBuilder hosts = new StringBuilder();
        for (int node = 1; node <= GALERA_NODES; node++) {
            String url = galera(node).jdbcUrl();
            hosts.append(node == 1 ? "" : ",").append(url, "jdbc:mariadb://".length(), url.lastIndexOf('/'));
        }
        return EngineConfig.from(galera(1)).jdbcUrl("jdbc:mariadb:sequential://" + hosts + "/" + databaseName(galera(1))).build();
    }

    /**
     * The PostgreSQL primary and standby that {@code .ci/pg-failover} runs on ports 5433 and 5434,
     * as a host application points at such a pair: a multi-host URL that connects to whichever of
     * the two is the primary now.
     */
    public static EngineConfig postgresFailover() {
        return EngineConfig.from(postgres())
                .jdbcUrl("jdbc:postgresql://127.0.0.1:" + PG_PRIMARY_PORT + ",127.0.0.1:" + PG_STANDBY_PORT + "/test?targetServerType=primary")
                .build();
    }

    /** The first primary of {@code .ci/pg-failover} alone, to watch it while it is the primary. */
    public static EngineConfig postgresFailoverFirstPrimary() {
        return EngineConfig.from(postgres()).jdbcUrl("jdbc:postgresql://127.0.0.1:" + PG_PRIMARY_PORT + "/test").build();
    }

    private static final int PG_PRIMARY_PORT = 5433;
    private static final int PG_STANDBY_PORT = 5434;

    /** A new, empty database on the server {@code base} points at (PostgreSQL or MariaDB), for first-open tests. */
    public static EngineConfig newDatabase(EngineConfig base, String name) throws SQLException {
        execute(base, "CREATE DATABASE " + name);
        return onDatabase(base, name);
    }

    /**
     * A database of its own, named {@code purpose} and a random suffix, on the server {@code base}
     * points at (a new file for H2): for a suite whose operations act on a whole database — a
     * prune counts every client — so that another suite's data on the shared one cannot sway it.
     * Drop it with {@link #dropOwnDatabase}.
     */
    public static EngineConfig ownDatabase(EngineConfig base, String purpose) throws SQLException {
        String name = purpose + "_" + java.util.UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return base.jdbcUrl().startsWith("jdbc:h2:") ? h2(name) : newDatabase(base, name);
    }

    /** Drops a database {@link #ownDatabase} created on {@code base}'s server (H2's file stays under target/). */
    public static void dropOwnDatabase(EngineConfig base, EngineConfig own) throws SQLException {
        if (!base.jdbcUrl().startsWith("jdbc:h2:")) {
            dropDatabase(base, databaseName(own));
        }
    }

    /** {@code database}'s database (its URL's last part) on the server, or cluster node, {@code server} points at. */
    public static EngineConfig sameDatabaseOn(EngineConfig server, EngineConfig database) {
        return EngineConfig.from(database).jdbcUrl(onDatabase(server, databaseName(database)).jdbcUrl()).build();
    }

    public static void dropDatabase(EngineConfig base, String name) throws SQLException {
        execute(base, "DROP DATABASE IF EXISTS " + name + (base.jdbcUrl().startsWith("jdbc:postgresql:") ? " WITH (FORCE)" : ""));
    }

    private static void execute(EngineConfig base, String sql) throws SQLException {
        try (Connection c = DriverManager.getConnection(base.jdbcUrl(), base.username(), base.password());
             Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }

    /** An Int64 property of every committed object of {@code cls}, in ascending order, read with plain JDBC (around the engine). */
    public static java.util.List<Long> int64Values(EngineConfig config, String cls, String property) throws Exception {
        tools.jackson.databind.ObjectMapper json = new tools.jackson.databind.ObjectMapper();
        java.util.List<Long> values = new java.util.ArrayList<>();
        try (Connection c = DriverManager.getConnection(config.jdbcUrl(), config.username(), config.password());
             java.sql.PreparedStatement s = c.prepareStatement("SELECT prop_values FROM ts_object WHERE class_name = ?")) {
            s.setString(1, cls);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    values.add(json.readTree(rs.getString(1)).get(property).asLong());
                }
            }
        }
        values.sort(null);
        return values;
    }

    /** How many transactions of this database (not of the server's others) wait for a row lock now. */
    public static int lockWaiters(Connection c) throws Exception {
        String product = c.getMetaData().getDatabaseProductName().toLowerCase(Locale.ROOT);
        String sql = product.contains("postgres")
                ? "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
                : product.contains("maria") || product.contains("mysql")
                ? "SELECT count(*) FROM information_schema.INNODB_TRX t JOIN information_schema.PROCESSLIST p"
                        + " ON p.ID = t.trx_mysql_thread_id WHERE t.trx_state = 'LOCK WAIT' AND p.DB = DATABASE()"
                : "SELECT count(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL";
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /**
     * The notes {@code listening} (LISTENing on {@code channel}) has had, up to a marker sent on it
     * now: notes arrive in commit order, so a statement committed before the marker sent its note
     * before it.
     */
    public static java.util.List<String> notesUntilMarker(EngineConfig db, Connection listening, String channel)
            throws Exception {
        String marker = "marker " + java.util.UUID.randomUUID();
        try (Connection c = DriverManager.getConnection(db.jdbcUrl(), db.username(), db.password());
             java.sql.PreparedStatement s = c.prepareStatement("SELECT pg_notify(?, ?)")) {
            s.setString(1, channel);
            s.setString(2, marker);
            s.execute();
        }
        java.util.List<String> notes = new java.util.ArrayList<>();
        long deadline = System.nanoTime() + java.time.Duration.ofMinutes(1).toNanos();
        while (System.nanoTime() - deadline < 0) {
            org.postgresql.PGNotification[] arrived = listening.unwrap(org.postgresql.PGConnection.class).getNotifications(1000);
            for (org.postgresql.PGNotification n : arrived == null ? new org.postgresql.PGNotification[0] : arrived) {
                if (n.getParameter().equals(marker)) {
                    return notes;
                }
                notes.add(n.getParameter());
            }
        }
        throw new AssertionError("the marker note did not arrive within a minute");
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }
}
