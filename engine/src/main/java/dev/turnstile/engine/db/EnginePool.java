package dev.turnstile.engine.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;

import java.sql.SQLException;
import java.time.Duration;

/**
 * The HikariCP pool an engine opens when the host gives it no {@code DataSource}: the driver
 * required by name, H2's settings that keep it correct and its server on loopback, a shared H2
 * file served by a process of its own, Galera's causal reads, the isolation every check relies on,
 * and dead connections found after a restart.
 */
final class EnginePool {
    private EnginePool() {
    }

    /** The engine's own pool for {@code config}'s URL, user and sizes; refused naming URL and user if it cannot connect. */
    static HikariDataSource open(EngineConfig config) {
        requireDriver(config.jdbcUrl());
        serveH2OnLoopback(config.jdbcUrl());
        HikariConfig hikari = new HikariConfig();
        hikari.setPoolName("turnstile");
        String url = h2Settings(config.jdbcUrl());
        if (SharedH2File.fileOf(url).isPresent()) {
            hikari.setDataSource(new SharedH2File(url, config.username(), config.password()));
        } else {
            String withIdleLimit = limitIdleTransactions(hikari, url, config.idleTransactionTimeout());
            hikari.setJdbcUrl(Galera.isGaleraUrl(url, config.username(), config.password())
                    ? Galera.withCausalReads(withIdleLimit) : withIdleLimit);
            hikari.setUsername(config.username());
            hikari.setPassword(config.password());
        }
        hikari.setMaximumPoolSize(config.maxPoolSize());
        hikari.setConnectionTimeout(config.connectionTimeout().toMillis());
        hikari.setAutoCommit(false);
        hikari.setTransactionIsolation(isolation(url));
        hikari.setInitializationFailTimeout(config.connectionTimeout().toMillis());
        // After a database restart the pool holds dead connections: Hikari tests one on borrow only
        // when it sat idle for a while, so idle ones are also tested every 30 s (Hikari's least), and
        // a connection that fails with a broken-connection SQLState is evicted at once; the built-in
        // dispenser policy retries the one call that met it.
        hikari.setKeepaliveTime(Duration.ofSeconds(30).toMillis());
        hikari.setExceptionOverride(new BrokenH2Connections());
        try {
            return new HikariDataSource(hikari);
        } catch (RuntimeException e) {
            throw EngineRuntimeException.of(ExceptionCode.E_DATABASE_UNAVAILABLE,
                    "Cannot connect to " + config.jdbcUrl() + " as " + config.username() + ": " + Database.rootMessage(e), e);
        }
    }

    /**
     * Has the server end a session of this pool that sits idle inside a transaction for
     * {@code timeout}, rolling it back: {@code url} as the pool is to open it. A process cut off
     * from the database, or paused, between two statements of a transaction — a take on MariaDB
     * holds the counter's row lock across three — would otherwise hold its row locks until the
     * server noticed the lost connection (TCP keepalive: two hours by default), and every other
     * node wait for them. Set as each session starts (PostgreSQL's start-up options, MariaDB's
     * session variables, which a failover URL's next node gets too): a SET as Hikari's init
     * statement was rolled back with its transaction on PostgreSQL, on a pool without autocommit.
     * H2 has no such limit.
     */
    static String limitIdleTransactions(HikariConfig hikari, String url, Duration timeout) {
        if (url.startsWith("jdbc:postgresql:")) {
            hikari.addDataSourceProperty("options", "-c idle_in_transaction_session_timeout=" + timeout.toMillis());
        } else if (url.startsWith("jdbc:mariadb:") || url.startsWith("jdbc:mysql:")) {
            return Galera.withSessionVariable(url, "idle_transaction_timeout", Long.toString((timeout.toMillis() + 999) / 1000));
        }
        return url;
    }

