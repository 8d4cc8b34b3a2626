package dev.turnstile.engine.db;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import dev.turnstile.api.EngineRuntimeException;

/**
 * A child process that opens an engine on {@code URL USER PASSWORD} (the embedded default when
 * the URL is {@code -}) and prints "RESULT OPENED" or "RESULT " and the error's message.
 */
public final class OpenWorker {
    public static void main(String[] args) {
        EngineConfig.Builder config = EngineConfig.builder();
        if (!args[0].equals("-")) {
            config.jdbcUrl(args[0]).username(args[1]).password(args[2]);
        }
        try (ContentEngine ignored = ContentEngine.open(config.build())) {
            System.out.println("RESULT OPENED");
        } catch (EngineRuntimeException e) {
            System.out.println("RESULT " + e.getMessage());
        }
    }
}
