package dev.turnstile.bench;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Callable;

/**
 * The operator console's answer time as the edit locks grow: one {@code serve} process on the
 * chosen database, its lock table filled with valid edit locks (written straight into the table,
 * 1,000 and then 100,000: taking them through the engine would take minutes), and an operator's
 * requests one after another — the first page, a holder's locks, a lock by its id, the last page —
 * each timed end to end over HTTP (the engine filters, counts and pages in the database).
 */
@Command(name = "console", mixinStandardHelpOptions = true,
        description = "The console's answer time (p50, p99) with 1,000 and 100,000 edit locks.")
final class ConsoleBenchmark implements Callable<Integer> {
    private static final String TYPE = "benchconsole";

    @Mixin
    BenchDatabase database;

    @Option(names = "--locks", split = ",", defaultValue = "1000,100000", description = "lock counts, ascending (default ${DEFAULT-VALUE})")
    List<Integer> sizes;

    @Option(names = "--requests", defaultValue = "200", description = "timed requests of each kind per size (default ${DEFAULT-VALUE})")
    int requests;

    @Option(names = "--samples-jar", defaultValue = "samples/target/turnstile-samples.jar", description = "the server's jar")
    Path samplesJar;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private final String token = UUID.randomUUID().toString().replace("-", "");
    private String base;

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("console-bench");
        Files.writeString(dir.resolve("users.yaml"), "users:\n  operator:\n    tokenDigest: \"" + tokenDigest(token) + "\"\n    roles: [lock-breaker]\n");
        // A type whose locks outlive the run: the seeded rows are never renewed.
        Files.writeString(dir.resolve("turnstile.yaml"), "database:\n  url: \"" + database.url() + "\"\n  username: " + database.user()
                + "\n  password: \"" + database.password() + "\"\neditLocks:\n  types:\n    " + TYPE + ":\n      heartbeat: 8h\n      timeout: 8h\n");
        try (ServeProcess server = new ServeProcess(samplesJar, dir.resolve("turnstile.yaml"), dir.resolve("users.yaml"));
             Connection c = database.connect()) {
            base = server.base;
            clear(c);
            System.out.printf(Locale.ROOT, "the console on %s (serve, %s): an operator's requests one after another, %d timed of each"
                    + " after 5 untimed%n%n", base, database.db, requests);
            System.out.println("| edit locks | request | p50 ms | p99 ms |");
            System.out.println("|---|---|---|---|");
            int seeded = 0;
            for (int size : sizes) {
                seed(c, seeded, size);
                seeded = size;
                String someLock = lockId(c, size / 2);
                Map<String, String> kinds = new LinkedHashMap<>();
                kinds.put("first page of each table", "/api/console");
                kinds.put("one holder's locks (ed7: 1 in 50)", "/api/console?holder=ed7");
                kinds.put("a lock by its id", "/api/console?lockId=" + someLock);
                kinds.put("the last page of edit locks", "/api/console?editOffset=" + (size - 50));
                kinds.put("text search (an article's 100 locks)", "/api/console?contains=" + URLEncoder.encode(TYPE + ":a-"
                        + String.format("%05d", size / 200), StandardCharsets.UTF_8) + "%23");
                for (Map.Entry<String, String> kind : kinds.entrySet()) {
                    Percentiles p = time(kind.getValue());
                    System.out.printf(Locale.ROOT, "| %,d | %s | %.1f | %.1f |%n", size, kind.getKey(), p.millis(0.5), p.millis(0.99));
                }
            }
            clear(c);
        }
        return 0;
    }

    /** How the users file keeps an API token: "sha256:" and its SHA-256 in hex. */
    static String tokenDigest(String token) throws Exception {
        return "sha256:" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                .digest(token.getBytes(StandardCharsets.UTF_8)));
    }

    private Percentiles time(String path) throws Exception {
        long[] took = new long[requests];
        for (int i = -5; i < requests; i++) {
            long start = System.nanoTime();
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", "Bearer " + token)
                    .GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) {
                throw new IllegalStateException(path + ": " + r.statusCode() + " " + r.body());
            }
            if (i >= 0) {
                took[i] = System.nanoTime() - start;
            }
        }
        return new Percentiles(took);
    }

    /** Locks {@code from} to {@code to} (exclusive): 100 paragraphs per article, 50 editors, in batches. */
    private static void seed(Connection c, int from, int to) throws Exception {
        try (PreparedStatement insert = c.prepareStatement("INSERT INTO ts_edit_lock (resource_id, lock_id, user_id, start_time, state,"
                + " heart_beat_time, usn) VALUES (?, ?, ?, CURRENT_TIMESTAMP, 1, CURRENT_TIMESTAMP, 0)")) {
            for (int i = from; i < to; i++) {
                insert.setString(1, String.format(Locale.ROOT, "%s:a-%05d#p%03d", TYPE, i / 100, i % 100));
                insert.setString(2, UUID.randomUUID().toString());
                insert.setString(3, "ed" + i % 50);
                insert.addBatch();
                if ((i + 1) % 1000 == 0 || i == to - 1) {
                    insert.executeBatch();
                    c.commit();
                }
            }
        }
    }

    private static String lockId(Connection c, int n) throws Exception {
        try (PreparedStatement select = c.prepareStatement("SELECT lock_id FROM ts_edit_lock WHERE resource_id = ?")) {
            select.setString(1, String.format(Locale.ROOT, "%s:a-%05d#p%03d", TYPE, n / 100, n % 100));
            try (ResultSet r = select.executeQuery()) {
                r.next();
                String id = r.getString(1);
                c.commit();
                return id;
            }
        }
    }

    private static void clear(Connection c) throws Exception {
        try (PreparedStatement delete = c.prepareStatement("DELETE FROM ts_edit_lock WHERE resource_id LIKE ?")) {
            delete.setString(1, TYPE + ":%");
            delete.executeUpdate();
            c.commit();
        }
    }
}
