package dev.turnstile.samples.server;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import org.springframework.security.crypto.bcrypt.BCrypt;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * The server's users: API tokens (bearer) mapped to a user name and roles, and bcrypt password
 * hashes for the web page's login, from a YAML file that keeps no secret in plain text — each API
 * token as its SHA-256 digest, as a password as its bcrypt hash
 * ({@code users: {alice: {tokenDigest: "sha256:…", passwordHash: "$2a$12$…", roles: [dispenser-admin]}}};
 * add users with {@code serve add-user}, which prints the token once) or, without one, demo users
 * with random tokens and passwords.
 */
public final class ServerUsers {
    /** bcrypt's cost for new hashes: about 0.25 s per check on this kind of machine. */
    static final int BCRYPT_COST = 12;

    /** A user the server authenticated. */
    public record User(String name, Set<String> roles) {
    }

    private static final String DIGEST_PREFIX = "sha256:";

    private final Map<String, User> byDigest;
    private final Map<String, User> byName = new HashMap<>();
    private final Map<String, String> passwordHashes;
    /** The demo users' tokens and passwords, for the demo's start-up lines and tests; empty with a users file. */
    private final Map<String, User> demoTokens;
    private final Map<String, String> demoPasswords;
    /**
     * Checked against when the user is unknown, at the cost of the users' own hashes, so a wrong name
     * costs as long as a wrong password (a fixed cost 12 answered an unknown demo name in 2.2 s and a
     * known one, cost 4, in 10 ms: who exists could be read off the clock).
     */
    private final String noUserHash;

    private ServerUsers(Map<String, User> byDigest, Map<String, String> passwordHashes, Map<String, User> demoTokens,
                        Map<String, String> demoPasswords) {
        this.byDigest = Map.copyOf(byDigest);
        this.passwordHashes = Map.copyOf(passwordHashes);
        this.demoTokens = Map.copyOf(demoTokens);
        this.demoPasswords = Map.copyOf(demoPasswords);
        int cost = passwordHashes.values().stream().mapToInt(ServerUsers::cost).max().orElse(BCRYPT_COST);
        this.noUserHash = BCrypt.hashpw("no such user", BCrypt.gensalt(cost));
        byDigest.values().forEach(user -> byName.put(user.name(), user));
    }

