package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/** A child process that opens an engine on an H2 file (so it serves it: AUTO_SERVER), prints READY and waits for a line. */
public final class H2ServeWorker {
    public static void main(String[] args) throws Exception {
        try (ContentEngine engine = ContentEngine.open(EngineConfig.builder().jdbcUrl(args[0]).build())) {
            System.out.println("READY " + engine);
            System.out.flush();
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
    }
}
