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
    /** Passwords by user name, for the web page's login; a user without one logs in only by token. */
    private final Map<String, String> passwords;

    private final Map<String, User> byDigest = new java.util.HashMap<>();

    private ServerUsers(Map<String, User> byToken, Map<String, String> passwords) {
        this.byToken = Map.copyOf(byToken);
        this.passwords = Map.copyOf(passwords);
        byToken.forEach((token, user) -> byDigest.put(digest(token), user));
    }

    public static ServerUsers read(Path file) throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        JsonNode users = root == null ? null : root.get("users");
        if (users == null || !users.isObject() || users.isEmpty()) {
            throw new IllegalArgumentException(file + ": users: must map each user name to {token, roles}");
        }
        Map<String, User> byToken = new LinkedHashMap<>();
        Map<String, String> passwords = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : users.properties()) {
            String password = e.getValue().path("password").asText("");
            if (!password.isEmpty()) {
                if (password.length() < 8) {
                    throw new IllegalArgumentException(file + ": users." + e.getKey() + ".password: must be at least 8 characters");
                }
                passwords.put(e.getKey(), password);
            }
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
        return new ServerUsers(byToken, passwords);
    }

    /** Demo users {@code name → roles} with fresh random tokens and passwords. */
    public static ServerUsers demo(Map<String, Set<String>> users) {
        SecureRandom random = new SecureRandom();
        Map<String, User> byToken = new LinkedHashMap<>();
        Map<String, String> passwords = new LinkedHashMap<>();
        users.forEach((name, roles) -> {
            byToken.put(randomText(random, 24), new User(name, roles));
            passwords.put(name, randomText(random, 9));
        });
        return new ServerUsers(byToken, passwords);
    }

    private static String randomText(SecureRandom random, int bytes) {
        byte[] b = new byte[bytes];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The user's token if the password is right (compared in constant time). */
    public Optional<String> login(String name, String password) {
        String expected = name == null ? null : passwords.get(name);
        if (expected == null || password == null
                || !MessageDigest.isEqual(expected.getBytes(StandardCharsets.UTF_8), password.getBytes(StandardCharsets.UTF_8))) {
            return Optional.empty();
        }
        return byToken.entrySet().stream().filter(e -> e.getValue().name().equals(name)).map(Map.Entry::getKey).findFirst();
    }

    public Map<String, String> passwords() {
        return passwords;
    }

    /**
     * The user of a bearer token. Looked up by the token's SHA-256, so the lookup's timing says
     * nothing useful about the token, and one lookup costs the same with ten or ten thousand users.
     */
    public Optional<User> authenticate(String token) {
        return token == null ? Optional.empty() : Optional.ofNullable(byDigest.get(digest(token)));
    }

    private static String digest(String token) {
        try {
            return java.util.HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public Map<String, User> tokens() {
        return byToken;
    }
}
