package dev.turnstile.samples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The server's users: bearer tokens mapped to a user name and roles, from a YAML file
 * ({@code users: {alice: {token: …, roles: [dispenser-admin]}}}) or, without one, demo users with
 * random tokens printed at start-up.
 */
public final class ServerUsers {
    /** A user the server authenticated. */
    public record User(String name, Set<String> roles) {
    }

    private final Map<String, User> byToken;

    private ServerUsers(Map<String, User> byToken) {
        this.byToken = Map.copyOf(byToken);
    }

    public static ServerUsers read(Path file) throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        JsonNode users = root == null ? null : root.get("users");
        if (users == null || !users.isObject() || users.isEmpty()) {
            throw new IllegalArgumentException(file + ": users: must map each user name to {token, roles}");
        }
        Map<String, User> byToken = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : users.properties()) {
            String token = e.getValue().path("token").asText("");
            if (token.length() < 16) {
                throw new IllegalArgumentException(file + ": users." + e.getKey() + ".token: must be at least 16 characters");
            }
            Set<String> roles = new TreeSet<>();
            e.getValue().path("roles").forEach(r -> roles.add(r.asText()));
            if (byToken.put(token, new User(e.getKey(), roles)) != null) {
                throw new IllegalArgumentException(file + ": users." + e.getKey() + ".token: used by two users");
            }
        }
        return new ServerUsers(byToken);
    }

    /** Demo users {@code name → roles} with fresh random tokens. */
    public static ServerUsers demo(Map<String, Set<String>> users) {
        SecureRandom random = new SecureRandom();
        Map<String, User> byToken = new LinkedHashMap<>();
        users.forEach((name, roles) -> {
            byte[] bytes = new byte[24];
            random.nextBytes(bytes);
            byToken.put(Base64.getUrlEncoder().withoutPadding().encodeToString(bytes), new User(name, roles));
        });
        return new ServerUsers(byToken);
    }

    /** The user of a bearer token; compared in constant time so a token cannot be guessed by timing. */
    public Optional<User> authenticate(String token) {
        if (token == null) {
            return Optional.empty();
        }
        byte[] given = token.getBytes(StandardCharsets.UTF_8);
        User found = null;
        for (Map.Entry<String, User> e : byToken.entrySet()) {
            if (MessageDigest.isEqual(given, e.getKey().getBytes(StandardCharsets.UTF_8))) {
                found = e.getValue();
            }
        }
        return Optional.ofNullable(found);
    }

    public Map<String, User> tokens() {
        return byToken;
    }
}