    /**
     * The engine's transactions' isolation. USN checks need each UPDATE to see the latest committed
     * row: PostgreSQL and MariaDB re-evaluate the WHERE clause against it under READ COMMITTED.
     *
     * <p>H2 at READ COMMITTED loses updates (2.3.232 to 2.5.252; issue 16): a transaction that waited
     * for another's row lock and then wrote or locked that row could, when it rolled back, put the row
     * back as it was before the other's commit — a refused USN-guarded save rolled back, and the
     * commit it had waited for was gone. Seen in CI as numbers issued twice; with {@code WRITE_DELAY=0}
     * in a few runs of every ten, and in every run of 16 plain JDBC threads doing guarded updates
     * (docs/BENCHMARKS.md). At REPEATABLE READ, H2 takes no row changed since the statement's snapshot:
     * it fails the statement with 40001, which the engine runs again ({@link Sql#isConflictAbort}),
     * so a rollback never holds such a row.
     */
    static String isolation(String url) {
        return url.startsWith("jdbc:h2:") ? "TRANSACTION_REPEATABLE_READ" : "TRANSACTION_READ_COMMITTED";
    }

    /** The driver artifacts of the databases the engine supports, by URL prefix. */
    private static final java.util.Map<String, String> DRIVERS = java.util.Map.of(
            "jdbc:postgresql:", "org.postgresql:postgresql",
            "jdbc:mariadb:", "org.mariadb.jdbc:mariadb-java-client",
            "jdbc:h2:", "com.h2database:h2");

    /**
     * The JDBC drivers are the host's choice: the engine depends on none (optional dependencies),
     * so a URL whose driver the application did not bring is refused here, naming what to add.
     */
    static void requireDriver(String url) {
        try {
            java.sql.DriverManager.getDriver(url);
        } catch (SQLException e) {
            String add = DRIVERS.entrySet().stream().filter(d -> url.startsWith(d.getKey()))
                    .map(d -> "add " + d.getValue() + " to the application")
                    .findFirst().orElse("add the JDBC driver of that database to the application");
            throw EngineRuntimeException.of(ExceptionCode.E_CONFIG_INVALID, "No JDBC driver on the classpath accepts"
                    + " database.url " + url + ": " + add + " (the engine brings no driver)");
        }
    }

    /**
     * H2 opens an AUTO_SERVER port on every network interface unless {@code h2.bindAddress} says
     * otherwise — and the embedded default's user is {@code sa} without a password. A shared file is
     * served by an {@link H2FileServer} started on loopback; this is for a host whose own connection
     * opens the file first and so serves it. H2 reads the property once, when it first loads: set it
     * earlier ({@code -Dh2.bindAddress=…}) to choose another address.
     */
    static void serveH2OnLoopback(String url) {
        if (url.startsWith("jdbc:h2:") && System.getProperty("h2.bindAddress") == null) {
            System.setProperty("h2.bindAddress", "127.0.0.1");
        }
    }

    /**
     * H2's reuse of a query's last result has lost updates and stale reads in its tracker
     * (h2database #3894, #4208; the advised workaround is {@code OPTIMIZE_REUSE_RESULTS=FALSE}). It
     * was the cause of a duplicate: two take-a-number processes on one H2 file, first writer wins
     * feeling unlucky, issued 1 to 10 numbers twice in about one run in six. Every H2 URL the engine
     * opens has it off, unless the URL sets it.
     *
     * <p>And never {@code AUTO_RECONNECT}, even when the URL asks for it: a connection whose server
     * died reconnected in the middle of a transaction and went on in a new session without it, so
     * a transaction's later statements committed without its earlier ones — register rows without
     * the counter update that issued them, after which every take failed on the register's key.
     * A broken connection is evicted by the pool instead, and its transaction fails as a whole.
     *
     * <p>A shared file is served by a process of its own ({@link SharedH2File}), so that no
     * application process killed takes answered commits with it, and that server writes each commit
     * before it answers it ({@link SharedH2File#writtenBeforeAnswered}).
     */
    static String h2Settings(String url) {
        if (!url.startsWith("jdbc:h2:")) {
            return url;
        }
        String kept = java.util.Arrays.stream(url.split(";"))
                .filter(part -> !part.toUpperCase(java.util.Locale.ROOT).startsWith("AUTO_RECONNECT="))
                .collect(java.util.stream.Collectors.joining(";"));
        return kept.toUpperCase(java.util.Locale.ROOT).contains(";OPTIMIZE_REUSE_RESULTS=") ? kept
                : kept + ";OPTIMIZE_REUSE_RESULTS=FALSE";
    }
}
