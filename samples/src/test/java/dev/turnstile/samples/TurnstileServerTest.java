package dev.turnstile.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.CustomObject;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.LockConfig;
import dev.turnstile.api.ObjectStore;
import dev.turnstile.api.PropertyFilter;
import dev.turnstile.api.RefreshMode;
import dev.turnstile.api.changes.ChangesConfig;
import dev.turnstile.api.dispenser.DispenserConfig;
import dev.turnstile.api.dispenser.DispensersConfig;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** The HTTP API for workflows, over a real socket on localhost. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TurnstileServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private ContentEngine engine;
    private TurnstileServer server;
    private String token;
    private String otherToken;
    private String operatorToken;

    private static String tokenOf(ServerUsers users, String name) {
        return users.demoTokens().entrySet().stream().filter(e -> e.getValue().name().equals(name)).findFirst().orElseThrow().getKey();
    }
    private String dispenser;

    @BeforeAll
    void start() {
        engine = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "server").toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .changes(ChangesConfig.of(true))
                .build());
        dispenser = "inv-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(dispenser, DispenserConfig.builder().format("INV-{seq:5}").build());
        Map<String, Set<String>> demo = new java.util.LinkedHashMap<>();
        demo.put("workflow", Set.of());
        demo.put("mallory", Set.of());
        demo.put("olivia", Set.of(LockConfig.DEFAULT_BREAKER_ROLE));
        ServerUsers users = ServerUsers.demo(demo);
        token = tokenOf(users, "workflow");
        otherToken = tokenOf(users, "mallory");
        operatorToken = tokenOf(users, "olivia");
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

    /** A workflow's {@code next} with an {@code Idempotency-Key}, as {@code bearer}. */
    private HttpResponse<String> sendKeyed(String key, String bearer) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/api/dispensers/" + dispenser + "/next"))
                .POST(HttpRequest.BodyPublishers.noBody()).header("Authorization", "Bearer " + bearer).header("Idempotency-Key", key)
                .build(), HttpResponse.BodyHandlers.ofString());
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
    void aRegisteredDispensersReport_showsItsNumbersInDoubt_withWhoTookThemAndWhen() throws Exception {
        String registered = "reg-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(registered, DispenserConfig.builder().register(true).build());
        send("POST", "/api/dispensers/" + registered + "/next", "{\"count\": 3}", token);
        JsonNode report = json(send("GET", "/api/dispensers/" + registered, null, token)).get("report");
        assertThat(report.get("issued").asLong()).isEqualTo(3);
        assertThat(report.get("inDoubtCount").asLong()).as("answered: confirmed").isZero();

        // Number 2 as a server killed between the take's commit and its answer leaves it.
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(engine.config().jdbcUrl(), engine.config().username(),
                engine.config().password());
             java.sql.PreparedStatement mark = c.prepareStatement("UPDATE ts_dispenser_issue SET in_doubt = true WHERE dispenser = ? AND number = 2")) {
            mark.setString(1, registered);
            assertThat(mark.executeUpdate()).isEqualTo(1);
        }
        report = json(send("GET", "/api/dispensers/" + registered, null, token)).get("report");
        assertThat(report.get("inDoubtCount").asLong()).isEqualTo(1);
        JsonNode doubt = report.get("inDoubt").get(0);
        assertThat(doubt.get("number").asLong()).isEqualTo(2);
        assertThat(doubt.get("issuedBy").asText()).isEqualTo("workflow");
        assertThat(doubt.get("issuedAt").asText()).isNotBlank();
        String unregistered = "plain-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers()
                .create(unregistered, DispenserConfig.builder().register(false).build());
        assertThat(json(send("GET", "/api/dispensers/" + unregistered, null, token)).has("report")).as("a series without a register").isFalse();
    }

    @Test
    void changeFeedLag_showsEachClientsPendingChanges() throws Exception {
        String cls = "Lagged" + UUID.randomUUID().toString().replace("-", "").substring(0, 8);
        var os = engine.session("writer").objectStore();
        os.defineClass(cls, c -> c.string("Title"));
        String client = "lag-" + cls;
        engine.changes().registerClient(client, dev.turnstile.api.changes.ChangeFilter.classes(cls), dev.turnstile.api.changes.DeliveryMode.QUEUE);
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
    void editLocks_overHttp_acquireHeartbeatSaveRelease_andNobodyUsesAnothersLock() throws Exception {
        String id = "http-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("setup").editLocks().createArticle("doc", id, "<p>one</p>");
        String api = "/api/articles/doc/" + id;
        assertThat(send("GET", api, null, null).statusCode()).isEqualTo(401);
        JsonNode article = json(send("GET", api, null, token));
        HttpResponse<String> granted = send("POST", api + "/locks", "{}", token);
        assertThat(granted.statusCode()).isEqualTo(200);
        String lockId = json(granted).get("locks").get(0).get("lockId").asText();
        assertThat(json(granted).get("locks").get(0).get("heartbeatEveryMillis").asLong())
                .as("the interval the server states: a third of the default 2-minute heartbeat").isEqualTo(40_000);
        HttpResponse<String> refused = send("POST", api + "/locks", "{}", otherToken);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(json(refused).get("holder").asText()).isEqualTo("workflow");
        // mallory knows the lock id and still cannot use it.
        assertThat(send("POST", "/api/locks/" + lockId + "/heartbeat", null, otherToken).statusCode()).isEqualTo(403);
        assertThat(send("POST", "/api/locks/" + lockId + "/release", null, otherToken).statusCode()).isEqualTo(403);
        HttpResponse<String> foreignSave = send("POST", "/api/locks/" + lockId + "/save",
                "{\"html\": \"<p>mine</p>\", \"baseUsn\": " + article.get("usn").asInt() + "}", otherToken);
        assertThat(foreignSave.statusCode()).isEqualTo(409);
        assertThat(json(foreignSave).get("text").asText()).isEqualTo("<p>mine</p>");
        assertThat(send("POST", "/api/locks/" + lockId + "/heartbeat", null, token).statusCode()).isEqualTo(200);
        HttpResponse<String> saved = send("POST", "/api/locks/" + lockId + "/save",
                "{\"html\": \"<p>two</p>\", \"baseUsn\": " + article.get("usn").asInt() + "}", token);
        assertThat(saved.statusCode()).isEqualTo(200);
        assertThat(send("POST", "/api/locks/" + lockId + "/release", null, token).statusCode()).isEqualTo(204);
        assertThat(json(send("GET", api, null, token)).get("html").asText()).contains("two");
    }

    @Test
    void editLocks_badRequests_getA4xxWithAJsonError_andLockNothing() throws Exception {
        String id = "bad-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("setup").editLocks().createArticle("doc", id, "<p>one</p>");
        String api = "/api/articles/doc/" + id;
        HttpResponse<String> malformed = send("POST", api + "/locks", "{not json", token);
        assertThat(malformed.statusCode()).isEqualTo(400);
        assertThat(json(malformed).get("code").asText()).isEqualTo("BAD_REQUEST");
        assertThat(send("POST", "/api/articles/doc/nothing-here/locks", "{}", token).statusCode()).isEqualTo(404);
        assertThat(send("POST", api + "/locks", "{\"paragraphs\": \"p1\"}", token).statusCode()).isEqualTo(400);
        assertThat(send("POST", api + "/locks", "{\"x\": \"" + "y".repeat(70_000) + "\"}", token).statusCode()).isEqualTo(413);
        assertThat(send("POST", "/api/locks/" + UUID.randomUUID() + "/heartbeat", null, token).statusCode()).isEqualTo(410);
        assertThat(json(send("GET", api, null, token)).get("articleLock").isNull()).as("nothing was locked").isTrue();
    }

    /** Issue 43: the console's actions over HTTP refuse a user without the role, and a body that is not exactly theirs. */
    @Test
    void breakingALock_andVoidingANumber_needTheirRoles_andExactlyTheirBody() throws Exception {
        String id = "break-" + UUID.randomUUID().toString().substring(0, 8);
        engine.session("setup").editLocks().createArticle("doc", id, "<p>one</p>");
        String lockId = json(send("POST", "/api/articles/doc/" + id + "/locks", "{}", token)).get("locks").get(0).get("lockId").asText();
        HttpResponse<String> typo = send("POST", "/api/locks/" + lockId + "/break", "{\"reason\": \"away\", \"resaon\": 1}", otherToken);
        assertThat(typo.statusCode()).isEqualTo(400);
        assertThat(json(typo).get("error").asText()).isEqualTo("the body must be {\"reason\": text}: why the lock is broken, for its"
                + " holder and the audit trail");
        HttpResponse<String> noRole = send("POST", "/api/locks/" + lockId + "/break", "{\"reason\": \"away\"}", otherToken);
        assertThat(noRole.statusCode()).isEqualTo(403);
        assertThat(json(noRole).get("error").asText()).isEqualTo("E_ACCESS_DENIED: mallory may not break edit lock " + lockId
                + ": that needs the role lock-breaker");
        assertThat(send("POST", "/api/locks/" + lockId + "/heartbeat", null, token).statusCode()).as("still held").isEqualTo(200);

        long before = current();
        HttpResponse<String> badVoid = send("POST", "/api/dispensers/" + dispenser + "/void", "{\"number\": \"1\", \"reason\": \"x\"}", token);
        assertThat(badVoid.statusCode()).isEqualTo(400);
        assertThat(json(badVoid).get("error").asText()).isEqualTo("the body must be {\"number\": the issued number, \"reason\": text}");
        HttpResponse<String> notAdmin = send("POST", "/api/dispensers/" + dispenser + "/void", "{\"number\": 1, \"reason\": \"x\"}", token);
        assertThat(notAdmin.statusCode()).isEqualTo(403);
        assertThat(json(notAdmin).get("error").asText()).contains("workflow may not").contains("dispenser-admin");
        assertThat(current()).as("nothing taken").isEqualTo(before);
    }

    /** Issue 43: tree and cooperative locks are broken with a reason by the lock-breaking role, and only the lock shown. */
    @Test
    void breakingATreeLockAndACooperativeLock_needsTheRoleAndExactlyTheirBody_andBreaksOnlyTheLockShown() throws Exception {
        String unique = UUID.randomUUID().toString().substring(0, 8);
        TreeLockHandle tree = engine.session("alice").treeLocks()
                .tryLock(TreeLockRequest.exclusive(TreePath.root("site", "srv-" + unique))).orElseThrow();
        String treeBreak = "/api/tree-locks/" + tree.lockToken() + "/break";
        HttpResponse<String> typo = send("POST", treeBreak, "{\"why\": \"stuck\"}", operatorToken);
        assertThat(typo.statusCode()).isEqualTo(400);
        assertThat(json(typo).get("error").asText())
                .isEqualTo("the body must be {\"reason\": text}: why the lock is broken, for its holder and the audit trail");
        HttpResponse<String> noRole = send("POST", treeBreak, "{\"reason\": \"stuck\"}", otherToken);
        assertThat(noRole.statusCode()).isEqualTo(403);
        assertThat(json(noRole).get("error").asText()).isEqualTo("E_ACCESS_DENIED: mallory may not break tree lock " + tree.lockToken()
                + ": that needs the role lock-breaker");
        tree.heartbeat(); // still held
        HttpResponse<String> broken = send("POST", treeBreak, "{\"reason\": \"the job hung\"}", operatorToken);
        assertThat(broken.statusCode()).isEqualTo(200);
        assertThat(json(broken).get("broken").asText()).isEqualTo(tree.lockToken());
        assertThat(failure(tree::heartbeat).getMessage()).contains(" was broken by olivia at ").endsWith(": the job hung");
        assertThat(send("POST", treeBreak, "{\"reason\": \"again\"}", operatorToken).statusCode()).as("nothing left").isEqualTo(410);

        String cls = "Srv" + unique;
        ObjectStore alice = engine.session("alice").objectStore();
        alice.defineClass(cls, c -> c.integer32("Counter"));
        CustomObject o = alice.createCustomObject(cls);
        o.lock(600, "import");
        o.save(RefreshMode.REFRESH);
        String objectBreak = "/api/objects/" + cls + "/" + o.getId() + "/lock/break";
        HttpResponse<String> missing = send("POST", objectBreak, "{\"reason\": \"x\"}", operatorToken);
        assertThat(missing.statusCode()).isEqualTo(400);
        assertThat(json(missing).get("error").asText()).isEqualTo("the body must be {\"lockToken\": text, \"reason\": text}: why the lock"
                + " is broken, for its holder and the audit trail");
        HttpResponse<String> badId = send("POST", "/api/objects/" + cls + "/nope/lock/break",
                "{\"lockToken\": \"" + o.getLockToken() + "\", \"reason\": \"x\"}", operatorToken);
        assertThat(badId.statusCode()).isEqualTo(400);
        assertThat(json(badId).get("error").asText()).isEqualTo("object id nope is not an id: the console names each object and lock by one");
        UUID other = UUID.randomUUID();
        HttpResponse<String> notThat = send("POST", objectBreak, "{\"lockToken\": \"" + other + "\", \"reason\": \"x\"}", operatorToken);
        assertThat(notThat.statusCode()).isEqualTo(409);
        assertThat(json(notThat).get("error").asText()).startsWith("E_OBJECT_NOT_LOCKED: The object " + cls + " {" + o.getId()
                + "} no longer carries the lock this instance shows (token " + other + ")");
        String body = "{\"lockToken\": \"" + o.getLockToken() + "\", \"reason\": \"the import crashed\"}";
        HttpResponse<String> objectNoRole = send("POST", objectBreak, body, otherToken);
        assertThat(objectNoRole.statusCode()).isEqualTo(403);
        assertThat(json(objectNoRole).get("error").asText()).isEqualTo("E_ACCESS_DENIED: mallory may not break the cooperative lock of "
                + cls + " {" + o.getId() + "}: that needs the role lock-breaker");
        assertThat(alice.fetchCustomObject(cls, o.getId(), PropertyFilter.ALL).getLockToken()).as("refusals break nothing")
                .isEqualTo(o.getLockToken());
        assertThat(send("POST", objectBreak, body, operatorToken).statusCode()).isEqualTo(200);
        o.getProperties().putValue("Counter", 1);
        assertThat(failure(() -> o.save(RefreshMode.REFRESH)).getMessage()).contains(" was broken by olivia at ").endsWith(": the import crashed");

        JsonNode breaks = json(send("GET", "/api/console", null, operatorToken)).get("lockBreaks");
        assertThat(breaks.findValuesAsText("lockToken")).contains(tree.lockToken(), o.getLockToken().toString());
        assertThat(json(send("GET", "/api/console", null, otherToken)).get("lockBreaks")).as("for operators").isEmpty();
    }

    /** Issue 43: the console showed the oldest 500 locks and said nothing of the rest; now each table pages, counts and filters. */
    @Test
    void theConsolesLockTables_arePagedCountedAndFiltered_inTheDatabase() throws Exception {
        TreePath site = TreePath.root("site", "pages-" + UUID.randomUUID().toString().substring(0, 8));
        List<TreeLockHandle> held = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            held.add(engine.session(i % 2 == 0 ? "mallory" : "crew").treeLocks()
                    .tryLock(TreeLockRequest.exclusive(site.child("bench", String.format("%03d", i)))).orElseThrow());
        }
        List<String> tokens = held.stream().map(TreeLockHandle::lockToken).toList();
        String filter = "/api/console?contains=" + site.toString().replace(" ", "%20");
        List<String> paged = new ArrayList<>();
        for (int offset = 0; offset < 120; offset += 50) {
            JsonNode page = json(send("GET", filter + "&treeOffset=" + offset, null, operatorToken)).get("treeLocks");
            assertThat(page.get("total").asLong()).isEqualTo(120);
            assertThat(page.get("offset").asInt()).isEqualTo(offset);
            assertThat(page.get("items")).hasSize(Math.min(50, 120 - offset));
            paged.addAll(page.get("items").findValuesAsText("lockToken"));
        }
        assertThat(paged).as("three pages, none twice, none left out").doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(tokens);
        JsonNode newest = json(send("GET", filter + "&order=NEWEST&holder=crew", null, operatorToken)).get("treeLocks");
        assertThat(newest.get("total").asLong()).isEqualTo(60);
        assertThat(newest.get("items").findValuesAsText("since")).isSortedAccordingTo(java.util.Comparator.reverseOrder());
        assertThat(newest.get("items").findValuesAsText("owner")).containsOnly("crew");
        JsonNode one = json(send("GET", "/api/console?lockId=" + tokens.get(7), null, operatorToken)).get("treeLocks");
        assertThat(one.get("items").findValuesAsText("lockToken")).containsExactly(tokens.get(7));
        JsonNode own = json(send("GET", filter, null, otherToken)).get("treeLocks");
        assertThat(own.get("total").asLong()).as("an editor sees the locks she holds").isEqualTo(60);
        assertThat(own.get("items").findValuesAsText("owner")).containsOnly("mallory");

        JsonNode clients = json(send("GET", "/api/console", null, operatorToken)).get("feedClients");
        assertThat(clients.get("total").asLong()).as("every table says how many there are").isEqualTo(engine.changes().lag().size());
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put("/api/console?dispenserOffset=-5", "dispenserOffset must be a row number (0 for the first page), not -5");
        refused.put(filter + "&order=sideways", "E_BAD_VALUE: Bad value for lock order: \"sideways\" (one of oldest, newest, holder, what)");
        refused.put(filter + "&treeOffset=x", "treeOffset must be a row number (0 for the first page), not x");
        refused.put(filter + "&treeOffset=-1", "treeOffset must be a row number (0 for the first page), not -1");
        refused.put("/api/console?contains=" + "x".repeat(201), "E_BAD_VALUE: Bad value for lock query contains: \"xxxxxxxxxxxxxxxxxxxx…\" (at most 200 characters)");
        for (Map.Entry<String, String> c : refused.entrySet()) {
            HttpResponse<String> r = send("GET", c.getKey(), null, operatorToken);
            assertThat(r.statusCode()).as(c.getKey()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(c.getKey()).isEqualTo(c.getValue());
        }
        HttpResponse<String> others = send("GET", filter + "&holder=crew", null, otherToken);
        assertThat(others.statusCode()).isEqualTo(403);
        assertThat(json(others).get("error").asText()).isEqualTo("mallory may see only the locks she or he holds: another holder's need"
                + " one of the roles lock-breaker, dispenser-admin, operator");
        held.forEach(TreeLockHandle::unlock);
    }

    private static EngineRuntimeException failure(org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        return catchThrowableOfType(EngineRuntimeException.class, call);
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
    void aWorkflowsTypo_neverTakesANumber_unknownOrRepeatedKeys_aCountGivenTwice_orAboveTheCap() throws Exception {
        long before = current();
        String next = "/api/dispensers/" + dispenser + "/next";
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(next + " {\"other\": 1}", "unknown key 'other' in the body; it holds only count");
        refused.put(next + " {\"count\": 2, \"count\": 7}", "Duplicate field 'count'");
        refused.put(next + "?count=2 {\"count\": 5}", "count is given twice (?count=2 and the body's 5); give it once");
        refused.put(next + "?count=1001 ", "count must be from 1 to 1000 per call, not 1001");
        refused.put(next + " {} xyz", "the body is not JSON: Unrecognized token 'xyz'");
        refused.put(next + " {\"count\": 1} {\"count\": 2}", "the body is not JSON: text after the JSON object");
        for (Map.Entry<String, String> c : refused.entrySet()) {
            String[] pathAndBody = c.getKey().split(" ", 2);
            HttpResponse<String> r = send("POST", pathAndBody[0], pathAndBody[1].isEmpty() ? null : pathAndBody[1], token);
            assertThat(r.statusCode()).as(c.getKey()).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(c.getKey()).contains(c.getValue());
        }
        assertThat(current()).as("nothing was taken").isEqualTo(before);
        HttpResponse<String> thousand = send("POST", next + "?count=1000", null, token);
        assertThat(json(thousand).get("formatted")).as("every number of the block, formatted").hasSize(1000);
    }

    @Test
    void anIdempotencyKeyIsTheSendersOwn_anotherUsersSameKeyGetsNumbersOfItsOwn() throws Exception {
        String key = "wf-" + UUID.randomUUID();
        long alices = json(sendKeyed(key, token)).get("first").asLong();
        long bobs = json(sendKeyed(key, otherToken)).get("first").asLong();
        assertThat(bobs).as("not alice's number").isNotEqualTo(alices);
        assertThat(json(sendKeyed(key, token)).get("first").asLong()).as("alice's retry: hers").isEqualTo(alices);
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

    @Test
    void aWorkflowRetryWithTheSameIdempotencyKey_getsTheNumberFirstIssued_andTheSeriesHasNoGap() throws Exception {
        var d = engine.session("admin", Set.of(DispensersConfig.DEFAULT_ADMIN_ROLE)).dispensers().get(dispenser);
        long before = d.current();
        String key = "order-" + UUID.randomUUID();
        // The first call is cut: the client sends it and closes the connection without reading the answer.
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", server.port())) {
            socket.getOutputStream().write(("POST /api/dispensers/" + dispenser + "/next HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    + "Authorization: Bearer " + token + "\r\nIdempotency-Key: " + key + "\r\nContent-Length: 0\r\n\r\n")
                    .getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
        }
        org.awaitility.Awaitility.await("the server commits the cut call").atMost(java.time.Duration.ofSeconds(30))
                .until(() -> d.current() == before + 1);
        HttpResponse<String> retry = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                        + "/api/dispensers/" + dispenser + "/next")).POST(HttpRequest.BodyPublishers.noBody())
                .header("Authorization", "Bearer " + token).header("Idempotency-Key", key).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(retry.statusCode()).isEqualTo(200);
        assertThat(json(retry).get("first").asLong()).as("the number the cut call took").isEqualTo(before + 1);
        assertThat(d.current()).isEqualTo(before + 1);
        assertThat(json(send("POST", "/api/dispensers/" + dispenser + "/next", null, token)).get("first").asLong())
                .as("the series goes on with no gap").isEqualTo(before + 2);
    }
}
