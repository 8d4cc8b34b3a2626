package dev.turnstile.samples;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;
import dev.turnstile.api.ExceptionCode;
import dev.turnstile.api.editlock.EditLockConfig;
import dev.turnstile.api.editlock.EditLocks;
import dev.turnstile.api.editlock.EditLocksConfig;
import dev.turnstile.api.editlock.EditResource;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** Starts the HTTP server on localhost until the process is stopped. */
@Command(name = "serve", description = "JSON over HTTP on localhost: dispensers for workflows, the article page with edit locks.",
        subcommands = ServeCommand.AddUser.class)
final class ServeCommand implements Callable<Integer> {
    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--port", defaultValue = "8080", description = "port on 127.0.0.1; 0 picks a free one (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--users", paramLabel = "FILE",
            description = "YAML with users: {name: {tokenDigest, passwordHash, roles}} (serve add-user writes one); without it,"
                    + " demo users with random tokens are printed")
    Path usersFile;

    static final String DEMO_TYPE = "wiki";
    static final String DEMO_ARTICLE = "welcome";

    @Override
    public Integer call() throws Exception {
        EngineConfig config = engineOptions.config();
        if (!config.editLocks().types().containsKey(DEMO_TYPE)) {
            // The demo wiki: the paper's settings with paragraph locks on.
            config = EngineConfig.from(config).editLocks(EditLocksConfig.from(config.editLocks()).type(DEMO_TYPE, new EditLockConfig(Duration.ofMinutes(2), Duration.ofHours(1),
                    true, List.of("p", "pre"), 20)).build()).build();
        }
        ServerUsers users;
        if (usersFile != null) {
            users = ServerUsers.read(usersFile);
        } else {
            Map<String, Set<String>> demo = new LinkedHashMap<>();
            demo.put("alice", Set.of());
            demo.put("bob", Set.of());
            demo.put("workflow", Set.of(config.dispensers().adminRole()));
            users = ServerUsers.demo(demo);
        }
        ContentEngine engine = ContentEngine.open(config);
        demoArticle(engine.editLocks());
        TurnstileServer server = new TurnstileServer(engine, users).start(port);
        System.out.println("Turnstile serving on http://127.0.0.1:" + server.port() + " (" + config.jdbcUrl() + ")");
        if (usersFile == null) {
            // Demo users exist only in this process: their secrets are printed once, or nobody could log in.
            users.demoTokens().forEach((token, user) -> System.out.println("  demo user " + user.name() + " " + user.roles()
                    + ": Authorization: Bearer " + token + ", password " + users.passwords().get(user.name())));
        } else {
            System.out.println("  users from " + usersFile + " (" + users.size() + ")");
        }
        System.out.println("Edit the demo article in two browsers (one per user): http://127.0.0.1:" + server.port()
                + "/edit/" + DEMO_TYPE + "/" + DEMO_ARTICLE);
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            engine.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }

    /** The wiki article the README's two-browser walk-through edits; made once. */
    static void demoArticle(EditLocks locks) {
        try {
            locks.article(EditResource.article(DEMO_TYPE, DEMO_ARTICLE));
        } catch (EngineRuntimeException e) {
            if (e.getExceptionCode() != ExceptionCode.E_OBJECT_NOT_FOUND) {
                throw e;
            }
            locks.createArticle(DEMO_TYPE, DEMO_ARTICLE, "<h1>Cities</h1><p>Beijing is the capital of China.</p>"
                    + "<p>Shanghai is its largest city.</p><p>Shenzhen borders Hong Kong.</p><pre>population: 21.9 million</pre>");
        }
    }

    /**
     * Writes the users file readable and writable by its owner only (0600, where the file system
     * has POSIX permissions): it holds API tokens. A file made elsewhere is narrowed too.
     */
    static void writeOwnerOnly(Path file, String text) throws IOException {
        boolean posix = Files.getFileStore(file.toAbsolutePath().getParent()).supportsFileAttributeView("posix");
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
        if (posix && !Files.exists(file)) {
            Files.createFile(file, PosixFilePermissions.asFileAttribute(ownerOnly)); // never readable by others, not even for a moment
        } else if (posix) {
            Files.setPosixFilePermissions(file, ownerOnly);
        }
        Files.writeString(file, text);
    }

    /**
     * {@code serve add-user --users FILE --name NAME [--role R]…}: adds a user (or replaces its
     * password and token) with a bcrypt hash of a password read from standard input, and a fresh
     * API token printed once. The file keeps no plaintext: the token's SHA-256, the password's bcrypt hash.
     */
    @Command(name = "add-user", description = "Add a user to a users file: bcrypt password hash (password read from standard input)"
            + " and a new API token, printed once.")
    static final class AddUser implements Callable<Integer> {
        @Option(names = "--users", required = true, paramLabel = "FILE", description = "the users YAML file (created if missing)")
        Path usersFile;

        @Option(names = "--name", required = true, description = "the user name")
        String name;

        @Option(names = "--role", description = "a role (repeatable)")
        List<String> roles = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            String password = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
            if (password == null || password.length() < 8 || password.getBytes(StandardCharsets.UTF_8).length > 72) {
                System.err.println("add-user: the password (first line of standard input) must be 8 to 72 bytes");
                return 2;
            }
            ObjectMapper yaml = new ObjectMapper(new YAMLFactory());
            ObjectNode root = Files.exists(usersFile) ? (ObjectNode) yaml.readTree(usersFile.toFile()) : yaml.createObjectNode();
            ObjectNode users = root.has("users")
                    ? (ObjectNode) root.get("users") : root.putObject("users");
            String token = ServerUsers.newToken();
            ObjectNode user = users.putObject(name);
            user.put("tokenDigest", ServerUsers.tokenDigest(token));
            user.put("passwordHash", ServerUsers.hash(password));
            roles.forEach(user.putArray("roles")::add);
            if (roles.isEmpty()) {
                user.remove("roles");
            }
            writeOwnerOnly(usersFile, yaml.writeValueAsString(root));
            ServerUsers.read(usersFile); // what serve will read: refuse now rather than at start-up
            System.out.println("user " + name + " written to " + usersFile + "; API token (shown once): " + token);
            return 0;
        }
    }
}
