package dev.turnstile.samples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.turnstile.samples.server.ServerUsers;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two {@code serve} processes on one PostgreSQL database share the edit locks: a lock taken
 * through one is refused, seen and released through the other.
 */
@Tag("multi-process")
class TwoServeProcessesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newHttpClient();

    private static String env(String name, String fallback) {
        String v = System.getenv(name);
        return v == null || v.isBlank() ? fallback : v;
    }

    /** A serve process and the port it printed. */
    private record Serve(Process process, int port) {
    }

    private static Serve serve(Path config, Path users) throws Exception {
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve", "--port", "0",
                "--config", config.toString(), "--users", users.toString())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line = CompletableFuture.supplyAsync(() -> {
            try {
                for (String l; (l = out.readLine()) != null; ) {
                    if (l.startsWith("Turnstile serving on http://127.0.0.1:")) {
                        return l;
                    }
                }
                return null;
            } catch (java.io.IOException e) {
                return null;
            }
        }).get(90, TimeUnit.SECONDS);
        assertThat(line).as("serve started").isNotNull();
        String rest = line.substring("Turnstile serving on http://127.0.0.1:".length());
        return new Serve(p, Integer.parseInt(rest.substring(0, rest.indexOf(' '))));
    }

    private HttpResponse<String> send(Serve s, String method, String path, String body, String token) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + path))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .header("Authorization", "Bearer " + token).header("Content-Type", "application/json").build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void twoServeProcessesOnOnePostgresDatabase_shareTheEditLocks(@TempDir Path dir) throws Exception {
        String alice = "alice-token-" + UUID.randomUUID();
        String bob = "bob-token-" + UUID.randomUUID();
        Path users = dir.resolve("users.yaml");
        Files.writeString(users, "users:\n  alice:\n    tokenDigest: \"" + ServerUsers.tokenDigest(alice) + "\"\n  bob:\n    tokenDigest: \""
                + ServerUsers.tokenDigest(bob) + "\"\n");
        Path config = dir.resolve("turnstile.yaml");
        Files.writeString(config, "database:\n  url: \"" + env("TURNSTILE_PG_URL", "jdbc:postgresql://127.0.0.1:5432/test") + "\"\n"
                + "  username: \"" + env("TURNSTILE_PG_USER", "postgres") + "\"\n"
                + "  password: \"" + env("TURNSTILE_PG_PASSWORD", "") + "\"\n");
        List<Serve> serves = new ArrayList<>();
        try {
            serves.add(serve(config, users));
            serves.add(serve(config, users));
            Serve one = serves.get(0);
            Serve two = serves.get(1);
            String article = "/api/articles/wiki/two-" + UUID.randomUUID().toString().substring(0, 8);
            HttpResponse<String> created = send(one, "PUT", article, "{\"html\": \"<p>One.</p><p>Two.</p>\"}", alice);
            assertThat(created.statusCode()).isEqualTo(201);
            JsonNode paragraphs = JSON.readTree(created.body()).get("paragraphs");
            String p1 = paragraphs.get(0).asText();
            String p2 = paragraphs.get(1).asText();

            HttpResponse<String> aliceLock = send(one, "POST", article + "/locks", "{\"paragraphs\": [\"" + p1 + "\"]}", alice);
            assertThat(aliceLock.statusCode()).isEqualTo(200);
            String aliceLockId = JSON.readTree(aliceLock.body()).get("locks").get(0).get("lockId").asText();
            HttpResponse<String> refused = send(two, "POST", article + "/locks", "{\"paragraphs\": [\"" + p1 + "\"]}", bob);
            assertThat(refused.statusCode()).isEqualTo(409);
            assertThat(JSON.readTree(refused.body()).get("holder").asText()).isEqualTo("alice");
            assertThat(send(two, "POST", article + "/locks", "{\"paragraphs\": [\"" + p2 + "\"]}", bob).statusCode()).isEqualTo(200);

            JsonNode seenByOne = JSON.readTree(send(one, "GET", article, null, alice).body()).get("paragraphLocks");
            assertThat(seenByOne.get(p1).get("user").asText()).isEqualTo("alice");
            assertThat(seenByOne.get(p2).get("user").asText()).isEqualTo("bob");

            assertThat(send(two, "POST", "/api/locks/" + aliceLockId + "/release", "{}", alice).statusCode()).isEqualTo(204);
            assertThat(send(two, "POST", article + "/locks", "{\"paragraphs\": [\"" + p1 + "\"]}", bob).statusCode()).isEqualTo(200);
        } finally {
            for (Serve s : serves) {
                s.process().destroy();
                s.process().waitFor(30, TimeUnit.SECONDS);
            }
        }
    }
}
