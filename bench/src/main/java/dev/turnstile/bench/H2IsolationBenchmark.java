package dev.turnstile.bench;

import org.h2.tools.Server;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * H2's lost update in plain JDBC, and what the engine's choice of isolation costs (issue 16): many
 * threads on one row, each taking the next number the way a first-writer-wins save does — read
 * the row in a transaction of its own, then {@code UPDATE … SET usn = usn + 1 WHERE id = ? AND usn
 * = ?}; when that changes no row, read the USN (why it lost) and roll back. At READ COMMITTED
 * (what the engine used on H2 until issue 16), H2 issued numbers twice, each a committed update
 * lost; at REPEATABLE READ (the engine now) a statement that meets a row changed since its snapshot fails
 * with 40001 and the caller runs it again. Through H2's TCP server, each run on a new database.
 */
@Command(name = "h2-isolation", mixinStandardHelpOptions = true,
        description = "H2's lost update at READ COMMITTED beside REPEATABLE READ: guarded increments of one row, plain JDBC.")
final class H2IsolationBenchmark implements Callable<Integer> {
    @Option(names = "--threads", defaultValue = "16", description = "threads on the row (default ${DEFAULT-VALUE})")
    int threads;

    @Option(names = "--increments", defaultValue = "200", description = "numbers each thread takes (default ${DEFAULT-VALUE})")
    int increments;

    @Option(names = "--runs", defaultValue = "3", description = "runs per isolation, each on a new database (default ${DEFAULT-VALUE})")
    int runs;

    @Option(names = "--write-delay", defaultValue = "0",
            description = "H2's WRITE_DELAY in ms: 0 writes each commit before answering it (default ${DEFAULT-VALUE}; H2's own is 500)")
    int writeDelay;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("ts-h2-isolation");
        Server server = Server.createTcpServer("-tcpPort", "0", "-baseDir", dir.toString(), "-ifNotExists").start();
        try {
            System.out.printf(Locale.ROOT, "H2 %s, %d threads × %d numbers on one row, WRITE_DELAY=%d, %d runs per isolation%n%n",
                    org.h2.engine.Constants.FULL_VERSION, threads, increments, writeDelay, runs);
            System.out.println("| isolation | run | numbers issued twice | updates lost (answered − final USN) | reruns (40001) | numbers/s |");
            System.out.println("|---|---|---|---|---|---|");
            int run = 0;
            for (int isolation : new int[] {Connection.TRANSACTION_READ_COMMITTED, Connection.TRANSACTION_REPEATABLE_READ}) {
                for (int r = 1; r <= runs; r++) {
                    String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/db" + ++run
                            + ";WRITE_DELAY=" + writeDelay + ";LOCK_TIMEOUT=10000";
                    Result result = race(url, isolation);
                    System.out.printf(Locale.ROOT, "| %s | %d | %d | %d | %d | %,.0f |%n",
                            isolation == Connection.TRANSACTION_READ_COMMITTED ? "READ COMMITTED" : "REPEATABLE READ",
                            r, result.twice, result.lost, result.reruns, result.perSecond);
                }
            }
        } finally {
            server.stop();
        }
        return 0;
    }

    private record Result(int twice, long lost, int reruns, double perSecond) {
    }

    private Result race(String url, int isolation) throws Exception {
        UUID id = UUID.randomUUID();
        try (Connection c = DriverManager.getConnection(url, "sa", ""); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE numbered (id UUID PRIMARY KEY, usn BIGINT NOT NULL, prop_values VARCHAR(1000),"
                    + " last_modifier VARCHAR(64), date_last_modified TIMESTAMP WITH TIME ZONE)");
            try (PreparedStatement p = c.prepareStatement("INSERT INTO numbered VALUES (?, 0, '0', 'x', CURRENT_TIMESTAMP)")) {
                p.setObject(1, id);
                p.executeUpdate();
            }
        }
        Set<Long> issued = ConcurrentHashMap.newKeySet();
        AtomicInteger twice = new AtomicInteger();
        AtomicInteger reruns = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        long start = System.nanoTime();
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                String worker = "t" + t;
                workers.add(pool.submit(() -> {
                    try (Connection c = DriverManager.getConnection(url, "sa", "")) {
                        c.setAutoCommit(false);
                        c.setTransactionIsolation(isolation);
                        for (int i = 0; i < increments; i++) {
                            long number = next(c, id, worker, reruns);
                            if (!issued.add(number)) {
                                twice.incrementAndGet();
                            }
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> w : workers) {
                w.get();
            }
        } finally {
            pool.shutdownNow();
        }
        double perSecond = threads * increments / ((System.nanoTime() - start) / 1e9);
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             ResultSet rs = c.createStatement().executeQuery("SELECT usn FROM numbered")) {
            rs.next();
            return new Result(twice.get(), threads * (long) increments - rs.getLong(1), reruns.get(), perSecond);
        }
    }

    /** One number: read, guarded update; on a lost race, why, and a rollback. */
    private static long next(Connection c, UUID id, String worker, AtomicInteger reruns) throws SQLException {
        try (PreparedStatement read = c.prepareStatement("SELECT usn FROM numbered WHERE id = ?");
             PreparedStatement update = c.prepareStatement("UPDATE numbered SET prop_values = ?, last_modifier = ?,"
                     + " date_last_modified = CURRENT_TIMESTAMP, usn = usn + 1 WHERE id = ? AND usn = ?")) {
            while (true) {
                try {
                    read.setObject(1, id);
                    long usn;
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next();
                        usn = rs.getLong(1);
                    }
                    c.commit();
                    update.setString(1, "{\"n\":" + (usn + 1) + "}");
                    update.setString(2, worker);
                    update.setObject(3, id);
                    update.setLong(4, usn);
                    if (update.executeUpdate() == 1) {
                        c.commit();
                        return usn + 1;
                    }
                    try (ResultSet rs = read.executeQuery()) {
                        rs.next(); // the USN that won, as a save that lost its race reads it to say so
                    }
                    c.rollback();
                } catch (SQLException e) {
                    if (!"40001".equals(e.getSQLState())) {
                        throw e;
                    }
                    c.rollback();
                    reruns.incrementAndGet();
                }
            }
        }
    }
}
