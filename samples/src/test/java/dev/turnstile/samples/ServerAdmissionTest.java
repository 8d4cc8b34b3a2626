package dev.turnstile.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispenserStrategy;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.Test;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 43: 200 editors on a freshly started server got 28–95 answers 503 after waiting 10 s each
 * for a pool connection. The server now runs as many API requests at once as the engine has
 * connections and queues the rest for a bounded time; past it the answer is 503 with Retry-After.
 */
class ServerAdmissionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void whileEveryConnectionIsBusy_aRequestQueues_thenGets503WithRetryAfter_notAPoolTimeout_andTheBusyOnesFinish() throws Exception {
        String url = "jdbc:h2:file:" + Path.of("target", "h2", "admission-" + UUID.randomUUID()).toAbsolutePath()
                + ";AUTO_SERVER=TRUE;LOCK_TIMEOUT=60000";
        // Two connections, and a pool wait far longer than the queue's: before, the third request waited it out.
        try (ContentEngine engine = ContentEngine.open(EngineConfig.builder().jdbcUrl(url).maxPoolSize(2)
                .connectionTimeout(Duration.ofSeconds(30)).build())) {
            String dispenser = "busy-" + UUID.randomUUID().toString().substring(0, 8);
            engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                    .create(dispenser, DispenserConfig.builder().strategy(DispenserStrategy.PESSIMISTIC).build()); // a connection per take
            ServerUsers users = ServerUsers.demo(Map.of("workflow", Set.of()));
            String token = users.demoTokens().keySet().iterator().next();
            HttpClient http = HttpClient.newHttpClient();
            try (TurnstileServer server = new TurnstileServer(engine, users).start(0);
                 Connection outside = DriverManager.getConnection(url, "sa", "")) {
                HttpRequest next = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/dispensers/"
                        + dispenser + "/next")).POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + token).build();
                // Another program holds every object row: a take waits for it, holding its connection.
                outside.setAutoCommit(false);
                outside.createStatement().executeQuery("SELECT id FROM ts_object FOR UPDATE").close();
                List<CompletableFuture<HttpResponse<String>>> busy = new ArrayList<>();
                for (int i = 0; i < 2; i++) {
                    busy.add(http.sendAsync(next, HttpResponse.BodyHandlers.ofString()));
                }
                org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20)).until(() -> rowLockWaiters(url) == 2);

                long start = System.nanoTime();
                HttpResponse<String> third = http.send(next, HttpResponse.BodyHandlers.ofString());
                long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertThat(third.statusCode()).isEqualTo(503);
                assertThat(third.headers().firstValue("Retry-After")).hasValue("1");
                JsonNode error = JSON.readTree(third.body());
                assertThat(error.get("error").asText()).isEqualTo("the server is busy: 2 requests run at once and the queue waited"
                        + " 5 s; nothing was done, try again after 1 s");
                assertThat(waited).as("the queue's bound, not the pool's 30 s").isLessThan(20_000);
                assertThat(busy).allSatisfy(f -> assertThat(f).isNotDone());

                outside.rollback();
                for (CompletableFuture<HttpResponse<String>> f : busy) {
                    assertThat(f.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
                }
                assertThat(engine.dispensers().get(dispenser).current()).as("the refused request took nothing").isEqualTo(2);
                assertThat(http.send(next, HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            }
        }
    }

    /** Sessions of the H2 database waiting for a lock. */
    private static int rowLockWaiters(String url) throws Exception {
        try (Connection c = DriverManager.getConnection(url, "sa", "");
             var r = c.createStatement().executeQuery("SELECT COUNT(*) FROM INFORMATION_SCHEMA.SESSIONS WHERE BLOCKER_ID IS NOT NULL")) {
            r.next();
            return r.getInt(1);
        }
    }
}
