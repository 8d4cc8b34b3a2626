package dev.turnstile.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.DispenserConfig;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** The HTTP API for workflows, over a real socket on localhost. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TurnstileServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private ContentEngine engine;
    private TurnstileServer server;
    private String token;
    private String dispenser;

    @BeforeAll
    void start() {
        engine = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "server").toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .changesEnabled(true)
                .build());
        dispenser = "inv-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(EngineConfig.DEFAULT_DISPENSER_ADMIN_ROLE)).dispensers()
                .create(dispenser, DispenserConfig.builder().format("INV-{seq:5}").build());
        ServerUsers users = ServerUsers.demo(Map.of("workflow", Set.of()));
        token = users.tokens().keySet().iterator().next();
        server = new TurnstileServer(engine, users).start(0);
    }

    @AfterAll
    void stop() {
        server.close();
        engine.close();
    }

    private HttpResponse<String> send(String method, String path, String body, String bearer) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (bearer != null) {
            b.header("Authorization", "Bearer " + bearer);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    private JsonNode json(HttpResponse<String> r) throws Exception {
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v).startsWith("application/json"));
        return JSON.readTree(r.body());
    }

    private long current() throws Exception {
        return json(send("GET", "/api/dispensers/" + dispenser, null, token)).get("current").asLong();
    }

    @Test
    void numbersForAWorkflow_singleAndInBlocks() throws Exception {
        long before = current();
        JsonNode one = json(send("POST", "/api/dispensers/" + dispenser + "/next", null, token));
        assertThat(one.get("first").asLong()).isEqualTo(before + 1);
        assertThat(one.get("formatted").get(0).asText()).isEqualTo(String.format("INV-%05d", before + 1));

        HttpResponse<String> block = send("POST", "/api/dispensers/" + dispenser + "/next", "{\"count\": 3}", token);
        assertThat(block.statusCode()).isEqualTo(200);
        assertThat(json(block).get("first").asLong()).isEqualTo(before + 2);
        assertThat(json(block).get("last").asLong()).isEqualTo(before + 4);
        assertThat(json(send("POST", "/api/dispensers/" + dispenser + "/next?count=2", null, token)).get("count").asInt()).isEqualTo(2);
        assertThat(current()).isEqualTo(before + 6);
    }

    @Test
    void changeFeedLag_showsEachClientsPendingChanges() throws Exception {
        String cls = "Lagged" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        var os = engine.session("writer").objectStore();
        os.defineClass(cls, c -> c.string("Title"));
        String client = "lag-" + cls;
        engine.changes().registerClient(client, dev.turnstile.api.ChangeFilter.classes(cls), dev.turnstile.api.DeliveryMode.QUEUE);
        try {
            for (int i = 0; i < 3; i++) {
                var o = os.createCustomObject(cls);
                o.getProperties().putValue("Title", "t" + i);
                o.save(dev.turnstile.api.RefreshMode.REFRESH);
            }
            HttpResponse<String> r = send("GET", "/api/changes/lag", null, token);
            assertThat(r.statusCode()).isEqualTo(200);
            JsonNode mine = null;
            for (JsonNode c : json(r).get("clients")) {
                if (c.get("client").asText().equals(client)) {
                    mine = c;
                }
            }
            assertThat(mine).isNotNull();
            assertThat(mine.get("pending").asLong()).isEqualTo(3);
            assertThat(mine.get("oldestPendingMillis").isNumber()).isTrue();
            assertThat(send("GET", "/api/changes/lag", null, null).statusCode()).isEqualTo(401);
        } finally {
            engine.changes().unregisterClient(client);
        }
    }

    @Test
    void authenticationIsRequired_andAForeignTokenIsRefused() throws Exception {
        for (String bearer : new String[] {null, "not-a-token", token + "x"}) {
            HttpResponse<String> r = send("POST", "/api/dispensers/" + dispenser + "/next", null, bearer);
            assertThat(r.statusCode()).isEqualTo(401);
            assertThat(json(r).get("code").asText()).isEqualTo("UNAUTHORIZED");
        }
    }

    @Test
    void badRequests_getA4xxWithAJsonError_andChangeNothing() throws Exception {
        long before = current();
        Map<String, Integer> cases = Map.of(
                "/api/dispensers/no-such-dispenser/next", 404,
                "/api/dispensers/" + dispenser + "/next?count=0", 400,
                "/api/dispensers/" + dispenser + "/next?count=abc", 400,
                "/api/dispensers/" + dispenser + "/next?count=1000000", 400);
        for (Map.Entry<String, Integer> c : cases.entrySet()) {
            HttpResponse<String> r = send("POST", c.getKey(), null, token);
            assertThat(r.statusCode()).as(c.getKey()).isEqualTo(c.getValue());
            assertThat(json(r).get("error").asText()).as(c.getKey()).isNotBlank();
        }
        HttpResponse<String> unknown = send("GET", "/api/dispensers/no-such-dispenser", null, token);
        assertThat(json(unknown).get("code").asText()).isEqualTo("E_OBJECT_NOT_FOUND");
        for (String body : new String[] {"{\"count\": ", "[1,2]", "{\"count\": \"many\"}", "{\"count\": 1.5}"}) {
            HttpResponse<String> r = send("POST", "/api/dispensers/" + dispenser + "/next", body, token);
            assertThat(r.statusCode()).as(body).isEqualTo(400);
            assertThat(json(r).get("code").asText()).as(body).isEqualTo("BAD_REQUEST");
        }
        HttpResponse<String> huge = send("POST", "/api/dispensers/" + dispenser + "/next",
                "{\"count\": 1, \"pad\": \"" + "x".repeat((int) TurnstileServer.MAX_BODY_BYTES) + "\"}", token);
        assertThat(huge.statusCode()).isEqualTo(413);
        assertThat(current()).as("nothing was taken").isEqualTo(before);
    }

    @Test
    void concurrentWorkflowRequests_getUniqueGapFreeNumbers() throws Exception {
        long before = current();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<List<Long>>> futures = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                futures.add(pool.submit(() -> {
                    List<Long> mine = new ArrayList<>();
                    for (int i = 0; i < 25; i++) {
                        mine.add(json(send("POST", "/api/dispensers/" + dispenser + "/next", null, token)).get("first").asLong());
                    }
                    return mine;
                }));
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> f : futures) {
                all.addAll(f.get(2, TimeUnit.MINUTES));
            }
            assertThat(all).hasSize(200);
            assertThat(all).allMatch(n -> n > before && n <= before + 200);
        } finally {
            pool.shutdownNow();
        }
    }
}
