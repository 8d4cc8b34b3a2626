package dev.turnstile.samples;

import dev.turnstile.api.ContentEngine;
import dev.turnstile.api.EngineConfig;
import picocli.CommandLine.Option;

import java.nio.file.Files;
import java.nio.file.Path;

/** The options every subcommand shares: which engine configuration to open. */
final class EngineOptions {
    @Option(names = "--config", paramLabel = "FILE",
            description = "turnstile.yaml to open (default: ./turnstile.yaml if present, else the embedded H2 database under ./turnstile-data/)")
    Path config;

    /** The file given, else ./turnstile.yaml if present, else null (the defaults). */
    Path configFile() {
        if (config != null) {
            return config;
        }
        Path local = Path.of("turnstile.yaml");
        return Files.exists(local) ? local : null;
    }

    EngineConfig config() {
        Path file = configFile();
        return file != null ? ContentEngine.readConfig(file) : EngineConfig.ofDefaults();
    }

    ContentEngine open() {
        return ContentEngine.open(config());
    }
}