    public static ServerUsers read(Path file) throws IOException {
        JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(Files.readString(file));
        JsonNode users = root == null ? null : root.get("users");
        if (users == null || !users.isObject() || users.isEmpty()) {
            throw new IllegalArgumentException(file + ": users: must map each user name to {token, passwordHash, roles}");
        }
        Map<String, User> byDigest = new LinkedHashMap<>();
        Map<String, String> hashes = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : users.properties()) {
            String key = file + ": users." + e.getKey();
            if (e.getValue().has("password")) {
                throw new IllegalArgumentException(key + ".password: plaintext passwords are not accepted; write passwordHash"
                        + " instead (serve add-user --users " + file + " --name " + e.getKey() + " makes one)");
            }
            String hash = e.getValue().path("passwordHash").asText("");
            if (!hash.isEmpty()) {
                if (!hash.matches("\\$2[aby]\\$\\d\\d\\$[./A-Za-z0-9]{53}")) {
                    throw new IllegalArgumentException(key + ".passwordHash: not a bcrypt hash ($2a$, $2b$ or $2y$, cost, 53"
                            + " characters of salt and hash)");
                }
                hashes.put(e.getKey(), hash);
            }
            if (e.getValue().has("token")) {
                throw new IllegalArgumentException(key + ".token: plaintext API tokens are not accepted; write tokenDigest"
                        + " instead (\"" + DIGEST_PREFIX + "\" and the token's SHA-256 in hex; serve add-user --users " + file
                        + " --name " + e.getKey() + " makes a new token and writes its digest)");
            }
            String digest = e.getValue().path("tokenDigest").asText("");
            if (!digest.matches(DIGEST_PREFIX + "[0-9a-f]{64}")) {
                throw new IllegalArgumentException(key + ".tokenDigest: must be \"" + DIGEST_PREFIX + "\" and 64 lower-case hex"
                        + " digits (the API token's SHA-256)");
            }
            Set<String> roles = new TreeSet<>();
            e.getValue().path("roles").forEach(r -> roles.add(r.asText()));
            if (byDigest.put(digest.substring(DIGEST_PREFIX.length()), new User(e.getKey(), roles)) != null) {
                throw new IllegalArgumentException(key + ".tokenDigest: used by two users");
            }
        }
        return new ServerUsers(byDigest, hashes, Map.of(), Map.of());
    }

    /** Demo users {@code name → roles} with fresh random tokens and passwords (hashed like any other). */
    public static ServerUsers demo(Map<String, Set<String>> users) {
        SecureRandom random = new SecureRandom();
        Map<String, User> byToken = new LinkedHashMap<>();
        Map<String, User> byDigest = new LinkedHashMap<>();
        Map<String, String> hashes = new LinkedHashMap<>();
        Map<String, String> passwords = new LinkedHashMap<>();
        users.forEach((name, roles) -> {
            String token = randomText(random, 24);
            byToken.put(token, new User(name, roles));
            byDigest.put(digest(token), new User(name, roles));
            String password = randomText(random, 9);
            passwords.put(name, password);
            hashes.put(name, BCrypt.hashpw(password, BCrypt.gensalt(4))); // demo only: cheap hashes, fast start
        });
        return new ServerUsers(byDigest, hashes, byToken, passwords);
    }

    static String randomText(SecureRandom random, int bytes) {
        byte[] b = new byte[bytes];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** A bcrypt hash's cost: {@code $2a$12$…} is 12. */
    public static int cost(String hash) {
        return Integer.parseInt(hash.substring(4, 6));
    }

    /** The hash an unknown name is checked against: the cost of the users' own. */
    public String noUserHash() {
        return noUserHash;
    }

    /** A new random API token. */
    public static String newToken() {
        return randomText(new SecureRandom(), 24);
    }

    /** A bcrypt hash of {@code password} for a users file. */
    public static String hash(String password) {
        return BCrypt.hashpw(password, BCrypt.gensalt(BCRYPT_COST));
    }

    /** The user, if the password is right; as slow for an unknown name as for a wrong password. */
    public Optional<User> login(String name, String password) {
        String hash = name == null ? null : passwordHashes.get(name);
        // bcrypt reads at most 72 bytes (and this implementation refuses more): such a password is just wrong.
        boolean usable = password != null && password.getBytes(StandardCharsets.UTF_8).length <= 72;
        boolean right = BCrypt.checkpw(usable ? password : "", hash == null ? noUserHash : hash) && usable;
        if (!right || hash == null) {
            return Optional.empty();
        }
        return Optional.ofNullable(byName.get(name));
    }

    /** The demo users' passwords (empty when the users came from a file, whose passwords only their owners know). */
    public Map<String, String> passwords() {
        return demoPasswords;
    }

    /**
     * The user of a bearer token. Looked up by the token's SHA-256, so the lookup's timing says
     * nothing useful about the token, and one lookup costs the same with ten or ten thousand users.
     */
    public Optional<User> authenticate(String token) {
        return token == null ? Optional.empty() : Optional.ofNullable(byDigest.get(digest(token)));
    }

    /** What a users file keeps of an API token: {@code sha256:} and its SHA-256 in hex. */
    public static String tokenDigest(String token) {
        return DIGEST_PREFIX + digest(token);
    }

    private static String digest(String token) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The demo users' API tokens (empty when the users came from a file, which keeps only their digests). */
    public Map<String, User> demoTokens() {
        return demoTokens;
    }

    /** How many users there are. */
    public int size() {
        return byName.size();
    }
}
