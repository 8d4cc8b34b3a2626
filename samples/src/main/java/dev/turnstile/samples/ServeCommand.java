package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.samples.server.ServerUsers;
import dev.turnstile.samples.server.TurnstileServer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/** Starts the HTTP server on localhost until the process is stopped. */
@Command(name = "serve", description = "JSON over HTTP on localhost: dispensers for workflows.")
final class ServeCommand implements Callable<Integer> {
    @Mixin
    EngineOptions engineOptions;

    @Option(names = "--port", defaultValue = "8080", description = "port on 127.0.0.1; 0 picks a free one (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--users", paramLabel = "FILE",
            description = "YAML with users: {name: {token, roles}}; without it, demo users with random tokens are printed")
    Path usersFile;

    @Override
    public Integer call() throws Exception {
        EngineConfig config = engineOptions.config();
        ServerUsers users;
        if (usersFile != null) {
            users = ServerUsers.read(usersFile);
        } else {
            Map<String, Set<String>> demo = new LinkedHashMap<>();
            demo.put("alice", Set.of());
            demo.put("bob", Set.of());
            demo.put("workflow", Set.of(config.dispenserAdminRole()));
            users = ServerUsers.demo(demo);
        }
        ContentEngine engine = ContentEngine.open(config);
        TurnstileServer server = new TurnstileServer(engine, users).start(port);
        System.out.println("Turnstile serving on http://127.0.0.1:" + server.port() + " (" + config.jdbcUrl() + ")");
        users.tokens().forEach((token, user) -> System.out.println("  user " + user.name() + " " + user.roles()
                + ": Authorization: Bearer " + token));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            server.close();
            engine.close();
            stopped.countDown();
        }));
        stopped.await();
        return 0;
    }
}
