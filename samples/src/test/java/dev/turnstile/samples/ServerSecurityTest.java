package dev.turnstile.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.editlock.Article;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.api.treelock.TreeLockHandle;
import dev.turnstile.api.treelock.TreeLockRequest;
import dev.turnstile.api.treelock.TreePath;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import picocli.CommandLine;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The server as an attacker meets it, over a real socket: cross-site requests with the victim's
 * cookie, stolen and old sessions, password guessing, plaintext password files, and requests that
 * used to get HTML or a 503 instead of a JSON error.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerSecurityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();
    private final MovableClock clock = new MovableClock(Instant.parse("2026-12-01T09:00:00Z"));
    private ContentEngine engine;
    private ServerUsers users;
    private TurnstileServer server;
    private String articleId;
    private String paragraph;

    /** A clock the test moves; the server's sessions and throttles read it. */
    static final class MovableClock extends Clock {
        private final AtomicReference<Instant> now;

        MovableClock(Instant start) {
            now = new AtomicReference<>(start);
        }

        void advance(Duration d) {
            now.updateAndGet(t -> t.plus(d));
        }

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now.get();
        }
    }

    @BeforeAll
    void start() {
        engine = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "server-security").toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .editLocks(EditLocksConfig.builder().type("wiki", new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 20)).build())
                .build());
        Map<String, Set<String>> demo = new LinkedHashMap<>();
        demo.put("alice", Set.of());
        demo.put("bob", Set.of());
        demo.put("carol", Set.of());
        demo.put("olga", Set.of("lock-breaker"));
        users = ServerUsers.demo(demo);
        server = new TurnstileServer(engine, users, clock).start(0);
        articleId = "sec-" + UUID.randomUUID().toString().substring(0, 8);
        Article a = engine.session("setup").editLocks().createArticle("wiki", articleId, "<p>One.</p><p>Two.</p>");
        paragraph = a.paragraphs().get(0).id();
    }

    @AfterAll
    void stop() {
        server.close();
        engine.close();
    }

    private String url(String path) {
        return "http://127.0.0.1:" + server.port() + path;
    }

    private HttpResponse<String> send(String method, String path, String body, String... headers) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url(path)))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A login as the page does it: the session cookie and the CSRF token. */
    private record Login(String cookie, String csrf) {
    }

    private Login login(String user) throws Exception {
        HttpResponse<String> r = send("POST", "/login", "{\"user\": \"" + user + "\", \"password\": \"" + users.passwords().get(user) + "\"}",
                "Content-Type", "application/json");
        assertThat(r.statusCode()).isEqualTo(200);
        String cookie = r.headers().firstValue("Set-Cookie").orElseThrow();
        return new Login(cookie.substring(0, cookie.indexOf(';')), JSON.readTree(r.body()).get("csrf").asText());
    }

    private HttpResponse<String> lockParagraph(Login l, String... more) throws Exception {
        String[] headers = new String[4 + more.length];
        headers[0] = "Cookie";
        headers[1] = l.cookie();
        headers[2] = "Content-Type";
        headers[3] = "application/json";
        System.arraycopy(more, 0, headers, 4, more.length);
        return send("POST", "/api/articles/wiki/" + articleId + "/locks", "{\"paragraphs\": [\"" + paragraph + "\"]}", headers);
    }

    private void assertJsonError(HttpResponse<String> r, int status, String code, String... messageParts) throws Exception {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
        JsonNode body = JSON.readTree(r.body());
        assertThat(body.get("code").asText()).isEqualTo(code);
        assertThat(body.get("error").asText()).isNotBlank();
        for (String part : messageParts) {
            assertThat(body.get("error").asText()).contains(part);
        }
    }

    private void assertNothingLocked() {
        assertThat(engine.editLocks().status(EditResource.article("wiki", articleId)).paragraphLocks()).isEmpty();
    }

    /** Issue 43: any signed-in editor saw every user's locks and the feed clients on the console. */
    @Test
    void theConsole_showsAnEditorOnlyTheLocksTheyHold_andAnOperatorEveryones() throws Exception {
        String bobsId = engine.session("bob").editLocks().tryLock(EditResource.paragraph("wiki", articleId, paragraph)).granted().lock()
                .lockToken();
        TreePath site = TreePath.root("site", "console-" + UUID.randomUUID().toString().substring(0, 8));
        TreeLockHandle bobsTree = engine.session("bob").treeLocks().tryLock(TreeLockRequest.exclusive(site)).orElseThrow();
        TreeLockHandle carolsTree = engine.session("carol").treeLocks().tryLock(TreeLockRequest.exclusive(
                TreePath.root("site", "carol-" + UUID.randomUUID().toString().substring(0, 8)))).orElseThrow();
        try {
            JsonNode carols = JSON.readTree(send("GET", "/api/console", null, "Cookie", login("carol").cookie()).body());
            assertThat(carols.get("scope").asText()).isEqualTo("own");
            assertThat(carols.get("editLocks").get("items")).as("bob's paragraph lock, not carol's to see").isEmpty();
            assertThat(carols.get("treeLocks").findValuesAsText("owner")).containsOnly("carol");
            assertThat(carols.get("feedClients").isNull()).isTrue();
            assertThat(carols.get("feedClientsRefused").asText())
                    .isEqualTo("carol may not see the change feed's clients: that needs one of the roles lock-breaker, dispenser-admin, operator");

            JsonNode bobs = JSON.readTree(send("GET", "/api/console", null, "Cookie", login("bob").cookie()).body());
            assertThat(bobs.get("editLocks").findValuesAsText("user")).containsExactly("bob");
            assertThat(bobs.get("treeLocks").findValuesAsText("owner")).containsOnly("bob");

            JsonNode olgas = JSON.readTree(send("GET", "/api/console", null, "Cookie", login("olga").cookie()).body());
            assertThat(olgas.get("scope").asText()).isEqualTo("everyone");
            assertThat(olgas.get("editLocks").findValuesAsText("user")).contains("bob");
            assertThat(olgas.get("treeLocks").findValuesAsText("owner")).contains("bob", "carol");
            assertThat(olgas.get("feedClients").get("items").isArray()).isTrue();
        } finally {
            bobsTree.unlock();
            carolsTree.unlock();
            engine.session("bob").editLocks().unlock(bobsId);
        }
    }

    @Test
    void aCrossSiteRequestWithTheVictimsCookie_isRefused_andLocksNothing() throws Exception {
        Login alice = login("alice");
        // A form on another site can post text/plain with the cookie; it cannot set JSON or the token.
        HttpResponse<String> form = send("POST", "/api/articles/wiki/" + articleId + "/locks", "{\"paragraphs\": [\"" + paragraph + "\"]}",
                "Cookie", alice.cookie(), "Content-Type", "text/plain", "Origin", "https://evil.example");
        assertJsonError(form, 403, "FORBIDDEN", "must be JSON");
        assertJsonError(lockParagraph(alice, "Origin", "https://evil.example", "X-CSRF-Token", alice.csrf()), 403, "FORBIDDEN",
                "cross-origin request refused (Origin https://evil.example");
        assertJsonError(lockParagraph(alice, "Sec-Fetch-Site", "cross-site", "X-CSRF-Token", alice.csrf()), 403, "FORBIDDEN",
                "Sec-Fetch-Site: cross-site");
        assertJsonError(lockParagraph(alice), 403, "FORBIDDEN", "missing or wrong X-CSRF-Token");
        assertJsonError(lockParagraph(alice, "X-CSRF-Token", login("bob").csrf()), 403, "FORBIDDEN", "X-CSRF-Token");
        assertNothingLocked();

        HttpResponse<String> page = lockParagraph(alice, "Origin", url("").replaceAll("/$", ""), "Sec-Fetch-Site", "same-origin",
                "X-CSRF-Token", alice.csrf());
        assertThat(page.statusCode()).isEqualTo(200);
        String lockId = JSON.readTree(page.body()).get("locks").get(0).get("lockId").asText();
        engine.session("alice").editLocks().unlock(lockId);
    }

    @Test
    void theCookieIsASessionNotAToken_logoutEndsIt_andSessionsExpire() throws Exception {
        Login alice = login("alice");
        String value = alice.cookie().substring(alice.cookie().indexOf('=') + 1);
        assertThat(users.demoTokens()).doesNotContainKey(value);
        assertThat(send("GET", "/api/session", null, "Cookie", alice.cookie()).statusCode()).isEqualTo(200);
        assertThat(send("GET", "/api/session", null, "Authorization", "Bearer " + value).statusCode())
                .as("a session id is no API token").isEqualTo(401);

        HttpResponse<String> out = send("POST", "/logout", "{}", "Cookie", alice.cookie(), "Content-Type", "application/json");
        assertThat(out.statusCode()).isEqualTo(204);
        assertThat(out.headers().firstValue("Set-Cookie").orElseThrow()).contains("Max-Age=0");
        assertJsonError(send("GET", "/api/session", null, "Cookie", alice.cookie()), 401, "UNAUTHORIZED", "authentication required");

        Login idle = login("alice");
        clock.advance(Duration.ofMinutes(29));
        assertThat(send("GET", "/api/session", null, "Cookie", idle.cookie()).statusCode()).isEqualTo(200);
        clock.advance(Duration.ofMinutes(30));
        assertThat(send("GET", "/api/session", null, "Cookie", idle.cookie()).statusCode()).as("30 min idle").isEqualTo(401);

        Login busy = login("alice");
        for (int i = 0; i < 35; i++) { // active every 20 minutes, for 11 h 40 min
            clock.advance(Duration.ofMinutes(20));
            assertThat(send("GET", "/api/session", null, "Cookie", busy.cookie()).statusCode()).isEqualTo(200);
        }
        clock.advance(Duration.ofMinutes(20));
        assertThat(send("GET", "/api/session", null, "Cookie", busy.cookie()).statusCode()).as("12 h in all").isEqualTo(401);
    }

    @Test
    void guessingPasswords_isThrottledByNameAndByAddress_andARightPasswordWaitsToo() throws Exception {
        String wrong = "{\"user\": \"bob\", \"password\": \"guess\"}";
        for (int i = 0; i < 6; i++) {
            assertJsonError(send("POST", "/login", wrong, "Content-Type", "application/json"), 401, "UNAUTHORIZED", "wrong user or password");
        }
        HttpResponse<String> throttled = send("POST", "/login", "{\"user\": \"bob\", \"password\": \"" + users.passwords().get("bob") + "\"}",
                "Content-Type", "application/json");
        assertJsonError(throttled, 429, "TOO_MANY_REQUESTS", "too many wrong passwords");
        assertThat(throttled.headers().firstValue("Retry-After")).contains("1");
        clock.advance(Duration.ofSeconds(1));
        assertThat(login("bob").csrf()).isNotBlank(); // the right password, after the wait, and the door opens again
        for (int i = 0; i < 60; i++) {
            send("POST", "/login", wrong, "Content-Type", "application/json");
        }
        assertThat(send("POST", "/login", wrong, "Content-Type", "application/json").statusCode()).isEqualTo(429);
        clock.advance(Duration.ofMinutes(15));
    }

    @Test
    void oneUsersWrongPasswords_neverLockOutAnother_fromTheSameAddress_andRetryAfterIsRoundedUp() throws Exception {
        try {
            String aliceGuesses = "{\"user\": \"alice\", \"password\": \"guess\"}";
            for (int i = 0; i < 60; i++) {
                send("POST", "/login", aliceGuesses, "Content-Type", "application/json");
            }
            assertThat(send("POST", "/login", aliceGuesses, "Content-Type", "application/json").statusCode()).isEqualTo(429);
            assertThat(login("bob").csrf()).as("bob, from the same address: his right password lets him in").isNotBlank();
            String bobGuesses = "{\"user\": \"bob\", \"password\": \"guess\"}";
            for (int i = 0; i < 12; i++) {
                send("POST", "/login", bobGuesses, "Content-Type", "application/json");
            }
            assertThat(login("carol").csrf()).as("bob's guesses lock nobody else out").isNotBlank();
            // bob's door: 1 s after his 6th wrong password; his 7th, a second later, closes it 2 s.
            clock.advance(Duration.ofSeconds(1));
            assertThat(send("POST", "/login", bobGuesses, "Content-Type", "application/json").statusCode()).isEqualTo(401);
            clock.advance(Duration.ofMillis(500));
            HttpResponse<String> throttled = send("POST", "/login", bobGuesses, "Content-Type", "application/json");
            assertThat(throttled.headers().firstValue("Retry-After")).as("1.5 s left: 2 (1 let a client in too early)").contains("2");
        } finally {
            clock.advance(Duration.ofMinutes(15)); // every door this test closed is open again
        }
    }

    @Test
    void anUnknownName_isCheckedAtTheCostOfTheUsersOwnHashes() {
        assertThat(ServerUsers.cost(users.noUserHash())).as("demo users' hashes are cost 4").isEqualTo(4);
    }

    @Test
    void passwordsAreHashed_aPlaintextFileIsRefused_andAddUserWritesAHash(@org.junit.jupiter.api.io.TempDir Path dir) throws Exception {
        Path plain = dir.resolve("plain.yaml");
        Files.writeString(plain, "users:\n  alice:\n    token: 0123456789abcdef0123\n    password: correct horse\n");
        assertThatThrownBy(() -> ServerUsers.read(plain)).hasMessage(plain + ": users.alice.password: plaintext passwords are not"
                + " accepted; write passwordHash instead (serve add-user --users " + plain + " --name alice makes one)");
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "users:\n  alice:\n    token: 0123456789abcdef0123\n    passwordHash: secret\n");
        assertThatThrownBy(() -> ServerUsers.read(bad)).hasMessageContaining(bad + ": users.alice.passwordHash: not a bcrypt hash");

        Path tokenInPlainText = dir.resolve("token.yaml");
        Files.writeString(tokenInPlainText, "users:\n  alice:\n    token: 0123456789abcdef0123\n");
        assertThatThrownBy(() -> ServerUsers.read(tokenInPlainText)).hasMessage(tokenInPlainText + ": users.alice.token: plaintext"
                + " API tokens are not accepted; write tokenDigest instead (\"sha256:\" and the token's SHA-256 in hex; serve add-user"
                + " --users " + tokenInPlainText + " --name alice makes a new token and writes its digest)");
        Path badDigest = dir.resolve("digest.yaml");
        Files.writeString(badDigest, "users:\n  alice:\n    tokenDigest: 0123456789abcdef0123\n");
        assertThatThrownBy(() -> ServerUsers.read(badDigest)).hasMessage(badDigest + ": users.alice.tokenDigest: must be"
                + " \"sha256:\" and 64 lower-case hex digits (the API token's SHA-256)");

        Path file = dir.resolve("users.yaml");
        InputStream stdin = System.in;
        java.io.PrintStream stdout = System.out;
        java.io.ByteArrayOutputStream printed = new java.io.ByteArrayOutputStream();
        try {
            System.setIn(new ByteArrayInputStream("correct horse battery\n".getBytes(StandardCharsets.UTF_8)));
            System.setOut(new java.io.PrintStream(printed, true, StandardCharsets.UTF_8));
            assertThat(new CommandLine(new Main()).execute("serve", "add-user", "--users", file.toString(), "--name", "carol",
                    "--role", "dispenser-admin")).isZero();
        } finally {
            System.setIn(stdin);
            System.setOut(stdout);
        }
        String token = printed.toString(StandardCharsets.UTF_8).replaceAll("(?s).*API token \\(shown once\\): (\\S+).*", "$1");
        String written = Files.readString(file);
        assertThat(written).doesNotContain("correct horse").contains("passwordHash: \"$2a$12$");
        assertThat(written).as("the API token is kept as its digest only").doesNotContain(token)
                .contains("tokenDigest: \"" + ServerUsers.tokenDigest(token) + "\"");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
                .as("it holds API tokens: its owner's only").isEqualTo("rw-------");
        assertThat(ServerUsers.cost(ServerUsers.read(file).noUserHash())).isEqualTo(12);
        ServerUsers fromFile = ServerUsers.read(file);
        assertThat(fromFile.login("carol", "correct horse battery")).get().satisfies(u -> assertThat(u.roles()).containsExactly("dispenser-admin"));
        assertThat(fromFile.login("carol", "wrong")).isEmpty();
        assertThat(fromFile.login("nobody", "correct horse battery")).isEmpty();
        assertThat(fromFile.passwords()).as("nothing to print for file users").isEmpty();
        assertThat(fromFile.authenticate(token)).get().satisfies(u -> assertThat(u.name()).isEqualTo("carol"));
        assertThat(fromFile.authenticate(ServerUsers.tokenDigest(token))).as("the digest is no token").isEmpty();
    }

    @Test
    void everyErrorIsJson_withACode() throws Exception {
        String token = users.demoTokens().keySet().iterator().next();
        assertJsonError(send("GET", "/no/such/page", null), 404, "NOT_FOUND", "GET /no/such/page");
        assertJsonError(send("GET", "/api/nothing-here", null, "Authorization", "Bearer " + token), 404, "NOT_FOUND");
        assertJsonError(send("POST", "/api/articles/wiki/" + articleId + "/locks", "x".repeat((int) TurnstileServer.MAX_BODY_BYTES + 1),
                "Authorization", "Bearer " + token, "Content-Type", "application/json"), 413, "CONTENT_TOO_LARGE");
        assertJsonError(send("POST", "/api/locks/" + "x".repeat(2_000) + "/heartbeat", "{}", "Authorization", "Bearer " + token,
                "Content-Type", "application/json"), 400, "BAD_REQUEST", "not a lock id", "(2000 characters)");
        // What Jetty refuses itself, sent as raw bytes (the JDK client would not send a NUL, and a
        // 414 closes the connection under a pooling client's feet).
        assertThat(raw("GET /api/articles/wiki/" + "a".repeat(20_000))).startsWith("HTTP/1.1 414")
                .containsIgnoringCase("content-type: application/json").contains("\"code\":\"URI_TOO_LONG\"");
        assertThat(raw("GET /edit/wiki/a%00b")).startsWith("HTTP/1.1 400").containsIgnoringCase("content-type: application/json")
                .contains("\"code\":\"BAD_REQUEST\"");
    }

    private String raw(String requestLine) throws Exception {
        try (Socket s = new Socket("127.0.0.1", server.port())) {
            OutputStream out = s.getOutputStream();
            out.write((requestLine + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
            out.flush();
            return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void everyResponseCarriesTheSecurityHeaders() throws Exception {
        for (HttpResponse<String> r : List.of(send("GET", "/edit/wiki/" + articleId, null), send("GET", "/api/session", null),
                send("GET", "/article.js", null))) {
            assertThat(r.headers().firstValue("Content-Security-Policy")).contains(TurnstileServer.CONTENT_SECURITY_POLICY);
            assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
            assertThat(r.headers().firstValue("X-Frame-Options")).contains("DENY");
        }
        assertThat(TurnstileServer.CONTENT_SECURITY_POLICY).contains("script-src 'self';").contains("frame-ancestors 'none'");
    }

    /**
     * A burst on a freshly started server: every request is served — at once, after queueing, or,
     * past the queue's bound, answered 503 with Retry-After and served when sent again after it;
     * never a bare 503 after a pool wait (issue 43).
     */
    private final java.util.concurrent.atomic.AtomicInteger refusedWithoutRetryAfter = new java.util.concurrent.atomic.AtomicInteger();

    /** Sends {@code r}; a 503 is sent again after its Retry-After, as a client is told to. */
    private java.util.concurrent.CompletableFuture<HttpResponse<String>> sendHonouringRetryAfter(HttpRequest r) {
        return http.sendAsync(r, HttpResponse.BodyHandlers.ofString()).thenCompose(response -> {
            if (response.statusCode() != 503) {
                return java.util.concurrent.CompletableFuture.completedFuture(response);
            }
            java.util.Optional<String> after = response.headers().firstValue("Retry-After");
            if (after.isEmpty()) {
                refusedWithoutRetryAfter.incrementAndGet();
                return java.util.concurrent.CompletableFuture.completedFuture(response);
            }
            return java.util.concurrent.CompletableFuture.supplyAsync(() -> null, java.util.concurrent.CompletableFuture.delayedExecutor(
                    Long.parseLong(after.get()), java.util.concurrent.TimeUnit.SECONDS)).thenCompose(x -> sendHonouringRetryAfter(r));
        });
    }

    @Test
    void aBurstOnAFreshlyStartedServer_isServedWhole_anyRefusalSayingWhenToComeBack() throws Exception {
        try (ContentEngine fresh = ContentEngine.open(EngineConfig.builder()
                .jdbcUrl("jdbc:h2:file:" + Path.of("target", "h2", "burst-" + UUID.randomUUID()).toAbsolutePath() + ";AUTO_SERVER=TRUE")
                .editLocks(EditLocksConfig.builder().type("wiki", new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1), true, List.of("p", "pre"), 200)).build())
                .build())) {
            Map<String, Set<String>> many = new LinkedHashMap<>();
            for (int i = 0; i < 32; i++) {
                many.put("u" + i, Set.of());
            }
            ServerUsers burstUsers = ServerUsers.demo(many);
            StringBuilder html = new StringBuilder();
            for (int i = 0; i < 32; i++) {
                html.append("<p>paragraph ").append(i).append("</p>");
            }
            List<String> pids = fresh.session("setup").editLocks().createArticle("wiki", "burst", html.toString()).paragraphs().stream()
                    .map(dev.turnstile.api.editlock.Paragraph::id).toList();
            TurnstileServer burst = new TurnstileServer(fresh, burstUsers, clock).start(0);
            try {
                List<java.util.concurrent.CompletableFuture<HttpResponse<String>>> all = new java.util.ArrayList<>();
                int i = 0;
                for (Map.Entry<String, ServerUsers.User> e : burstUsers.demoTokens().entrySet()) {
                    String pid = pids.get(i++);
                    for (int k = 0; k < 4; k++) {
                        HttpRequest r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + burst.port()
                                        + (k % 2 == 0 ? "/api/articles/wiki/burst/locks" : "/api/articles/wiki/burst")))
                                .method(k % 2 == 0 ? "POST" : "GET", k % 2 == 0
                                        ? HttpRequest.BodyPublishers.ofString("{\"paragraphs\": [\"" + pid + "\"]}")
                                        : HttpRequest.BodyPublishers.noBody())
                                .header("Authorization", "Bearer " + e.getKey()).header("Content-Type", "application/json").build();
                        all.add(sendHonouringRetryAfter(r));
                    }
                }
                List<Integer> statuses = new java.util.ArrayList<>();
                for (var f : all) {
                    statuses.add(f.get(2, java.util.concurrent.TimeUnit.MINUTES).statusCode());
                }
                assertThat(statuses).hasSize(128).allMatch(st -> st == 200);
                assertThat(refusedWithoutRetryAfter).as("a 503 says when to come back").hasValue(0);
            } finally {
                burst.close();
            }
        }
    }
}
