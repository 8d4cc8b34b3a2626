package dev.turnstile.bench;

import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Simulated editors heartbeating over HTTP against one {@code serve} process on the embedded H2
 * default: each editor holds a paragraph lock and heartbeats it; client threads send the
 * heartbeats as fast as the server answers. Beside it, the HTTP floor: the same request without
 * credentials, answered 401 by the server's authentication filter (HTTP and routing, no database).
 */
@Command(name = "editlocks", mixinStandardHelpOptions = true,
        description = "Simulated editors heartbeating edit locks over HTTP against one serve process.")
final class EditLockLoadBenchmark implements Callable<Integer> {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Option(names = "--editors", defaultValue = "10000", description = "simulated editors, one lock each (default ${DEFAULT-VALUE})")
    int editors;

    @Option(names = "--clients", defaultValue = "32", description = "client threads sending heartbeats (default ${DEFAULT-VALUE})")
    int clients;

    @Option(names = "--seconds", defaultValue = "20", description = "measured seconds per run (default ${DEFAULT-VALUE})")
    int seconds;

    @Option(names = "--samples-jar", defaultValue = "samples/target/turnstile-samples.jar", description = "the server's jar")
    Path samplesJar;

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private String base;
    /** Lock requests the server answered 503 (busy) during the set-up. */
    private final AtomicInteger busy = new AtomicInteger();

    @Override
    public Integer call() throws Exception {
        Path dir = Files.createTempDirectory("editlock-bench");
        StringBuilder users = new StringBuilder("users:\n");
        List<String> tokens = new ArrayList<>();
        for (int i = 0; i < editors; i++) {
            String token = UUID.randomUUID().toString().replace("-", "");
            tokens.add(token);
            users.append("  editor").append(i).append(":\n    tokenDigest: \"").append(ConsoleBenchmark.tokenDigest(token)).append("\"\n");
        }
        Files.writeString(dir.resolve("users.yaml"), users);
        Files.writeString(dir.resolve("turnstile.yaml"), "database:\n  url: jdbc:h2:file:" + dir.resolve("data/turnstile")
                + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=10000\n");
        try (ServeProcess server = new ServeProcess(samplesJar, dir.resolve("turnstile.yaml"), dir.resolve("users.yaml"))) {
            base = server.base;
            List<String> locks = setUp(tokens);
            System.out.printf(Locale.ROOT, "%,d editors took their locks through %d client threads on a fresh server; %d answers"
                    + " were 503 (busy, with Retry-After) and were sent again after it%n%n", editors, clients, busy.get());
            System.out.printf(Locale.ROOT, "edit lock load on %s (serve, embedded H2): %,d editors holding a paragraph lock each,"
                    + " %d client threads, %d s per run%n%n", base, editors, clients, seconds);
            System.out.println("| request | requests/s | p50 ms | p99 ms | connections dropped |");
            System.out.println("|---|---|---|---|---|");
            run("HTTP floor (401 from the authentication filter)", i -> request("/api/locks/x/heartbeat", null), 1);
            run("heartbeat (authenticated, one USN-checked UPDATE)", i -> request("/api/locks/" + locks.get(i) + "/heartbeat",
                    tokens.get(i)), 2);
            System.out.printf(Locale.ROOT, "%nAt one heartbeat per editor every 40 s (a third of the paper's 2 minutes), %,d editors"
                    + " send %.0f heartbeats/s.%n", editors, editors / 40.0);
        }
        return 0;
    }

    /** Articles of 20 paragraphs, and every editor's lock on one paragraph (over HTTP too). */
    private List<String> setUp(List<String> tokens) throws Exception {
        int articles = (editors + 19) / 20;
        String html = "<p>x</p>".repeat(20);
        List<List<String>> paragraphs = new ArrayList<>();
        for (int a = 0; a < articles; a++) {
            JsonNode created = JSON.readTree(send("PUT", "/api/articles/wiki/bench-" + a, "{\"html\": \"" + html.replace("\"", "\\\"")
                    + "\"}", tokens.get(0)).body());
            List<String> ids = new ArrayList<>();
            created.get("paragraphs").forEach(p -> ids.add(p.asString()));
            paragraphs.add(ids);
        }
        String[] locks = new String[editors];
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int i = 0; i < editors; i++) {
                int e = i;
                done.add(pool.submit(() -> {
                    HttpResponse<String> r;
                    // A busy server says when to come back (503, Retry-After), as a browser's editor page does.
                    while ((r = send("POST", "/api/articles/wiki/bench-" + (e / 20) + "/locks",
                            "{\"paragraphs\": [\"" + paragraphs.get(e / 20).get(e % 20) + "\"]}", tokens.get(e))).statusCode() == 503) {
                        busy.incrementAndGet();
                        Thread.sleep(1000L * Long.parseLong(r.headers().firstValue("Retry-After").orElseThrow()));
                    }
                    if (r.statusCode() != 200) {
                        throw new IllegalStateException("editor " + e + ": " + r.body());
                    }
                    locks[e] = JSON.readTree(r.body()).get("locks").get(0).get("lockId").asString();
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get(10, TimeUnit.MINUTES);
            }
        } finally {
            pool.shutdownNow();
        }
        return Arrays.asList(locks);
    }

    interface Request {
        int send(int editor) throws Exception;
    }

    private void run(String name, Request request, int expectedClass) throws Exception {
        AtomicBoolean measuring = new AtomicBoolean();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicInteger next = new AtomicInteger();
        AtomicInteger dropped = new AtomicInteger();
        List<long[]> perThread = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int c = 0; c < clients; c++) {
                long[] latencies = new long[2_000_000];
                int[] n = new int[1];
                perThread.add(latencies);
                done.add(pool.submit(() -> {
                    while (!stop.get()) {
                        int editor = Math.floorMod(next.getAndIncrement(), editors);
                        long start = System.nanoTime();
                        int status;
                        try {
                            status = request.send(editor);
                        } catch (java.io.IOException e) {
                            // A kept-alive connection the server closed as the client reused it: counted, not fatal.
                            dropped.incrementAndGet();
                            continue;
                        }
                        long took = System.nanoTime() - start;
                        if (status / 100 != expectedClass && status != 401) {
                            throw new IllegalStateException(name + ": status " + status);
                        }
                        if (measuring.get() && n[0] < latencies.length - 1) {
                            latencies[++n[0]] = took;
                            latencies[0] = n[0];
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(3000); // warm-up
            measuring.set(true);
            long start = System.nanoTime();
            Thread.sleep(seconds * 1000L);
            measuring.set(false);
            double elapsed = (System.nanoTime() - start) / 1e9;
            stop.set(true);
            for (Future<?> f : done) {
                f.get(60, TimeUnit.SECONDS);
            }
            long count = perThread.stream().mapToLong(l -> l[0]).sum();
            long[] all = new long[(int) count];
            int k = 0;
            for (long[] l : perThread) {
                for (int i = 1; i <= l[0]; i++) {
                    all[k++] = l[i];
                }
            }
            Percentiles p = new Percentiles(all);
            System.out.printf(Locale.ROOT, "| %s | %,.0f | %.2f | %.2f | %d |%n", name, count / elapsed, p.millis(0.5), p.millis(0.99),
                    dropped.get());
        } finally {
            pool.shutdownNow();
        }
    }

    private int request(String path, String token) throws Exception {
        return send("POST", path, null, token).statusCode();
    }

    private HttpResponse<String> send(String method, String path, String body, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Content-Type", "application/json");
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }
}
