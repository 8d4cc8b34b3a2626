package dev.turnstile.engine.objects;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A child process that waits for GO, then opens an engine (creating the schema if it must),
 * defines a class, prints OPENED, and keeps the engine open until told to exit, so that every
 * worker's opening overlaps the others'.
 */
public final class OpenWorker {
    public static void main(String[] args) throws Exception {
        EngineConfig config = EngineConfig.builder().jdbcUrl(args[0]).username(args[1]).password(args[2])
                .maxPoolSize(2).build();
        System.out.println("READY");
        System.out.flush();
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        stdin.readLine();
        try (ContentEngine engine = ContentEngine.open(config)) {
            engine.session("opener").objectStore().defineClass(args[3], c -> c.integer32("Counter"));
            System.out.println("OPENED");
            System.out.flush();
            stdin.readLine();
        }
    }
}
